"""numpy's protocols on GPUArrays (layer 5): gpuarr's ufunc objects,
``__array_ufunc__`` (NEP 13) and ``__array_function__`` (NEP 18).

* :class:`Ufunc` - what ``gpuarr.add``, ``gpuarr.sin``, ... are: callables
  with numpy's ufunc attributes (``nin``, ``nout``, ``nargs``, ``ntypes``,
  ``types``, ``identity``) and the methods gpuarr has (``reduce``,
  ``accumulate``, ``outer``, ``at``).  One object per operation of
  :mod:`gpuarr.kernels.ops`, made at the first need: the module that names
  it (``_ufunc``, ``cumath``) or the first numpy ufunc call on a GPUArray.
* :func:`array_ufunc` - ``GPUArray.__array_ufunc__``: ``numpy.add(gpu,
  ...)`` and its methods run gpuarr's ufunc of the same operation.
* :func:`array_function` - ``GPUArray.__array_function__``: numpy
  functions run gpuarr's, found in :mod:`gpuarr._dispatch`'s registry.

A numpy ndarray among the operands raises TypeError (``gpuarr.to_gpu`` or
``.get()`` move data explicitly); Python and numpy scalars mix as in
gpuarr's own calls (NEP 50).  An operand of another library that overrides
the protocol makes these return NotImplemented (numpy then asks it).

Only numpy and layer 0 are imported at the top; the array layer's modules
are bound at the bottom or imported when a method runs, so this module may
be imported before or after them.
"""

import numpy as np

from . import _dispatch, _dtypes
from .kernels.ops import COMPARISONS, OPS, get_op

__all__ = ["Ufunc", "make_ufunc", "by_name", "for_numpy", "ufuncs",
           "array_ufunc", "array_function"]

_NoValue = np._NoValue
#: operation name -> its Ufunc
_BY_NAME = {}
#: numpy ufunc -> operation name (built at the first use)
_NUMPY = {}
#: ufunc.reduce -> (gpuarr.reductions function, takes dtype=: True; the
#: input is cast first: False; no dtype=: None)
_REDUCE = {"add": ("sum", True), "multiply": ("prod", True),
           "maximum": ("max", False), "minimum": ("min", False),
           "fmax": ("nanmax", False), "fmin": ("nanmin", False),
           "logical_and": ("all", None), "logical_or": ("any", None)}
#: ufunc.accumulate -> gpuarr.cumulative function
_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod"}
#: ufunc.at: the unbuffered scatters of gpuarr._indexing.ufunc_at
_AT = frozenset(("add", "subtract", "multiply", "maximum", "minimum"))
#: numpy's ufunc keywords gpuarr takes only at their defaults
_CALL_DEFAULTS = {"where": True, "order": "K", "subok": True,
                  "signature": None}
_METHODS = ("__call__", "reduce", "accumulate", "outer", "at")

_DOC = """%s

    Parameters
    ----------
    %s : GPUArray or scalar
        Operands; broadcast together by numpy's rules. Python scalars are
        "weak" (NEP 50): they take the array's dtype.
    out : GPUArray or tuple, optional
        Destination with the broadcast shape (numpy's 1-tuple too); the
        result is cast to its dtype under ``casting``.
    stream : gpuarr.driver.Stream, optional
    dtype : dtype-like, optional
        numpy's ``dtype=``: the loop whose output has this dtype (inputs
        cast to it under ``casting``).
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}
        numpy's rule for ``out`` and ``dtype``; default ``'same_kind'``.

    Returns
    -------
    GPUArray
        ``out`` if given, else a new array of numpy's result dtype.

    Raises
    ------
    TypeError
        If numpy has no loop for the dtypes, or the result cannot be cast to
        ``out`` (``UFuncTypeError``).
    OverflowError
        If a Python int operand does not fit the array's integer dtype.
    ValueError
        If the shapes do not broadcast.
    NotImplementedError
        For numpy's ``where=``, ``order=``, ``subok=``, ``signature=`` at
        other than their defaults.

    Notes
    -----
    A gpuarr ufunc object: ``nin``, ``nout``, ``types``, ``identity`` as
    numpy's, and ``reduce``/``accumulate``/``outer`` where gpuarr has them
    (see ``docs/gpuarray.md``, "numpy dispatch").
    """


class Ufunc:
    """An element-wise operation of gpuarr with numpy's ufunc interface.

    Parameters
    ----------
    op : str
        An operation of :mod:`gpuarr.kernels.ops` backed by a numpy ufunc.
    nin : int, optional
        Its number of inputs (default the operation's).

    Attributes
    ----------
    nin, nout, nargs : int
        Inputs, outputs, and their sum (numpy's).
    ntypes : int
        ``len(types)``.
    types : list of str
        numpy's loop strings (``'ff->f'``) that gpuarr has kernels for, in
        numpy's order.
    identity : object
        numpy's identity of the ufunc (``0`` for ``add``, None for
        ``subtract``).
    signature : None
        gpuarr has no generalized ufuncs.

    Notes
    -----
    Use :func:`make_ufunc` or :func:`by_name` rather than the constructor:
    each operation has one object.
    """

    signature = None

    def __init__(self, op, nin=None):
        o = get_op(op)
        if o.ufunc is None:
            raise ValueError("%r is not backed by a numpy ufunc" % (op,))
        self._op = o.name
        self._numpy = o.ufunc
        self.nin = o.nin if nin is None else nin
        self.nout = o.nout
        self.nargs = self.nin + self.nout
        self.identity = o.ufunc.identity
        self.__name__ = self.__qualname__ = o.ufunc.__name__
        self.__doc__ = "gpuarr's numpy.%s." % o.ufunc.__name__
        self._types = None
        _BY_NAME[o.name] = self

    def __repr__(self):
        return "<gpuarr ufunc %r>" % self.__name__

    def __reduce__(self):
        return (by_name, (self._op,))

    @property
    def __signature__(self):
        import inspect
        P = inspect.Parameter
        names = (["x"] if self.nin == 1
                 else ["x%d" % (i + 1) for i in range(self.nin)])
        params = [P(n, P.POSITIONAL_ONLY) for n in names]
        params += [P("out", P.POSITIONAL_OR_KEYWORD, default=None),
                   P("stream", P.POSITIONAL_OR_KEYWORD, default=None),
                   P("dtype", P.KEYWORD_ONLY, default=None),
                   P("casting", P.KEYWORD_ONLY, default="same_kind")]
        return inspect.Signature(params)

    @property
    def numpy_ufunc(self):
        """The numpy ufunc of the same operation."""
        return self._numpy

    @property
    def types(self):
        """numpy's loop strings that gpuarr has kernels for."""
        if self._types is None:
            self._types = [t for t in self._numpy.types if self._has_loop(t)]
        return list(self._types)

    @property
    def ntypes(self):
        """Number of loops gpuarr has (``len(types)``)."""
        return len(self.types)

    def _has_loop(self, loop):
        chars = loop.replace("->", "")
        if not all(_dtypes.is_supported(c) for c in chars):
            return False
        ins = [np.dtype(c) for c in loop.split("->")[0]]
        if self._op in COMPARISONS and ins[0] != ins[1]:
            return True         # numpy 2's mixed signed/unsigned compares
        return ins[0].kind in OPS[self._op].exprs

    # -- calls ---------------------------------------------------------------
    def __call__(self, *args, out=None, stream=None, dtype=None,
                 casting="same_kind", **kwargs):
        nin, nout = self.nin, self.nout
        if len(args) != nin:
            args, out, stream = self._positional_out(args, out, stream)
        for k, v in kwargs.items():
            if k not in _CALL_DEFAULTS:
                raise TypeError("%s() got an unexpected keyword argument %r"
                                % (self.__name__, k))
            if not _default(v, _CALL_DEFAULTS[k]):
                raise NotImplementedError("gpuarr's %s does not support "
                                          "%s=%s" % (self.__name__, k,
                                                     _dispatch.describe(v)))
        if nout > 1:
            if dtype is not None or casting != "same_kind":
                raise NotImplementedError("gpuarr's %s takes neither dtype= "
                                          "nor casting=" % self.__name__)
            return _ufunc.apply_outputs(self._op, args, out, stream)
        if type(out) is tuple:
            if len(out) != 1:
                raise ValueError("The 'out' tuple must have exactly one "
                                 "entry per ufunc output")
            out = out[0]
        if dtype is None:
            return _ufunc.apply(self._op, args, out, stream, casting)
        return _ufunc.apply(self._op, args, out, stream, casting,
                            loop=self.loop_for(args, dtype, casting))

    def _positional_out(self, args, out, stream):
        """numpy's ``f(x1, x2, out)`` and PyCUDA's ``f(x1, x2, out,
        stream)``: (inputs, out, stream)."""
        nin, nout = self.nin, self.nout
        rest = args[nin:]
        if len(args) < nin or len(rest) > nout + 1:
            raise TypeError("%s() takes from %d to %d positional arguments "
                            "but %d were given" % (self.__name__, nin,
                                                   nin + nout + 1, len(args)))
        if out is not None:
            raise TypeError("cannot specify 'out' as both a positional and "
                            "keyword argument")
        if nout == 1 or isinstance(rest[0], tuple):
            out = rest[0]
            rest = rest[1:]
        else:
            out = tuple(rest[:nout])
            rest = rest[nout:]
        if rest:
            stream = rest[0]
        return args[:nin], out, stream

    def loop_for(self, args, dtype, casting="same_kind"):
        """numpy's loop for ``dtype=`` (its signature ``(None, ..., dtype)``).

        Parameters
        ----------
        args : sequence
            The inputs (GPUArrays, scalars).
        dtype : dtype-like
        casting : str

        Returns
        -------
        (loop_in, outs) : tuple of tuples of numpy.dtype

        Raises
        ------
        TypeError
            Where numpy has no such loop or cannot cast an input under
            ``casting``, or gpuarr has no kernel for the loop.
        """
        toks = []
        for x in args:
            if isinstance(x, (list, tuple)):
                x = np.asarray(x)
            t = _dtypes.scalar_token(x)
            toks.append(np.dtype(bool) if t is bool else t)
        if all(isinstance(t, type) for t in toks):
            toks = [np.dtype(t) for t in toks]
        nin = self.nin
        res = self._numpy.resolve_dtypes(
            tuple(toks) + (None,) * self.nout,
            signature=(None,) * nin + (np.dtype(dtype),) * self.nout,
            casting=casting)
        for dt in res:
            _dtypes.check_supported(dt)
        loop_in, outs = tuple(res[:nin]), tuple(res[nin:])
        if (loop_in[0].kind not in OPS[self._op].exprs
                and not (self._op in COMPARISONS and loop_in[0] != loop_in[1])):
            raise TypeError("gpuarr has no GPU implementation of %r for "
                            "dtype %s" % (self._op, loop_in[0]))
        return loop_in, outs

    # -- numpy's ufunc methods ---------------------------------------------
    def _binary(self, method):
        if self.nin != 2:
            raise ValueError("%s only supported for binary functions"
                             % method)

    def supports(self, method):
        """Whether gpuarr has ufunc method ``method`` (``"__call__"``,
        ``"reduce"``, ...) for this operation."""
        if method == "__call__":
            return True
        if method == "reduce":
            return self._op in _REDUCE
        if method == "accumulate":
            return self._op in _ACCUMULATE
        if method == "outer":
            return self.nin == 2 and self.nout == 1
        if method == "at":
            return self._op in _AT
        return False

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False,
               initial=_NoValue, where=True):
        """numpy's ``ufunc.reduce`` through gpuarr's reductions (``add`` ->
        ``sum``, ``multiply`` -> ``prod``, ``maximum``/``minimum`` ->
        ``max``/``min``, ``fmax``/``fmin`` -> ``nanmax``/``nanmin``,
        ``logical_and``/``logical_or`` -> ``all``/``any``).

        Parameters
        ----------
        array : GPUArray
        axis : None, int or tuple of ints
            Default 0, as numpy's.
        dtype, out, keepdims, initial, where
            As numpy's (``out`` may be numpy's 1-tuple).

        Returns
        -------
        GPUArray

        Raises
        ------
        ValueError
            For a ufunc that is not binary.
        NotImplementedError
            Where gpuarr has no such reduction (``subtract.reduce``).
        """
        self._binary("reduce")
        spec = _REDUCE.get(self._op)
        if spec is None:
            raise NotImplementedError("gpuarr has no %s.reduce"
                                      % self.__name__)
        from . import reductions
        fname, takes_dtype = spec
        a = reductions.as_array(array)
        kw = {"axis": axis, "out": _one_out(out), "keepdims": keepdims}
        if initial is not _NoValue:
            if takes_dtype is None:
                raise NotImplementedError("gpuarr's %s.reduce does not take "
                                          "initial" % self.__name__)
            kw["initial"] = initial
        if where is not True:
            kw["where"] = where
        if dtype is not None:
            if takes_dtype:
                kw["dtype"] = dtype
            elif takes_dtype is False:
                a = a.astype(dtype)
            elif np.dtype(dtype) != np.dtype(bool):
                raise NotImplementedError("gpuarr's %s.reduce computes in "
                                          "bool only" % self.__name__)
        return getattr(reductions, fname)(a, **kw)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """numpy's ``ufunc.accumulate``: ``add`` and ``multiply`` through
        :func:`gpuarr.cumsum` and :func:`gpuarr.cumprod` (numpy 2's dtypes
        are the same).

        Returns
        -------
        GPUArray

        Raises
        ------
        ValueError
            For a ufunc that is not binary.
        NotImplementedError
            For the other ufuncs.
        """
        self._binary("accumulate")
        fname = _ACCUMULATE.get(self._op)
        if fname is None:
            raise NotImplementedError("gpuarr has no %s.accumulate"
                                      % self.__name__)
        if isinstance(axis, bool):
            raise TypeError("an integer is required")
        if not isinstance(axis, (int, np.integer)):
            raise ValueError("accumulate does not allow multiple axes")
        from . import cumulative, reductions
        return getattr(cumulative, fname)(reductions.as_array(array),
                                          axis=axis, dtype=dtype,
                                          out=_one_out(out))

    def outer(self, A, B, **kwargs):
        """numpy's ``ufunc.outer``: ``f(A[..., None, ...], B)``, with
        ``A`` viewed with ``B.ndim`` length-1 axes appended (no copy).

        Parameters
        ----------
        A, B : GPUArray or scalar
        **kwargs
            As for a call (``out``, ``dtype``, ``casting``, ``stream``).

        Returns
        -------
        GPUArray
            Of shape ``A.shape + B.shape``.

        Raises
        ------
        ValueError
            For a ufunc that is not binary.
        """
        self._binary("outer")
        if self.nout != 1:
            raise NotImplementedError("gpuarr's %s.outer" % self.__name__)
        from . import _creation, _manipulation
        if isinstance(A, (list, tuple)):
            A = _creation.asarray(A)
        if isinstance(B, (list, tuple)):
            B = _creation.asarray(B)
        nb = len(B.shape) if isinstance(B, GPUArray) else 0
        if isinstance(A, GPUArray) and nb:
            A = _manipulation.with_shape(A, A.shape + (1,) * nb)
        return self(A, B, **kwargs)

    def at(self, a, indices, b=None):
        """numpy's ``ufunc.at``: ``a[indices] <op>= b`` unbuffered (every
        update of a repeated index applies), for ``add``, ``subtract``,
        ``multiply``, ``maximum``, ``minimum``
        (:func:`gpuarr._indexing.ufunc_at`).

        Parameters
        ----------
        a : GPUArray
            Updated in place.
        indices : index key
            What ``a[...]`` takes.
        b : GPUArray or scalar

        Returns
        -------
        None

        Raises
        ------
        NotImplementedError
            For the other ufuncs.
        TypeError, IndexError
            As :func:`gpuarr._indexing.ufunc_at`.
        """
        if self._op not in _AT:
            raise NotImplementedError("gpuarr has no %s.at" % self.__name__)
        _indexing.ufunc_at(self._op, a, indices, b)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """numpy's ``ufunc.reduceat``: not in gpuarr.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("gpuarr has no %s.reduceat" % self.__name__)


def _default(v, d):
    return v is d or (type(v) is type(d) and v == d)


def _one_out(out):
    if type(out) is tuple:
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry")
        return out[0]
    return out


def by_name(op):
    """The :class:`Ufunc` of operation ``op`` (made at the first call).

    Parameters
    ----------
    op : str
        A name or alias of :mod:`gpuarr.kernels.ops` backed by a ufunc.

    Returns
    -------
    Ufunc

    Raises
    ------
    ValueError
        For an unknown operation or one no numpy ufunc backs.
    """
    name = get_op(op).name
    u = _BY_NAME.get(name)
    return u if u is not None else Ufunc(name)


def make_ufunc(op, nin, doc):
    """The public :class:`Ufunc` of ``op`` documented by ``doc`` (what
    :func:`gpuarr._ufunc.ufunc` builds ``gpuarr.add`` with).

    Parameters
    ----------
    op : str
    nin : int
    doc : str
        The first line of its docstring.

    Returns
    -------
    Ufunc
        The one object of ``op``, its docstring set.
    """
    u = _BY_NAME.get(get_op(op).name)
    if u is None:
        u = Ufunc(op, nin)
    u.__doc__ = _DOC % (doc, ", ".join("x%d" % (i + 1) for i in range(nin))
                        if nin > 1 else "x")
    return u


def for_numpy(np_ufunc):
    """gpuarr's :class:`Ufunc` of a numpy ufunc, or None.

    Parameters
    ----------
    np_ufunc : numpy.ufunc
    """
    if not _NUMPY:
        for name, o in OPS.items():
            if o.ufunc is not None:
                _NUMPY[o.ufunc] = name
    name = _NUMPY.get(np_ufunc)
    return None if name is None else by_name(name)


def ufuncs():
    """Every gpuarr ufunc: operation name -> :class:`Ufunc`.

    Returns
    -------
    dict
    """
    return {name: by_name(name) for name, o in OPS.items()
            if o.ufunc is not None}


def _foreign(x):
    """An operand of another library overriding numpy's ufunc protocol."""
    t = type(x)
    return (t is not GPUArray and not isinstance(x, (GPUArray, np.ndarray))
            and getattr(t, "__array_ufunc__", None) is not None)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """``GPUArray.__array_ufunc__``: numpy's ufuncs on GPUArrays.

    Parameters
    ----------
    self : GPUArray
    ufunc : numpy.ufunc
    method : str
        ``"__call__"``, ``"reduce"``, ``"accumulate"``, ``"outer"``,
        ``"at"`` (gpuarr has these, for some ufuncs), ``"reduceat"``.
    *inputs, **kwargs
        As numpy passes them (``out`` always a tuple).

    Returns
    -------
    GPUArray or tuple of GPUArray
        What gpuarr's ufunc of the same operation returns; NotImplemented
        when another library's array is among the operands.

    Raises
    ------
    TypeError
        For a ufunc or method gpuarr lacks (naming it), or a numpy ndarray
        among the operands (gpuarr does not copy host data silently).
    """
    out = kwargs.get("out", ())
    for x in inputs + out:
        if _foreign(x):
            return NotImplemented
    what = "numpy." + ufunc.__name__
    if method != "__call__":
        what += "." + method
    if ufunc is np.matmul and method == "__call__":
        for x in inputs + out:
            if isinstance(x, np.ndarray) and x.ndim:
                raise _dispatch.host_array_error(what)
        return _matmul.numpy_matmul(*inputs, **kwargs)
    g = for_numpy(ufunc)
    if g is None or method not in _METHODS or not g.supports(method):
        raise _dispatch.not_implemented(what)
    for x in out:
        if isinstance(x, np.ndarray):
            raise _dispatch.host_array_error(what)
    for k, x in enumerate(inputs):
        # ufunc.at's indices are an index key, which may be on the host
        if isinstance(x, np.ndarray) and x.ndim and not (
                method == "at" and k == 1):
            raise _dispatch.host_array_error(what)
    return getattr(g, method)(*inputs, **kwargs)


def array_function(self, func, types, args, kwargs):
    """``GPUArray.__array_function__``: numpy functions on GPUArrays.

    Parameters
    ----------
    self : GPUArray
    func : callable
        The numpy function called.
    types : collection of type
        The argument types that implement the protocol.
    args, kwargs
        The call's arguments, as given.

    Returns
    -------
    object
        What gpuarr's implementation returns (GPUArrays where numpy's
        returns ndarrays); NotImplemented when another library's array is
        among the arguments.

    Raises
    ------
    TypeError
        ``"gpuarr does not implement numpy.xyz"`` for a function missing
        from :mod:`gpuarr._dispatch`'s table; for a numpy ndarray among
        the arguments.
    NotImplementedError
        For an argument gpuarr's implementation does not take, given with
        a value other than numpy's default.
    """
    host = False
    for t in types:
        if issubclass(t, GPUArray):
            continue
        if issubclass(t, np.ndarray):
            host = True
            continue
        return NotImplemented
    impl = _dispatch.lookup(func)
    if impl is None:
        raise _dispatch.not_implemented(_dispatch.numpy_name(func))
    if host:
        raise _dispatch.host_array_error(impl.name)
    return impl(args, kwargs)


# The array layer imports this module (through _ufunc); bound here, below
# everything they call, so either may be imported first.
from ._array import GPUArray  # noqa: E402
from . import _indexing, _matmul, _ufunc  # noqa: E402
