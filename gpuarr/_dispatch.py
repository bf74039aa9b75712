"""The registry of numpy functions gpuarr implements (layer 0; NEP 18).

numpy calls ``GPUArray.__array_function__`` (:mod:`gpuarr._protocols`)
for a numpy function that has a GPUArray among its array arguments; that
method asks this registry for gpuarr's implementation and calls it through
:class:`Implementation`, which binds the arguments by numpy's own signature
and passes them by keyword (gpuarr's functions may order their parameters
differently, or take PyCUDA's ``allocator``/``stream`` in between).

Implementations live in layer 5 and 6, above the array class, so the class
cannot import them.  The table is filled by :mod:`gpuarr._dispatch_table`
(layer 6), one line per function (:func:`implements`); the flat namespace
(``gpuarr/__init__.py``, which runs before any submodule) hands this module
a loader that imports the table (:func:`add_loader`), and the first lookup
runs it.  A module may also register its functions itself at import, when
it is certain to be imported before a GPUArray exists.

This module imports nothing at import time but the built-in ``_thread``
(the flat namespace imports it): ``inspect`` and numpy are imported by the
functions that need them.
"""

import _thread

__all__ = ["Implementation", "implements", "add_loader", "lookup",
           "numpy_signature",
           "functions", "numpy_name", "not_implemented", "host_array_error",
           "describe"]

#: numpy function -> Implementation
_FUNCTIONS = {}
#: callables run once, at the first lookup, to fill the table
_LOADERS = []
#: held while the loaders run; the ident of the thread running them
_LOAD_LOCK = _thread.allocate_lock()
_LOADING = None


def numpy_name(func):
    """The public name of a numpy function or ufunc: ``"numpy.sum"``,
    ``"numpy.linalg.norm"``, ``"numpy.add"``.

    Parameters
    ----------
    func : callable
        A numpy function (its ``__module__`` and ``__name__``) or a ufunc.

    Returns
    -------
    str
    """
    name = getattr(func, "__name__", None) or repr(func)
    module = getattr(func, "__module__", None) or "numpy"
    if not module.startswith("numpy") or "._" in module:
        module = "numpy"        # private homes: numpy's public name
    return "%s.%s" % (module, name)


def not_implemented(what):
    """The TypeError for a numpy function or ufunc method gpuarr lacks.

    Parameters
    ----------
    what : str
        Its name (``"numpy.sort"``, ``"numpy.add.at"``).

    Returns
    -------
    TypeError
        With the message ``"gpuarr does not implement <what> ..."``.
    """
    return TypeError("gpuarr does not implement %s (for GPUArray "
                     "arguments); copy to the host with .get() to use "
                     "numpy's" % what)


def host_array_error(what):
    """The TypeError for a numpy ndarray mixed with GPUArrays.

    Parameters
    ----------
    what : str
        The function or ufunc called (``"numpy.add"``).

    Returns
    -------
    TypeError
        Saying to move the data explicitly (``gpuarr.to_gpu`` or
        ``GPUArray.get()``): gpuarr does not copy silently.
    """
    return TypeError(
        "%s: cannot mix a GPUArray with a numpy.ndarray (device and host "
        "memory); move the data explicitly with gpuarr.to_gpu(ndarray) or "
        "GPUArray.get()" % what)


class Implementation:
    """gpuarr's implementation of one numpy function, called with numpy's
    signature.

    Parameters
    ----------
    numpy_function : callable
        The numpy function (its signature is the one callers use).
    function : callable
        gpuarr's implementation; it receives the arguments by keyword,
        renamed by ``rename`` (all positionally when numpy's signature has
        ``*args``, like ``atleast_1d``).
    rename : dict, optional
        numpy parameter name -> gpuarr parameter name (``{"tup":
        "arrays"}``).

    Notes
    -----
    An argument the caller gives that gpuarr's function does not take is
    accepted only when it equals numpy's default (``subok=True``, ``out=None``);
    otherwise the call raises NotImplementedError naming it.  A numpy
    default that differs from gpuarr's (``numpy.copy``'s ``order="K"``) is
    passed explicitly.  The signatures are read at the first call.
    """

    def __init__(self, numpy_function, function, rename=None):
        self.numpy_function = numpy_function
        self.function = function
        self.rename = dict(rename or {})
        self.name = numpy_name(numpy_function)
        self._plan = None

    def __repr__(self):
        return "<gpuarr implementation of %s: %s.%s>" % (
            self.name, getattr(self.function, "__module__", "?"),
            getattr(self.function, "__qualname__", self.function))

    def plan(self):
        """How a call is bound, read once from both signatures.

        Returns
        -------
        dict
            ``positional`` (numpy's positional parameter names in order),
            ``names`` (every numpy parameter name), ``varargs`` and
            ``varkw`` (numpy's signature has ``*args`` / ``**kwargs``),
            ``accepts`` (the gpuarr parameter names taken by keyword, or
            None for any), ``defaults`` (numpy parameter -> default) and
            ``fill`` (gpuarr parameter -> numpy default passed explicitly).
        """
        if self._plan is not None:
            return self._plan
        import inspect
        P = inspect.Parameter
        np_sig = numpy_signature(self.numpy_function)
        impl = inspect.signature(self.function).parameters.values()
        positional, names, defaults = [], set(), {}
        varargs = varkw = False
        for p in np_sig.parameters.values():
            if p.kind == P.VAR_POSITIONAL:
                varargs = True
                continue
            if p.kind == P.VAR_KEYWORD:
                varkw = True
                continue
            names.add(p.name)
            if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
                positional.append(p.name)
            defaults[p.name] = p.default
        accepts = {p.name: p.default for p in impl
                   if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)}
        any_kw = any(p.kind == P.VAR_KEYWORD for p in impl)
        fill = {}
        for name, d in defaults.items():
            target = self.rename.get(name, name)
            if (target in accepts and d is not P.empty and _plain(d)
                    and not _same(accepts[target], d)):
                fill[target] = d
        self._plan = {"positional": tuple(positional), "names": names,
                      "varargs": varargs, "varkw": varkw,
                      "accepts": None if any_kw else frozenset(accepts),
                      "defaults": defaults, "fill": fill}
        return self._plan

    def __call__(self, args, kwargs):
        """Call gpuarr's function with numpy's ``args`` and ``kwargs``.

        Raises
        ------
        TypeError
            For arguments numpy's signature does not take.
        NotImplementedError
            For an argument gpuarr's function does not take, given with a
            value other than numpy's default.
        """
        plan = self._plan or self.plan()
        if plan["varargs"]:
            return self.function(*args, **self._keywords(plan, kwargs))
        positional = plan["positional"]
        if len(args) > len(positional):
            raise TypeError("%s() takes at most %d positional arguments "
                            "(%d given)" % (self.name, len(positional),
                                            len(args)))
        bound = dict(zip(positional, args))
        for k, v in kwargs.items():
            if k in bound:
                raise TypeError("%s() got multiple values for argument %r"
                                % (self.name, k))
            bound[k] = v
        return self.function(**self._keywords(plan, bound))

    def _keywords(self, plan, bound):
        out = dict(plan["fill"])
        accepts = plan["accepts"]
        for k, v in bound.items():
            if k not in plan["names"] and not plan["varkw"]:
                raise TypeError("%s() got an unexpected keyword argument %r"
                                % (self.name, k))
            target = self.rename.get(k, k)
            if accepts is None or target in accepts:
                out[target] = v
            elif not _same(v, plan["defaults"].get(k, _MISSING)):
                raise NotImplementedError(
                    "gpuarr's %s does not support the argument %s=%s"
                    % (self.name, k, describe(v)))
        return out


_MISSING = object()


# numpy 2.4's signatures of the C functions gpuarr implements, for the
# numpy releases (2.0-2.3) whose inspect.signature cannot read them
def _concatenate(arrays, /, axis=0, out=None, *, dtype=None,
                 casting="same_kind"):
    pass


def _where(condition, x=None, y=None, /):
    pass


def _copyto(dst, src, casting="same_kind", where=True):
    pass


def _lexsort(keys, axis=-1):
    pass


def _dot(a, b, out=None):
    pass


def _vdot(a, b, /):
    pass


def _empty_like(prototype, /, dtype=None, order="K", subok=True, shape=None,
                *, device=None):
    pass


def _result_type(*arrays_and_dtypes):
    pass


def _can_cast(from_, to, casting="safe"):
    pass


def _bincount(x, /, weights=None, minlength=0):
    pass


_C_SIGNATURES = {"concatenate": _concatenate, "where": _where,
                 "copyto": _copyto, "lexsort": _lexsort, "dot": _dot,
                 "vdot": _vdot, "inner": _vdot, "empty_like": _empty_like,
                 "result_type": _result_type, "can_cast": _can_cast,
                 "bincount": _bincount}


def _arange(start_or_stop, stop=None, step=None, dtype=None, *, device=None,
            like=None):
    pass


# C functions that take more than their published signature says, bound by
# what they take: numpy.arange's names dtype keyword-only, but it takes
# dtype fourth by position (as Dask's chunk functions pass it)
_WIDER_SIGNATURES = {"arange": _arange}


def numpy_signature(func):
    """``inspect.signature`` of a numpy function; numpy 2.4's for the C
    functions of older numpy releases, which carry none.

    Raises
    ------
    ValueError
        For a C function gpuarr has no signature of.
    """
    import inspect
    wider = _WIDER_SIGNATURES.get(getattr(func, "__name__", None))
    if wider is not None and getattr(func, "__module__", "").startswith(
            "numpy"):
        return inspect.signature(wider)
    try:
        return inspect.signature(func)
    except ValueError:
        sig = _C_SIGNATURES.get(getattr(func, "__name__", None))
        if sig is None:
            raise
        return inspect.signature(sig)


def describe(value):
    """A short description of an argument for a message: its repr for
    plain values, else its type (an array's repr would copy it)."""
    if _plain(value):
        return repr(value)
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return "<%s of shape %s>" % (type(value).__name__, value.shape)
    return "<%s>" % type(value).__name__


def _plain(v):
    """Whether ``v`` is a plain value (None, a number, a string or a tuple
    of ints), safe to compare with ``==``."""
    if type(v) is tuple:
        return all(type(x) is int for x in v)
    return v is None or type(v) in (bool, int, float, str)


def _same(a, b):
    """``a`` is ``b``, or equal plain values of one type (no array ``==``)."""
    if a is b:
        return True
    return type(a) is type(b) and _plain(a) and a == b


def implements(numpy_name_or_function, function, **rename):
    """Register ``function`` as gpuarr's implementation of a numpy function.

    Parameters
    ----------
    numpy_name_or_function : str or callable
        The numpy function, or its name below ``numpy`` (``"sum"``,
        ``"linalg.norm"``); a name this numpy lacks is skipped.
    function : callable
        gpuarr's implementation (see :class:`Implementation`).
    **rename
        numpy parameter name -> gpuarr parameter name.

    Returns
    -------
    Implementation or None
        None when numpy has no function of that name.
    """
    func = numpy_name_or_function
    if isinstance(func, str):
        import numpy
        obj = numpy
        for part in func.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        func = obj
    entry = Implementation(func, function, rename)
    _FUNCTIONS[func] = entry
    return entry


def add_loader(loader):
    """Run ``loader()`` before the first lookup (it fills the table).

    Parameters
    ----------
    loader : callable
        Called once with no arguments.
    """
    _LOADERS.append(loader)


def _load():
    # Threads race to the first lookup (Dask's pool threads start their
    # first tasks together): the others wait until the table is full.  A
    # lookup made by a loader itself sees the table as filled so far.
    global _LOADING
    me = _thread.get_ident()
    if _LOADING == me:
        return
    with _LOAD_LOCK:
        _LOADING = me
        try:
            while _LOADERS:
                _LOADERS.pop(0)()
        finally:
            _LOADING = None


def lookup(func):
    """gpuarr's :class:`Implementation` of the numpy function ``func``, or
    None.

    Parameters
    ----------
    func : callable
        What numpy passes to ``__array_function__``.
    """
    if _LOADERS or _LOADING is not None:
        _load()
    return _FUNCTIONS.get(func)


def functions():
    """The whole table: numpy function -> :class:`Implementation`.

    Returns
    -------
    dict
        A copy (loaders run first).
    """
    if _LOADERS or _LOADING is not None:
        _load()
    return dict(_FUNCTIONS)
