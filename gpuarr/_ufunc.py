"""Element-wise dispatch: numpy's promotion, broadcasting and casting for
GPUArray operands, and the ufunc-named functions (layer 5).

:func:`apply` resolves an operation's loop with numpy's rules (NEP 50:
Python scalars are weak), broadcasts the operands, checks ``out=`` under
``same_kind`` casting, copies inputs that overlap ``out`` in another
layout, and hands the launch to :func:`gpuarr.elementwise.run_elementwise`.
Ahead of it sit the steady-state paths of repeated calls (every fast path
of the array layer lives here and only here):

* :func:`same_binary` - ``a + b`` of C-contiguous arrays of one shape and
  dtype (the operators' own check picks it);
* the *hot* entries - C-contiguous, 16-byte aligned operands of one shape:
  one dict lookup, an identity check of the current context, a pool pop and
  one prepared launch;
* the *hot views* entries - operands of one shape in any other layout;
* ``_fast`` - C-contiguous operands with weak scalars whose resolution is
  cached.
"""

import numpy as np

from . import _dispatch, _dtypes, _layout, _percontext, _placement
from . import driver as _drv
from . import elementwise as _ew
from ._array import GPUArray, make
from . import _creation, _protocols
from . import _selection
from .tools import default_pool as _default_pool

__all__ = [
    "UFuncTypeError", "casting_error", "apply", "binop", "inplace",
    "same_binary", "compare_unconvertible", "ufunc", "Unsupported",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
    "remainder", "mod", "power", "negative", "positive", "absolute", "abs",
    "invert", "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "left_shift", "right_shift", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "minimum", "maximum", "where", "if_positive",
    "apply_outputs",
]

try:
    from numpy._core._exceptions import UFuncTypeError as _NpUFuncTypeError
    from numpy._core._exceptions import _UFuncOutputCastingError
except ImportError:  # pragma: no cover - numpy internals moved
    _NpUFuncTypeError = TypeError
    _UFuncOutputCastingError = None


class UFuncTypeError(_UFuncOutputCastingError or _NpUFuncTypeError):
    """TypeError raised when a result cannot be cast to ``out`` (numpy's rule).

    A subclass of the class numpy raises in the same case (its private
    ``_UFuncOutputCastingError``, a ``UFuncTypeError``) where numpy has it,
    and of :class:`TypeError` always, so ``except TypeError`` and numpy's
    own class both catch it.

    Parameters
    ----------
    msg : str
        The message, numpy's wording (``Cannot cast ufunc 'add' output from
        dtype('float64') to dtype('int32') with casting rule 'same_kind'``);
        ``str()`` of the exception is this message.
    """

    def __init__(self, msg):
        TypeError.__init__(self, msg)

    def __str__(self):
        return self.args[0]


def casting_error(op, from_dt, to_dt):
    """The :class:`UFuncTypeError` of a result of ``op`` that cannot be
    cast from ``from_dt`` to ``out``'s ``to_dt`` under ``same_kind``."""
    msg = ("Cannot cast ufunc %r output from %r to %r with casting rule "
           "'same_kind'" % (op, from_dt, to_dt))
    return UFuncTypeError(msg)



_WEAK = (bool, int, float, complex)
# the ordinals of the devices with contexts: more than one, and apply and
# binop ask where their arrays are (the other entry points are wrapped)
_SEVERAL = _drv.context_devices
_placement.register_array_type(GPUArray)
_COMPARISONS = frozenset(("equal", "not_equal", "less", "less_equal",
                          "greater", "greater_equal"))
_RESOLVED = {}


class Unsupported(Exception):
    """An operand type the element-wise operations do not take (the
    operators then return NotImplemented)."""


def _as_operand(x):
    """Normalize one operand: GPUArray, weak Python scalar or numpy scalar."""
    t = type(x)
    if t is GPUArray or t in _WEAK:
        return x
    if isinstance(x, GPUArray):
        return x
    if isinstance(x, np.generic):
        _dtypes.canonical(x.dtype)
        return x
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            _dtypes.canonical(x.dtype)
            return x[()]
        return _creation.to_gpu(x)
    if isinstance(x, _WEAK):  # subclasses of int/float/complex
        for w in _WEAK[::-1]:
            if isinstance(x, w):
                return w(x)
    if hasattr(x, "__cuda_array_interface__"):
        return _creation.asarray(x)
    if isinstance(x, (list, tuple)):
        return _as_operand(np.asarray(x))
    raise Unsupported(t)


def _operands(args):
    """``(operands, None)`` for ``args``, or ``(None, hook)`` when one of
    them is a value of a function :func:`gpuarr.fuse` is tracing (its
    recording hook takes the step instead); Unsupported otherwise."""
    try:
        return [_as_operand(x) for x in args], None
    except Unsupported:
        for x in args:
            hook = getattr(x, "_gpuarr_fused_apply", None)
            if hook is not None:
                return None, hook
        raise


def _key(x):
    t = type(x)
    if t in _WEAK:
        return t
    return x.dtype


def _resolve(op, operands):
    key = [op]
    for x in operands:
        key.append(_key(x))
    key = tuple(key)
    res = _RESOLVED.get(key)
    if res is None:
        try:
            loop, outs = _ew.resolve(op, *operands)
        except OverflowError:
            if op not in _COMPARISONS:
                raise
            # numpy 2 compares integer arrays with any Python int; only the
            # dtypes matter here, the values are handled by _apply
            loop, outs = _ew.resolve(
                op, *[0 if type(x) is int else x for x in operands])
        res = (tuple(np.dtype(d) for d in loop), tuple(np.dtype(d) for d in outs))
        _RESOLVED[key] = res
    return res


def apply(op, args, out=None, stream=None, casting="same_kind", loop=None):
    """Run ``op`` on ``args`` with numpy's promotion, broadcasting and casting.

    Parameters
    ----------
    op : str
        An operation of :mod:`gpuarr.kernels.ops` (a ufunc name).
    args : sequence
        GPUArrays, Python or numpy scalars, numpy arrays (copied to the
        device), lists, objects with ``__cuda_array_interface__``.
    out : GPUArray, optional
    stream : gpuarr.driver.Stream, optional
    casting : str
        numpy's casting rule for ``out``.
    loop : (tuple of numpy.dtype, tuple of numpy.dtype), optional
        The loop's input and output dtypes when already chosen (numpy's
        ``dtype=``: :meth:`gpuarr._protocols.Ufunc.loop_for`).

    Returns
    -------
    GPUArray
        ``out`` if given, else a new array (F order when every array
        operand is F- and not C-contiguous, else C order).

    Raises
    ------
    TypeError, OverflowError, ValueError
        As numpy would, before any launch; :class:`Unsupported` for an
        operand type this layer does not take.
    """
    if len(_SEVERAL) > 1:
        ctx = _placement.target_context((args, out))
        if ctx is not None:
            return _placement.call_in(ctx, apply, op, args, out, stream,
                                      casting, loop)
    if loop is None:
        res = _hot_apply(op, args, out, stream)
        if res is not None:
            return res
        if out is None:
            res = _fast(op, args, stream)
            if res is not None:
                return res
    ops, hook = _operands(args)
    if hook is not None:
        return hook(op, args, out, loop)
    loop, outs = _resolve(op, ops) if loop is None else loop
    shapes = [x.shape for x in ops if type(x) is GPUArray]
    if not shapes:
        raise TypeError("%s: at least one operand must be a GPUArray" % op)
    shape = shapes[0]
    for s in shapes:
        if s != shape:
            shape = _layout.broadcast_shapes(*shapes, operands=True)
            break
    res_dt = outs[0]
    if out is not None:
        if type(out) is not GPUArray and not isinstance(out, GPUArray):
            if isinstance(out, tuple) and len(out) == 1:
                out = out[0]
            if not isinstance(out, GPUArray):
                raise TypeError("out must be a GPUArray")
        if out.shape != shape:
            try:
                full_shape = _layout.broadcast_shapes(out.shape, shape,
                                                      operands=True)
            except ValueError:
                full_shape = None
            if full_shape != out.shape:
                raise ValueError("non-broadcastable output operand with shape "
                                 "%s doesn't match the broadcast shape %s"
                                 % (_layout.shape_str(out.shape),
                                    _layout.shape_str(shape)))
            shape = out.shape
        if out.dtype != res_dt and not np.can_cast(res_dt, out.dtype, casting):
            raise casting_error(op, res_dt, out.dtype)
    # scalars go to run_elementwise as they are: it converts them to the
    # loop dtype with numpy's range checks (OverflowError; exact comparisons
    # of integer arrays with out-of-range Python ints)
    inputs = ops
    if out is None:
        arrays = [x for x in ops if type(x) is GPUArray]
        if arrays and all(a._f and not a._c for a in arrays) \
                and all(a.shape == shape for a in arrays):
            out = GPUArray(shape, res_dt, order="F")
        else:
            out = _creation.empty_c(shape, res_dt)
    elif out.size:
        # inputs that overlap ``out`` in another layout are copied first
        for i, x in enumerate(inputs):
            if type(x) is GPUArray and x.size and _layout.overlaps(x, out) \
                    and not (x.ptr == out.ptr and x.strides == out.strides
                             and x.shape == out.shape):
                inputs[i] = x.copy(stream=stream)
    # size 0 still goes to run_elementwise: it launches nothing but raises
    # numpy's value errors (uint8 + 300)
    for i, x in enumerate(inputs):
        if type(x) is GPUArray and x.shape != shape:
            inputs[i] = _broadcast_view(x, shape)
    _ew.run_elementwise(op, [out], inputs, loop_dtypes=loop, stream=stream)
    return out


def apply_outputs(op, args, out=None, stream=None):
    """:func:`apply` for an operation with several outputs (numpy's
    ``frexp`` and ``modf``): one array per output.

    Parameters
    ----------
    op : str
        An operation of :mod:`gpuarr.kernels.ops` with ``nout > 1``.
    args : sequence
        Operands, as for :func:`apply`.
    out : tuple, optional
        One GPUArray or None per output (numpy's ``out=(o1, o2)``); each
        given one receives its result cast under ``same_kind`` casting.
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    tuple of GPUArray
        The given outputs, new arrays (C order) for the others.

    Raises
    ------
    TypeError, ValueError
        As numpy would, before any launch: no loop for the dtype, an
        ``out`` that is no tuple of the right length (numpy's message), an
        output of another shape or that the result cannot be cast to.
    """
    ops, hook = _operands(args)
    if hook is not None:
        return hook(op, args, out)
    loop, res = _resolve(op, ops)
    shapes = [x.shape for x in ops if type(x) is GPUArray]
    if not shapes:
        raise TypeError("%s: at least one operand must be a GPUArray" % op)
    shape = _layout.broadcast_shapes(*shapes, operands=True)
    if out is None:
        out = (None,) * len(res)
    if not isinstance(out, tuple) or len(out) != len(res):
        raise ValueError("The 'out' tuple must have exactly one entry per "
                         "ufunc output")
    for o, dt in zip(out, res):
        if o is None:
            continue
        if not isinstance(o, GPUArray):
            raise TypeError("out must be a tuple of GPUArrays or None")
        if o.shape != shape:
            raise ValueError("non-broadcastable output operand with shape %s "
                             "doesn't match the broadcast shape %s"
                             % (_layout.shape_str(o.shape),
                                _layout.shape_str(shape)))
        if o.dtype != dt and not np.can_cast(dt, o.dtype, "same_kind"):
            raise casting_error(op, dt, o.dtype)
    outs = [_creation.empty_c(shape, dt) if o is None else o
            for o, dt in zip(out, res)]
    inputs = ops
    for i, x in enumerate(inputs):
        if type(x) is not GPUArray:
            continue
        if x.size and any(
                o is not None and o.size and _layout.overlaps(x, o)
                and not (x.ptr == o.ptr and x.strides == o.strides
                         and x.shape == o.shape) for o in out):
            x = inputs[i] = x.copy(stream=stream)
        if x.shape != shape:
            inputs[i] = _broadcast_view(x, shape)
    _ew.run_elementwise(op, outs, inputs, loop_dtypes=loop, stream=stream)
    return tuple(outs)


def _fast(op, args, stream):
    """Fast path: C-contiguous GPUArrays of one shape and weak Python scalars
    whose resolution is cached; None when it does not apply."""
    shape = None
    key = [op]
    for x in args:
        t = type(x)
        if t is GPUArray:
            if not x._c:
                return None
            if shape is None:
                shape = x.shape
            elif x.shape != shape:
                return None
            key.append(x.dtype)
        elif t in _WEAK:
            key.append(t)
        else:
            return None
    if shape is None:
        return None
    res = _RESOLVED.get(tuple(key))
    if res is None:
        return None
    out = _creation.empty_c(shape, res[1][0])
    _ew.run_elementwise(op, [out], args if type(args) is list else list(args),
                        loop_dtypes=res[0], stream=stream)
    return out


def _broadcast_view(x, shape):
    strides = _layout.broadcast_strides(x.shape, x.strides, shape)
    return x._view(shape, strides, 0)


# ---------------------------------------------------------------------------
# the steady-state path of small operations
#
# Operands that are C-contiguous GPUArrays of one non-empty shape at 16-byte
# aligned addresses, with a result allocated here (or an ``out=`` of the same
# kind): a hit is one dict lookup on (op, dtypes..., shape), one identity check
# of the current context, a pool pop, a GPUArray built without validation and
# one prepared launch.  The entry holds everything else:
# (context, pool, function, grid, block, tail, out dtype, nbytes, strides,
#  size, f_contiguous).

_HOT = {}
_HOT_MAX = 4096


def _forget_hot(ctx):
    # entries hold their context, its pool and its kernels: drop them all
    # when any context is detached (they are rebuilt on demand)
    _HOT.clear()
    _HOT_VIEWS.clear()


_percontext.on_detach(_forget_hot)
_get_current = _drv.Context.get_current


def _hot_entry(key, op, arrays, loop, out_dt):
    """Build and remember the hot entry of ``key`` (None when unavailable)."""
    ctx = _get_current()
    if ctx is None:
        return None
    shape = arrays[0].shape
    fn, grid, block, tail = _ew.contiguous_plan(
        op, loop, out_dt, tuple(x.dtype for x in arrays), shape)
    size = _layout.prod(shape)
    isz = out_dt.itemsize
    nontrivial = 0
    for n in shape:
        if n != 1:
            nontrivial += 1
    strides = _layout.c_strides(shape, isz) if len(shape) != 1 else (isz,)
    ent = (ctx, _default_pool(), fn, grid, block, tail, out_dt, size * isz,
           strides, size, nontrivial <= 1)
    if len(_HOT) >= _HOT_MAX:
        _HOT.clear()
    _HOT[key] = ent
    return ent


def _hot_out(ent, shape):
    """A new C-ordered array from the entry's pool (no validation)."""
    blk = ent[1].allocate(ent[7])
    return make(shape, ent[6], ent[8], blk.ptr, blk, None, True, ent[10],
                None, ent[9])


def same_binary(op, a, b):
    """Fast path: same shape, same dtype, both C-contiguous GPUArrays."""
    if len(_SEVERAL) > 1:
        ctx = _placement.target_context((a, b))
        if ctx is not None:
            return _placement.call_in(ctx, same_binary, op, a, b)
    shape = a.shape
    ent = _HOT.get((op, a.dtype, shape))
    if ent is not None and ent[0] is _get_current() and not (a.ptr | b.ptr) & 15:
        out = _hot_out(ent, shape)
        ent[2].prepared_async_call(ent[3], ent[4], None, out.ptr, a.ptr, b.ptr,
                                   *ent[5])
        return out
    key = (op, a.dtype, a.dtype)
    res = _RESOLVED.get(key)
    if res is None:
        res = _resolve(op, (a, b))
    loop, outs = res
    dt = outs[0]
    if a.size and not (a.ptr | b.ptr) & 15:
        ent = _hot_entry((op, a.dtype, shape), op, (a, b), loop, dt)
        if ent is not None:
            out = _hot_out(ent, shape)
            ent[2].prepared_async_call(ent[3], ent[4], None, out.ptr, a.ptr,
                                       b.ptr, *ent[5])
            return out
    out = _creation.empty_c(shape, dt)
    if a.size:
        _ew.run_elementwise(op, [out], [a, b], loop_dtypes=loop)
    return out


def _hot_apply(op, args, out, stream):
    """The steady-state path of :func:`apply` for GPUArray operands only:
    the result, or None when it does not apply (the general path then
    runs)."""
    key = [op]
    shape = None
    align = 0
    for x in args:
        if type(x) is not GPUArray:
            return None
        if not x._c:
            return _hot_views(op, args, out, stream)
        if shape is None:
            shape = x.shape
        elif x.shape != shape:
            return None
        align |= x.ptr
        key.append(x.dtype)
    if shape is None or align & 15:
        return None
    key.append(shape)
    key = tuple(key)
    ent = _HOT.get(key)
    if ent is None or ent[0] is not _get_current():
        res = _RESOLVED.get(tuple(key[:-1]))
        if res is None or not _layout.prod(shape):
            return None
        ent = _hot_entry(key, op, args, res[0], res[1][0])
        if ent is None:
            return None
    if out is None:
        out = _hot_out(ent, shape)
    else:
        # the same result dtype, shape and C layout; an input may be ``out``
        # itself but must not overlap it otherwise
        if (type(out) is not GPUArray or out.dtype is not ent[6]
                or out.shape != shape or not out._c or out.ptr & 15):
            return None
        o0 = out.ptr
        o1 = o0 + ent[7]
        for x in args:
            p = x.ptr
            if p != o0 and p < o1 and o0 < p + x.size * x.dtype.itemsize:
                return None
    ent[2].prepared_async_call(ent[3], ent[4], stream, out.ptr,
                               *[x.ptr for x in args], *ent[5])
    return out


# The steady-state path of operands in other layouts (slices, transposes,
# reversed views) of one shape, all GPUArrays: the entry of (op, shape, and
# each operand's dtype, strides and address modulo 16) holds
# (context, function, grid, block, tail, each input's byte extent and
#  whether it has the output's strides, the output's extent; and for a
#  result allocated here: pool, dtype, nbytes, strides, size, c, f).

_HOT_VIEWS = {}


def _hot_views_entry(key, op, args, out):
    ctx = _get_current()
    if ctx is None:
        return None
    res = _RESOLVED.get((op,) + tuple(x.dtype for x in args))
    if res is None:
        return None
    loop, outs = res
    res_dt = outs[0]
    shape = args[0].shape
    size = _layout.prod(shape)
    if not size:
        return None
    alloc = None
    if out is None:
        # numpy's layout of the result: Fortran order when every input is
        # F- and not C-contiguous, else C order (an allocation is 16-byte
        # aligned, as the stand-in's address 0 says)
        f_order = all(x._f and not x._c for x in args)
        isz = res_dt.itemsize
        strides = (_layout.f_strides(shape, isz) if f_order
                   else _layout.c_strides(shape, isz))
        nontrivial = sum(1 for n in shape if n != 1)
        alloc = (_default_pool(), res_dt, size * isz, strides, size,
                 not f_order or nontrivial <= 1, f_order or nontrivial <= 1)
        target = _layout.Layout(0, res_dt, shape, strides)
    else:
        if out.dtype != res_dt:
            return None
        target = out
    fn, grid, block, tail = _ew.array_plan(op, loop, [target], list(args))
    olo, ohi = _layout.extent(shape, target.strides, res_dt.itemsize)
    exts = tuple(_layout.extent(shape, x.strides, x.dtype.itemsize)
                 + (x.strides == target.strides,) for x in args)
    ent = (ctx, fn, grid, block, tail, exts, olo, ohi, alloc)
    if len(_HOT_VIEWS) >= _HOT_MAX:
        _HOT_VIEWS.clear()
    _HOT_VIEWS[key] = ent
    return ent


def _hot_views(op, args, out, stream):
    """:func:`_hot_apply` for GPUArrays of one shape in any layout; None
    when it does not apply.  An input overlapping ``out`` other than as the
    very same elements (in place) goes to the general path, which copies
    it first."""
    shape = args[0].shape
    key = [op, shape]
    for x in args:
        if type(x) is not GPUArray or x.shape != shape:
            return None
        key.append(x.dtype)
        key.append(x.strides)
        key.append(x.ptr & 15)
    if out is not None:
        if type(out) is not GPUArray or out.shape != shape:
            return None
        key.append(out.dtype)
        key.append(out.strides)
        key.append(out.ptr & 15)
    key = tuple(key)
    ent = _HOT_VIEWS.get(key)
    if ent is None or ent[0] is not _get_current():
        ent = _hot_views_entry(key, op, args, out)
        if ent is None:
            return None
    if out is None:
        pool, dt, nbytes, strides, size, c, f = ent[8]
        blk = pool.allocate(nbytes)
        out = make(shape, dt, strides, blk.ptr, blk, None, c, f, None,
                   size)
    else:
        o = out.ptr
        olo = o + ent[6]
        ohi = o + ent[7]
        for x, (lo, hi, same) in zip(args, ent[5]):
            p = x.ptr
            if p + lo < ohi and olo < p + hi and not (same and p == o):
                return None
    ent[1].prepared_async_call(ent[2], ent[3], stream, out.ptr,
                               *[x.ptr for x in args], *ent[4])
    return out


def compare_unconvertible(a, value):
    """``a == x`` / ``a != x`` for an ``x`` that is no array or number
    (``None``, a string, any object): numpy compares elementwise, every
    element unequal, so the result is ``a``'s shape filled with ``value``
    (a bool array; memset only, no kernel)."""
    out = _creation.empty_c(a.shape, np.dtype(bool))
    if out.size:
        out.fill(value)
    return out


def binop(op, a, b):
    """``a <op> b`` for the operators: the result, or NotImplemented for
    an operand type this layer does not take (Python then tries the other
    operand's reflected method).  A numpy ndarray operand (not 0-d) raises
    TypeError: the operators do not copy host data silently."""
    if len(_SEVERAL) > 1:
        ctx = _placement.target_context((a, b))
        if ctx is not None:
            return _placement.call_in(ctx, binop, op, a, b)
    res = _hot_apply(op, (a, b), None, None)
    if res is not None:
        return res
    res = _fast(op, [a, b], None)
    if res is not None:
        return res
    _no_host_array(op, a)
    _no_host_array(op, b)
    try:
        return apply(op, (a, b))
    except Unsupported:
        return NotImplemented


def _no_host_array(op, x):
    # operators never copy a numpy array over (as numpy.<ufunc> and CuPy)
    if isinstance(x, np.ndarray) and x.ndim:
        raise _dispatch.host_array_error("operator (numpy.%s)" % op)


def inplace(op, self, other):
    """``self <op>= other``: numpy's ufunc with ``out=self``
    (``same_kind`` casting), or NotImplemented.

    Raises
    ------
    TypeError
        For a numpy ndarray ``other`` (no silent host copy), or a result
        ``self`` cannot hold.
    """
    _no_host_array(op, other)
    try:
        return apply(op, (self, other), out=self)
    except Unsupported:
        return NotImplemented


def ufunc(op, nin, doc):
    """The public ufunc object of the element-wise operation ``op`` with
    ``nin`` inputs, documented by ``doc`` (the first line of its
    docstring): ``f(x1, x2, out=None, stream=None, *, dtype=None,
    casting='same_kind')`` with numpy's ufunc attributes and methods
    (:class:`gpuarr._protocols.Ufunc`; one object per operation)."""
    return _protocols.make_ufunc(op, nin, doc)


add = ufunc("add", 2, "Element-wise ``x1 + x2`` (numpy.add).")
subtract = ufunc("subtract", 2, "Element-wise ``x1 - x2`` (numpy.subtract).")
multiply = ufunc("multiply", 2, "Element-wise ``x1 * x2`` (numpy.multiply).")
true_divide = ufunc("true_divide", 2, "Element-wise ``x1 / x2`` (numpy.true_divide).")
divide = true_divide
floor_divide = ufunc("floor_divide", 2, "Element-wise ``x1 // x2`` (numpy.floor_divide).")
remainder = ufunc("remainder", 2, "Element-wise ``x1 % x2``, sign of x2 (numpy.remainder).")
mod = remainder
power = ufunc("power", 2, "Element-wise ``x1 ** x2`` (numpy.power).")
negative = ufunc("negative", 1, "Element-wise ``-x`` (numpy.negative).")
positive = ufunc("positive", 1, "Element-wise ``+x`` (numpy.positive).")
absolute = ufunc("absolute", 1, "Element-wise ``abs(x)`` (numpy.absolute).")
abs = absolute
invert = ufunc("invert", 1, "Element-wise ``~x`` (numpy.invert).")
bitwise_not = invert
bitwise_and = ufunc("bitwise_and", 2, "Element-wise ``x1 & x2``.")
bitwise_or = ufunc("bitwise_or", 2, "Element-wise ``x1 | x2``.")
bitwise_xor = ufunc("bitwise_xor", 2, "Element-wise ``x1 ^ x2``.")
left_shift = ufunc("left_shift", 2, "Element-wise ``x1 << x2``.")
right_shift = ufunc("right_shift", 2, "Element-wise ``x1 >> x2``.")
equal = ufunc("equal", 2, "Element-wise ``x1 == x2`` (bool result).")
not_equal = ufunc("not_equal", 2, "Element-wise ``x1 != x2`` (bool result).")
less = ufunc("less", 2, "Element-wise ``x1 < x2`` (bool result).")
less_equal = ufunc("less_equal", 2, "Element-wise ``x1 <= x2`` (bool result).")
greater = ufunc("greater", 2, "Element-wise ``x1 > x2`` (bool result).")
greater_equal = ufunc("greater_equal", 2, "Element-wise ``x1 >= x2`` (bool result).")
logical_and = ufunc("logical_and", 2, "Element-wise logical and (bool result).")
logical_or = ufunc("logical_or", 2, "Element-wise logical or (bool result).")
logical_xor = ufunc("logical_xor", 2, "Element-wise logical xor (bool result).")
logical_not = ufunc("logical_not", 1, "Element-wise logical not (bool result).")
minimum = ufunc("minimum", 2, "Element-wise minimum, NaN-propagating "
                "(numpy.minimum; PyCUDA's ``gpuarray.minimum``).")
maximum = ufunc("maximum", 2, "Element-wise maximum, NaN-propagating "
                "(numpy.maximum; PyCUDA's ``gpuarray.maximum``).")


def where(condition, x=None, y=None, out=None, stream=None):
    """``x`` where ``condition`` is true, else ``y`` (numpy.where).

    PyCUDA's ``gpuarray.where(criterion, then_, else_, out, stream)`` is
    the same function with numpy's argument names.  The result dtype is
    the promotion of ``x`` and ``y``; ``condition`` is tested for non-zero.
    All three broadcast together (PyCUDA needs one shape and one dtype;
    numpy's rules are a superset).

    Parameters
    ----------
    condition : GPUArray, scalar or array_like
        Any dtype, tested for non-zero (complex: either part).
    x, y : GPUArray, scalar or array_like
        The values taken where ``condition`` is true and false; Python
        scalars are weak in the promotion (numpy 2's rule).  Both or
        neither: with neither, the result is :func:`gpuarr.nonzero` of
        ``condition``.
    out : GPUArray, optional
        Receives the result: of the broadcast shape; the result dtype must
        cast to its dtype under ``same_kind``.
    stream : gpuarr.driver.Stream, optional
        The stream the kernel is launched on (PyCUDA's); default the legacy
        default stream.

    Returns
    -------
    GPUArray or tuple of GPUArray
        ``out`` if given, else a new array of the broadcast shape and the
        promoted dtype; with neither ``x`` nor ``y``, the tuple of int64
        index arrays of :func:`gpuarr.nonzero`.

    Raises
    ------
    ValueError
        If only one of ``x`` and ``y`` is given, or the shapes do not
        broadcast.
    TypeError
        For an ``out`` the result cannot be cast to
        (:class:`UFuncTypeError`).
    """
    if x is None and y is None:
        return _selection.nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return apply("where", (condition, x, y), out, stream)


def if_positive(criterion, then_, else_, out=None, stream=None):
    """``then_`` where ``criterion > 0``, else ``else_`` (PyCUDA's).

    PyCUDA's ``gpuarray.if_positive``, with numpy's broadcasting and
    promotion of ``then_`` and ``else_`` (PyCUDA needs one shape and one
    dtype).

    Parameters
    ----------
    criterion : GPUArray, scalar or array_like
        Real values (bool, integers, floats) compared with 0; NaN is not
        positive.
    then_, else_ : GPUArray, scalar or array_like
        The values taken where ``criterion`` is positive and where it is
        not; their dtypes promote as numpy's.
    out : GPUArray, optional
        Receives the result: of the broadcast shape; the result dtype must
        cast to its dtype under ``same_kind``.
    stream : gpuarr.driver.Stream, optional
        The stream the kernel is launched on (PyCUDA's); default the legacy
        default stream.

    Returns
    -------
    GPUArray
        ``out`` if given, else a new array of the broadcast shape and the
        promotion of ``then_`` and ``else_``.

    Raises
    ------
    TypeError
        For a complex ``criterion``, or an ``out`` the result cannot be cast
        to.
    ValueError
        If the shapes do not broadcast together.
    """
    return apply("if_positive", (criterion, then_, else_), out, stream)


# run on the arrays' device (issue 16): apply, binop and same_binary ask
# inline (hot paths); where, if_positive, inplace and the ufunc objects go
# through apply; apply_outputs alone needs the wrapper
_placement.route(globals(), names=("apply_outputs",))
