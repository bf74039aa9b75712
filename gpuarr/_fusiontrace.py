"""Tracing for gpuarr.fuse: the stand-ins a fused function runs on, and the
steps they record (layer 5).

On the first call with a given signature (each argument's dtype and number
of dimensions, or its scalar type), the function runs once on stand-ins
(:class:`FusedValue`) that record every operation, with numpy's type
resolution at each step, into a :class:`~gpuarr.kernels.program.Program`.
The program becomes one elementwise kernel of every result, or, when the
function ends in a reduction, one reduction kernel whose elements are the
program's values.  Later calls with the same signature go straight to the
launch; kernels are compiled and cached (in memory and on disk) like every
generated kernel.  See ``docs/fusion.md``.
"""


import numpy as np

from . import _dtypes
from . import elementwise as _ew
from ._array import GPUArray
# (the module, not its name: _ufunc may be half-imported when this is)
from . import _ufunc
from .kernels.ops import COMPARISONS, get_op
from .kernels.program import constant

__all__ = ["FusedValue", "Tracer", "REDUCTIONS", "cannot"]

_WEAK = (bool, int, float, complex)
_WEAK_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_PARAM_DTYPE = {bool: np.dtype(bool), int: np.dtype("i8"),
                float: np.dtype("f8"), complex: np.dtype("c16")}
_U8 = np.dtype("u8")
#: reductions a fused function may end in: name -> (kernel op, numpy fn)
REDUCTIONS = {
    "sum": ("sum", np.sum), "prod": ("prod", np.prod),
    "nansum": ("nansum", np.nansum), "mean": ("mean", np.mean),
    "max": ("max", np.max), "min": ("min", np.min),
    "nanmax": ("nanmax", np.nanmax), "nanmin": ("nanmin", np.nanmin),
    "any": ("any", np.any), "all": ("all", np.all),
}
#: ufunc.reduce of these is a reduction
_UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max",
                 "minimum": "min", "logical_or": "any", "logical_and": "all",
                 "fmax": "nanmax", "fmin": "nanmin"}
_NUMPY_FUNCS = {np.sum: "sum", np.prod: "prod", np.nansum: "nansum",
                np.mean: "mean", np.max: "max", np.min: "min",
                np.nanmax: "nanmax", np.nanmin: "nanmin", np.any: "any",
                np.all: "all"}
for _n in ("amax", "amin"):
    if hasattr(np, _n):
        _NUMPY_FUNCS[getattr(np, _n)] = _n[1:]
del _n


def cannot(what):
    return TypeError("gpuarr.fuse cannot fuse %s" % what)


class FusedValue:
    """A value inside a function :func:`fuse` is tracing: an argument, or
    the result of an operation on arguments.

    It takes numpy's operators, gpuarr's and numpy's ufuncs, ``where``,
    ``clip``, ``astype`` and the reductions (``sum``, ``max``, ...); what
    cannot be fused (indexing, shapes, Python control flow on values, other
    functions) raises TypeError naming it.

    Attributes
    ----------
    dtype : numpy.dtype
        The value's dtype, by numpy's rules (a Python scalar argument is
        held as int64, float64, complex128 or bool and stays weak).
    ndim : int or None
        The number of dimensions of an array value (None for scalars).
    """

    __slots__ = ("_tr", "_j", "dtype", "ndim", "_weak", "_deps", "_arg",
                 "_reduced")
    __array_priority__ = 1e6

    def __init__(self, tr, j, dtype, weak=None, deps=frozenset(), arg=None,
                 ndim=None, reduced=False):
        self._tr = tr
        self._j = j
        self.dtype = dtype
        self.ndim = ndim
        self._weak = weak
        self._deps = deps
        self._arg = arg
        self._reduced = reduced

    def __repr__(self):
        return "<gpuarr.fuse value of dtype %s>" % self.dtype

    # -- what cannot be fused ---------------------------------------------
    def __bool__(self):
        raise cannot("the truth value of an array value (Python if, and, "
                      "or, not on elements); use gpuarr.where")

    def __len__(self):
        raise cannot("len() of an array value")

    def __iter__(self):
        raise cannot("iterating over an array value")

    def __index__(self):
        raise cannot("an array value used as a Python integer")

    def __float__(self):
        raise cannot("float() of an array value")

    def __int__(self):
        raise cannot("int() of an array value")

    def __getitem__(self, key):
        raise cannot("indexing (x[...])")

    def __setitem__(self, key, value):
        raise cannot("assignment to elements (x[...] = v)")

    def __matmul__(self, other):
        raise cannot("matmul (@): not an elementwise operation")

    __rmatmul__ = __imatmul__ = __matmul__

    def __array__(self, *args, **kwargs):
        raise cannot("numpy.asarray of an array value (host data)")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if hasattr(GPUArray, name):
            raise cannot("the GPUArray attribute or method %r" % name)
        raise AttributeError("%r object has no attribute %r"
                             % (type(self).__name__, name))

    __hash__ = object.__hash__

    # -- numpy's protocols ------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return self._tr.numpy_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        return self._tr.numpy_function(func, args, kwargs)

    # the hooks gpuarr's ufuncs and reductions call (see _ufunc.apply)
    def _gpuarr_fused_apply(self, op, args, out=None, loop=None):
        if out is not None:
            raise cannot("out= inside a fused function (return the value)")
        return self._tr.apply(op, args, loop)

    def _gpuarr_fused_reduce(self, name, axis=None, dtype=None, out=None,
                             keepdims=False):
        if out is not None:
            raise cannot("out= inside a fused function (return the value)")
        return self._tr.reduce(name, self, axis, dtype, keepdims)

    # -- methods ------------------------------------------------------------
    def astype(self, dtype, order="K", casting="unsafe", subok=True,
               copy=True):
        """The value converted to ``dtype`` (numpy's ``astype``)."""
        dt = _dtypes.check_supported(dtype)
        if not np.can_cast(self.dtype, dt, casting):
            raise TypeError("Cannot cast array data from %r to %r according "
                            "to the rule %r" % (self.dtype, dt, casting))
        return self._tr.cast(self, dt)

    def copy(self, order="K"):
        """A copy of the value (``x.copy()``): the same value."""
        return self._tr.cast(self, self.dtype)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._gpuarr_fused_reduce("sum", axis, dtype, out, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._gpuarr_fused_reduce("prod", axis, dtype, out, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return self._gpuarr_fused_reduce("mean", axis, dtype, out, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        return self._gpuarr_fused_reduce("max", axis, None, out, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        return self._gpuarr_fused_reduce("min", axis, None, out, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        return self._gpuarr_fused_reduce("any", axis, None, out, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return self._gpuarr_fused_reduce("all", axis, None, out, keepdims)

    def conj(self):
        return self._tr.apply("conjugate", (self,))

    conjugate = conj

    # -- operators ---------------------------------------------------------
    def _bin(op, reflected=False):
        if reflected:
            def f(self, other):
                return self._tr.apply(op, (other, self))
        else:
            def f(self, other):
                return self._tr.apply(op, (self, other))
        return f

    def _iop(op):
        def f(self, other):
            return self._tr.inplace(op, self, other)
        return f

    __add__, __radd__, __iadd__ = _bin("add"), _bin("add", 1), _iop("add")
    __sub__, __rsub__, __isub__ = (_bin("subtract"), _bin("subtract", 1),
                                   _iop("subtract"))
    __mul__, __rmul__, __imul__ = (_bin("multiply"), _bin("multiply", 1),
                                   _iop("multiply"))
    __truediv__, __rtruediv__, __itruediv__ = (
        _bin("true_divide"), _bin("true_divide", 1), _iop("true_divide"))
    __floordiv__, __rfloordiv__, __ifloordiv__ = (
        _bin("floor_divide"), _bin("floor_divide", 1), _iop("floor_divide"))
    __mod__, __rmod__, __imod__ = (_bin("remainder"), _bin("remainder", 1),
                                   _iop("remainder"))
    __pow__, __rpow__, __ipow__ = (_bin("power"), _bin("power", 1),
                                   _iop("power"))
    __and__, __rand__, __iand__ = (_bin("bitwise_and"),
                                   _bin("bitwise_and", 1), _iop("bitwise_and"))
    __or__, __ror__, __ior__ = (_bin("bitwise_or"), _bin("bitwise_or", 1),
                                _iop("bitwise_or"))
    __xor__, __rxor__, __ixor__ = (_bin("bitwise_xor"),
                                   _bin("bitwise_xor", 1), _iop("bitwise_xor"))
    __lshift__, __rlshift__, __ilshift__ = (
        _bin("left_shift"), _bin("left_shift", 1), _iop("left_shift"))
    __rshift__, __rrshift__, __irshift__ = (
        _bin("right_shift"), _bin("right_shift", 1), _iop("right_shift"))
    __lt__, __le__ = _bin("less"), _bin("less_equal")
    __gt__, __ge__ = _bin("greater"), _bin("greater_equal")
    __eq__, __ne__ = _bin("equal"), _bin("not_equal")
    del _bin, _iop

    def __divmod__(self, other):
        return (self._tr.apply("floor_divide", (self, other)),
                self._tr.apply("remainder", (self, other)))

    def __rdivmod__(self, other):
        return (self._tr.apply("floor_divide", (other, self)),
                self._tr.apply("remainder", (other, self)))

    def __neg__(self):
        return self._tr.apply("negative", (self,))

    def __pos__(self):
        return self._tr.apply("positive", (self,))

    def __abs__(self):
        return self._tr.apply("absolute", (self,))

    def __invert__(self):
        return self._tr.apply("invert", (self,))


class Tracer:
    """The steps recorded while tracing one signature."""

    def __init__(self, sig):
        self.sig = sig
        self.steps = []
        self.checks = []         # (argument, loop dtype) of int scalar uses
        self.negpow = set()      # int scalar arguments used as exponents
        self.writes = {}         # argument -> step of its new value
        self.reduction = None
        self.deps = []           # the array arguments each step reads
        self.current = {}        # array argument -> step of its value now
        self.args = []
        arrays = [k for k, t in enumerate(sig) if t[0] == "a"]
        scalars = [k for k, t in enumerate(sig) if t[0] != "a"]
        # arrays are the program's first inputs (a reduction kernel reads
        # them, then its scalar parameters)
        for n, k in enumerate(arrays + scalars):
            t = sig[k]
            if t[0] == "a":
                dt = t[1]
                v = FusedValue(self, len(self.steps), dt, deps=frozenset((k,)),
                               arg=k, ndim=t[2])
                self.current[k] = v._j
            elif t[0] == "w":
                dt = _U8 if t[2] else _PARAM_DTYPE[t[1]]
                v = FusedValue(self, len(self.steps), dt, weak=t[1], arg=k)
            else:
                dt = t[1]
                v = FusedValue(self, len(self.steps), dt, arg=k)
            self.steps.append(("in", dt, n))
            self.deps.append(v._deps)
            self.args.append((k, v))
        self.args.sort(key=lambda kv: kv[0])
        self.input_args = tuple(arrays + scalars)
        self.args = [v for _, v in self.args]

    def _new(self, step, deps, weak=None, ndim=None):
        self.steps.append(step)
        self.deps.append(deps)
        return FusedValue(self, len(self.steps) - 1, step[1], weak=weak,
                          deps=deps, ndim=ndim)

    def _operand(self, x):
        """(FusedValue or None, resolution token) of one operand."""
        if isinstance(x, FusedValue):
            if x._tr is not self:
                raise cannot("a value of another fused function's trace")
            if x._reduced:
                raise cannot("operations after the reduction (a fused "
                              "function ends in its reduction)")
            if x._arg in self.current and self.current[x._arg] != x._j:
                raise cannot("an argument read through a name bound before "
                              "an in-place update of it")
            return x, (x._weak if x._weak is not None else x.dtype)
        t = type(x)
        if t in _WEAK:
            return None, x
        for w in (bool, int, float, complex):
            if isinstance(x, w):
                return None, w(x)
        if isinstance(x, np.ndarray) and x.ndim == 0:
            x = x[()]
        if isinstance(x, np.generic):
            _dtypes.canonical(x.dtype)
            return None, x
        if isinstance(x, GPUArray) or hasattr(x, "__cuda_array_interface__"):
            raise cannot("an array the function reads without taking it as "
                          "an argument (pass it as an argument)")
        raise cannot("an operand of type %s" % t.__name__)

    def apply(self, op, args, loop=None):
        opobj = get_op(op)
        if len(args) != opobj.nin:
            raise TypeError("%s takes %d operand(s) (%d given)"
                            % (opobj.name, opobj.nin, len(args)))
        vals, toks = zip(*[self._operand(x) for x in args])
        if loop is None:
            loop_in, outs = _ew.resolve(opobj.name, *toks)
        else:
            loop_in, outs = loop
        refs = []
        deps = frozenset()
        weak = True
        for k, (v, tok, ldt) in enumerate(zip(vals, toks, loop_in)):
            if v is None:
                if type(tok) is int and opobj.name in COMPARISONS \
                        and ldt.kind in "iu":
                    lo, hi = _dtypes.int_bounds(ldt)
                    if not lo <= tok <= hi:
                        # numpy 2 answers exactly: one bool for all elements
                        ans = _ew.out_of_range_comparison(opobj.name, k == 0,
                                                          tok > hi)
                        other = vals[1 - k]
                        b = np.dtype(bool)
                        if other is None:
                            return self._new(("const", b, constant(ans, b)),
                                             frozenset())
                        return self._new(("const", b, constant(ans, b)),
                                         other._deps, ndim=other.ndim)
                weak = weak and type(tok) in _WEAK
                val = _dtypes.convert_scalar(tok, ldt)
                self.steps.append(("const", ldt, constant(val, ldt)))
                self.deps.append(frozenset())
                refs.append(len(self.steps) - 1)
                continue
            weak = weak and v._weak is not None
            deps |= v._deps
            refs.append(v._j)
            if v._weak is int and self.steps[v._j][0] == "in":
                if ldt.kind in "iub":
                    self.checks.append((v._arg, ldt))
                if opobj.name == "power" and k == 1 and loop_in[0].kind in "iu":
                    self.negpow.add(v._arg)
        ndim = max((v.ndim for v in vals if v is not None and v.ndim is not None),
                   default=None)
        res = []
        for n, odt in enumerate(outs):
            w = _WEAK_OF_KIND[odt.kind] if weak else None
            res.append(self._new(("op", odt, opobj.name, tuple(loop_in),
                                  tuple(refs), n), deps, w, ndim))
        return res[0] if len(res) == 1 else tuple(res)

    def cast(self, v, dt):
        v, _ = self._operand(v)
        return self._new(("cast", dt, v._j), v._deps, ndim=v.ndim)

    def inplace(self, op, x, other):
        """``x <op>= other``: numpy's ufunc with ``out=x`` (same_kind); an
        argument array receives the value when the kernel runs."""
        res = self.apply(op, (x, other))
        if res.dtype != x.dtype:
            if not np.can_cast(res.dtype, x.dtype, "same_kind"):
                raise _ufunc.casting_error(get_op(op).name, res.dtype,
                                           x.dtype)
            res = self.cast(res, x.dtype)
        if x._arg is not None and x._weak is None and x._deps:
            res._arg = x._arg
            res.ndim = x.ndim
            self.writes[x._arg] = self.current[x._arg] = res._j
        return res

    def reduce(self, name, v, axis, dtype, keepdims):
        v, _ = self._operand(v)
        if self.reduction is not None:
            raise cannot("a second reduction (one final reduction only)")
        if not v._deps:
            raise cannot("a reduction of scalars")
        if name not in REDUCTIONS:
            raise cannot("the reduction %r" % name)
        self.reduction = (name, v._j, axis, dtype, keepdims, v._deps)
        out = FusedValue(self, v._j, v.dtype, deps=v._deps, reduced=True)
        return out

    # -- numpy's protocols ----------------------------------------------------
    def numpy_ufunc(self, ufunc, method, inputs, kwargs):
        name = ufunc.__name__
        if method == "__call__":
            try:
                get_op(name)
            except ValueError:
                raise cannot("numpy.%s" % name) from None
            if kwargs.get("out") is not None:
                raise cannot("out= inside a fused function (return the "
                              "value)")
            extra = [k for k, v in kwargs.items() if k != "out" and v is not None]
            if extra:
                raise cannot("numpy.%s with %s=" % (name, extra[0]))
            return self.apply(name, inputs)
        if method == "reduce" and name in _UFUNC_REDUCE and len(inputs) == 1:
            kw = dict(kwargs)
            axis = kw.pop("axis", 0)
            dtype = kw.pop("dtype", None)
            keepdims = kw.pop("keepdims", False)
            if kw.pop("out", None) is not None or kw:
                raise cannot("numpy.%s.reduce with %s" % (name, sorted(kw)
                                                           or "out="))
            return self.reduce(_UFUNC_REDUCE[name], inputs[0], axis, dtype,
                               keepdims)
        raise cannot("numpy.%s.%s" % (name, method))

    def numpy_function(self, func, args, kwargs):
        name = _NUMPY_FUNCS.get(func)
        if name is not None:
            kw = dict(kwargs)
            a = args[0] if args else kw.pop("a")
            rest = list(args[1:])
            axis = rest.pop(0) if rest else kw.pop("axis", None)
            dtype = None
            if name in ("sum", "prod", "nansum", "mean"):
                dtype = rest.pop(0) if rest else kw.pop("dtype", None)
            out = rest.pop(0) if rest else kw.pop("out", None)
            keepdims = rest.pop(0) if rest else kw.pop("keepdims", False)
            if rest or out is not None or kw:
                raise cannot("numpy.%s with these arguments" % func.__name__)
            return self.reduce(name, a, axis, dtype, keepdims)
        if func is np.where and len(args) == 3 and not kwargs:
            return self.apply("where", args)
        if func is np.clip and not kwargs and len(args) == 3:
            a, lo, hi = args
            if lo is None and hi is None:
                return self.cast(a, a.dtype)
            if lo is None:
                return self.apply("minimum", (a, hi))
            if hi is None:
                return self.apply("maximum", (a, lo))
            return self.apply("clip", args)
        mod = getattr(func, "__module__", None) or "numpy"
        raise cannot("%s.%s" % (mod, getattr(func, "__name__", func)))
