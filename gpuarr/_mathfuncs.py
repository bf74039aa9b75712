"""numpy's rounding, difference, sum and product functions over GPUArrays
(layer 6): ``around`` (``round``), ``fix``, ``nan_to_num``, ``diff``, ``ediff1d``,
``cumulative_sum``, ``cumulative_prod``, ``trapezoid``, ``cross``,
``sinc``, ``unwrap``, ``polyval``.

Each is numpy 2's recipe out of gpuarr's ufuncs, views and joins, so the
dtypes and special values are numpy's: ``around`` scales by a power of
ten, rounds half to even (``rint``) and scales back (integers through
float64, as numpy's); ``diff`` subtracts neighbouring views (``!=`` for
bool); ``cross`` forms each component as numpy does, one product and one
difference at a time, so the roundings are numpy's too.
"""

import operator

import numpy as np

from . import _placement
import warnings

from . import _creation, _joining, _manipulation, _padding, _transfer
from . import _ufunc, cumath, cumulative

__all__ = ["around", "round", "fix", "nan_to_num", "diff", "ediff1d",
           "cumulative_sum", "cumulative_prod", "trapezoid", "cross", "sinc",
           "unwrap", "polyval"]

_NoValue = np._NoValue


def around(a, decimals=0, out=None):
    """Round to ``decimals`` decimal places, halves to even (numpy.around,
    numpy.round).

    Parameters
    ----------
    a : GPUArray or array_like
        Any dtype; complex rounds both parts; integers with
        ``decimals >= 0`` are copied; bool gives float16 (``rint``) with
        ``decimals == 0`` and raises otherwise, as numpy.
    decimals : int
        Places after the point; negative rounds to tens, hundreds, ...
        (integers through float64, as numpy: exact below 2**53).
    out : GPUArray, optional
        Receives the result (of ``a``'s shape; cast under ``same_kind``).

    Returns
    -------
    GPUArray
        ``a``'s dtype (float16 for bool), or ``out``.

    Raises
    ------
    TypeError
        For a ``decimals`` that is no integer, bool with ``decimals`` other
        than 0, or an ``out`` the result cannot be cast to.
    """
    a = _creation.asarray(a)
    decimals = operator.index(decimals)
    kind = a.dtype.kind
    if kind in "iu" and decimals >= 0:
        if out is None:
            return a.copy()
        _transfer.assign(out, a)
        return out
    if kind == "c":
        res = _creation.empty_c(a.shape, a.dtype) if out is None else out
        _transfer.assign(res.real, around(a.real, decimals))
        _transfer.assign(res.imag, around(a.imag, decimals))
        return res
    if kind == "b":
        # numpy's: bool is no integer to its round, whose float path gives
        # rint's float16 at 0 decimals and, else, a float64 product or
        # quotient with no cast back to bool
        if decimals == 0:
            return cumath.rint(a, out=out)
        raise _ufunc.casting_error("multiply" if decimals > 0 else "divide",
                                   np.dtype(np.float64), a.dtype)
    x = a.astype(np.float64) if kind in "iu" else a
    if decimals >= 0:
        f = 10.0 ** decimals
        y = _ufunc.true_divide(cumath.rint(_ufunc.multiply(x, f)), f)
    else:
        f = 10.0 ** -decimals
        y = _ufunc.multiply(cumath.rint(_ufunc.true_divide(x, f)), f)
    if out is not None:
        _transfer.assign(out, y)
        return out
    return y.astype(a.dtype) if y.dtype != a.dtype else y


round = around      # numpy's name (numpy.round is numpy.around)


def fix(x, out=None):
    """Round towards zero (numpy.fix): ``ceil`` below zero, ``floor``
    elsewhere.

    Parameters
    ----------
    x : GPUArray or array_like
    out : GPUArray, optional

    Returns
    -------
    GPUArray
        ``x``'s dtype for floats and integers (numpy 2's ``floor`` and
        ``ceil`` keep integers), or ``out``.
    """
    x = _creation.asarray(x)
    res = cumath.ceil(x, out=out)
    return _ufunc.where(_ufunc.greater_equal(x, 0), cumath.floor(x), res,
                        out=res)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced by finite numbers (numpy.nan_to_num).

    Parameters
    ----------
    x : GPUArray or array_like
        Any dtype; only float and complex values change (each complex
        part on its own).
    copy : bool
        False replaces in ``x`` itself (a GPUArray) and returns it.
    nan : scalar
        The value for NaN.
    posinf, neginf : scalar, optional
        The values for +inf and -inf; default the dtype's largest and most
        negative finite values.

    Returns
    -------
    GPUArray
        ``x``'s dtype and shape: a new array, or ``x`` when ``copy`` is
        False.
    """
    x = _creation.asarray(x)
    res = x.copy() if copy else x
    kind = x.dtype.kind
    if kind not in "fc":
        return res
    parts = (res.real, res.imag) if kind == "c" else (res,)
    info = np.finfo(parts[0].dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    for p in parts:
        _ufunc.where(cumath.isnan(p), nan, p, out=p)
        _ufunc.where(cumath.isinf(p),
                     _ufunc.where(cumath.signbit(p), small, big), p, out=p)
    return res


def diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    """The ``n``-th differences along an axis (numpy.diff).

    Parameters
    ----------
    a : GPUArray or array_like
        At least 1-d.
    n : int
        How many times to difference; 0 gives ``a`` itself.
    axis : int
        The axis (negative counts from the end).
    prepend, append : scalar, GPUArray or array_like, optional
        Values joined to ``a`` along ``axis`` first (a scalar or a
        lower-dimensional value broadcast to ``a``'s other axes).

    Returns
    -------
    GPUArray
        ``a``'s shape less ``n`` along ``axis``; bool differences are
        ``!=`` (bool), others ``-`` (numpy's dtypes).

    Raises
    ------
    ValueError
        For a negative ``n`` or a 0-d ``a`` (numpy's messages).
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    n = operator.index(n)
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got %d" % n)
    a = _creation.asarray(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one "
                         "dimensional")
    axis = np.lib.array_utils.normalize_axis_index(axis, a.ndim)
    joined = []
    for v in (prepend, append):
        if v is _NoValue:
            joined.append(None)
            continue
        v = _creation.asarray(v)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            v = _manipulation.broadcast_to(v, tuple(shape))
        joined.append(v)
    if joined[0] is not None or joined[1] is not None:
        parts = [p for p in (joined[0], a, joined[1]) if p is not None]
        a = _joining.concatenate(parts, axis=axis)
    op = _ufunc.not_equal if a.dtype == np.bool_ else _ufunc.subtract
    for _ in range(n):
        hi = [slice(None)] * a.ndim
        lo = [slice(None)] * a.ndim
        hi[axis] = slice(1, None)
        lo[axis] = slice(None, -1)
        a = op(a[tuple(hi)], a[tuple(lo)])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with values joined at either
    end (numpy.ediff1d).

    Parameters
    ----------
    ary : GPUArray or array_like
    to_end, to_begin : scalar, GPUArray or array_like, optional
        Values put after and before the differences (flattened; cast to
        ``ary``'s dtype under ``same_kind``).

    Returns
    -------
    GPUArray
        1-d, ``ary``'s dtype.

    Raises
    ------
    TypeError
        For ``to_end`` or ``to_begin`` values that do not cast to
        ``ary``'s dtype under ``same_kind`` (numpy's message).
    """
    ary = _creation.asarray(ary).ravel()
    d = ary[1:] - ary[:-1]
    if d.dtype != ary.dtype:
        d = d.astype(ary.dtype)
    parts = []
    for name, v in (("to_begin", to_begin), (None, d), ("to_end", to_end)):
        if v is None:
            continue
        if name is not None:
            v = _creation.asarray(v).ravel()
            if not np.can_cast(v.dtype, ary.dtype, "same_kind"):
                raise TypeError("dtype of `%s` must be compatible with input "
                                "`ary` under the `same_kind` rule." % name)
            if v.dtype != ary.dtype:
                v = v.astype(ary.dtype)
        parts.append(v)
    return parts[0] if len(parts) == 1 else _joining.concatenate(parts)


def _cumulative(fn, identity, x, axis, dtype, out, include_initial):
    x = _manipulation.atleast_1d(_creation.asarray(x))
    if axis is None:
        if x.ndim >= 2:
            raise ValueError("For arrays which have more than one dimension "
                             "``axis`` argument is required.")
        axis = 0
    axis = np.lib.array_utils.normalize_axis_index(axis, x.ndim)
    if out is not None and include_initial:
        rest = [slice(None)] * x.ndim
        rest[axis] = slice(1, None)
        fn(x, axis=axis, dtype=dtype, out=out[tuple(rest)])
        rest[axis] = slice(0, 1)
        out[tuple(rest)] = identity
        return out
    res = fn(x, axis=axis, dtype=dtype, out=out)
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        first = _creation.full(tuple(shape), identity, dtype=res.dtype)
        res = _joining.concatenate([first, res], axis=axis)
    return res


def cumulative_sum(x, *, axis=None, dtype=None, out=None,
                   include_initial=False):
    """Running sums along an axis (numpy.cumulative_sum, the array API's).

    Parameters
    ----------
    x : GPUArray or array_like
        A 0-d ``x`` is taken as 1-d.
    axis : int, optional
        Required when ``x`` has more than one dimension.
    dtype : dtype-like, optional
        Of the sums (default numpy's: integers below the platform's widen
        to it, bool to int64).
    out : GPUArray, optional
        Receives the result (one longer along ``axis`` with
        ``include_initial``).
    include_initial : bool
        Start with the empty sum (0) along ``axis``.

    Returns
    -------
    GPUArray
        ``x``'s shape (one longer along ``axis`` with ``include_initial``),
        or ``out``.

    Raises
    ------
    ValueError
        For ``axis=None`` with more than one dimension.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    return _cumulative(cumulative.cumsum, 0, x, axis, dtype, out,
                       include_initial)


def cumulative_prod(x, *, axis=None, dtype=None, out=None,
                    include_initial=False):
    """Running products along an axis (numpy.cumulative_prod, the array
    API's).

    Parameters
    ----------
    x : GPUArray or array_like
        A 0-d ``x`` is taken as 1-d.
    axis : int, optional
        Required when ``x`` has more than one dimension.
    dtype : dtype-like, optional
        Of the products (numpy's default as for :func:`cumulative_sum`).
    out : GPUArray, optional
        Receives the result.
    include_initial : bool
        Start with the empty product (1) along ``axis``.

    Returns
    -------
    GPUArray
        ``x``'s shape (one longer along ``axis`` with ``include_initial``),
        or ``out``.

    Raises
    ------
    ValueError
        For ``axis=None`` with more than one dimension.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    return _cumulative(cumulative.cumprod, 1, x, axis, dtype, out,
                       include_initial)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` along an axis by the trapezoidal rule
    (numpy.trapezoid).

    Parameters
    ----------
    y : GPUArray or array_like
        The samples.
    x : GPUArray or array_like, optional
        Their positions: 1-d along ``axis``, or of ``y``'s shape.  Default
        evenly spaced, ``dx`` apart.
    dx : scalar
        The spacing when ``x`` is None.
    axis : int

    Returns
    -------
    GPUArray
        ``y``'s shape without ``axis`` (0-d for 1-d ``y``); numpy's dtype
        (float64 for integers, as ``/ 2.0`` gives).

    Raises
    ------
    ValueError
        For an ``x`` whose shape does not fit ``y``.
    IndexError
        For an axis out of range (numpy's).
    """
    y = _creation.asarray(y)
    if x is None:
        d = dx
    else:
        x = _creation.asarray(x)
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(tuple(shape))
        else:
            d = diff(x, axis=axis)
    hi = [slice(None)] * y.ndim
    lo = [slice(None)] * y.ndim
    hi[axis] = slice(1, None)
    lo[axis] = slice(None, -1)
    pair = _ufunc.add(y[tuple(hi)], y[tuple(lo)])
    return _ufunc.true_divide(_ufunc.multiply(d, pair), 2.0).sum(axis)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of (arrays of) 3-vectors, or of 2-vectors (numpy's
    deprecated form), along an axis (numpy.cross).

    Parameters
    ----------
    a, b : GPUArray or array_like
        Vectors of 2 or 3 components along ``axisa`` / ``axisb``, the other
        axes broadcast together.
    axisa, axisb, axisc : int
        The vectors' axis in ``a``, ``b`` and the result.
    axis : int, optional
        Sets all three.

    Returns
    -------
    GPUArray
        The promoted dtype; 3-vectors along ``axisc``, or, for two
        2-vector inputs, the z components alone.

    Raises
    ------
    ValueError
        For a 0-d input, or vectors not of 2 or 3 components (numpy's
        messages).
    numpy.exceptions.AxisError
        For an axis out of range.
    TypeError
        For bool inputs (numpy has no bool subtraction).
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _creation.asarray(a)
    b = _creation.asarray(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    norm = np.lib.array_utils.normalize_axis_index
    a = _manipulation.moveaxis(a, norm(axisa, a.ndim, "axisa"), -1)
    b = _manipulation.moveaxis(b, norm(axisb, b.ndim, "axisb"), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use "
                      "arrays of 3-dimensional vectors instead. (deprecated "
                      "in NumPy 2.0)", DeprecationWarning, stacklevel=2)
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    dt = np.promote_types(a.dtype, b.dtype)
    if dt == np.bool_:
        raise TypeError("numpy boolean subtract, the `-` operator, is not "
                        "supported, use the bitwise_xor, the `^` operator, or "
                        "the logical_xor function instead.")
    if na == 3 or nb == 3:
        shape += (3,)
        axisc = norm(axisc, len(shape), "axisc")
    a = a if a.dtype == dt else a.astype(dt)
    b = b if b.dtype == dt else b.astype(dt)
    a_ = [a[..., k] for k in range(na)]
    b_ = [b[..., k] for k in range(nb)]
    mul, sub = _ufunc.multiply, _ufunc.subtract
    cp = _creation.empty_c(shape, dt)
    if na == 2 and nb == 2:
        sub(mul(a_[0], b_[1]), mul(a_[1], b_[0]), out=cp)
        return cp
    sub(mul(a_[0], b_[1]), mul(a_[1], b_[0]), out=cp[..., 2])
    if na == 3 and nb == 3:
        sub(mul(a_[1], b_[2]), mul(a_[2], b_[1]), out=cp[..., 0])
        sub(mul(a_[2], b_[0]), mul(a_[0], b_[2]), out=cp[..., 1])
    elif na == 2:
        mul(a_[1], b_[2], out=cp[..., 0])
        _ufunc.negative(mul(a_[0], b_[2]), out=cp[..., 1])
    else:
        _ufunc.negative(mul(a_[2], b_[1]), out=cp[..., 0])
        mul(a_[2], b_[0], out=cp[..., 1])
    return _manipulation.moveaxis(cp, -1, axisc)


def sinc(x):
    """The normalized sinc, ``sin(pi x) / (pi x)`` (numpy.sinc).

    Parameters
    ----------
    x : GPUArray or array_like

    Returns
    -------
    GPUArray
        Float or complex (integers give float64): 1 at 0, as numpy, which
        divides at ``pi x`` replaced by a tiny number there.
    """
    x = _ufunc.multiply(np.pi, _creation.asarray(x))
    eps = np.finfo(x.dtype).eps if x.dtype.kind == "f" else 1e-20
    y = _ufunc.where(_ufunc.not_equal(x, 0), x, eps)
    return _ufunc.true_divide(cumath.sin(y), y)


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """Undo jumps of more than ``discont`` between neighbours by adding
    multiples of ``period`` (numpy.unwrap).

    Parameters
    ----------
    p : GPUArray or array_like
    discont : float, optional
        Jumps smaller than this are left (default ``period / 2``).
    axis : int
    period : float or int
        Default ``2 pi``; an integer period keeps integer ``p`` integer.

    Returns
    -------
    GPUArray
        ``p``'s shape, ``result_type(diff(p), period)``.

    Raises
    ------
    ValueError
        For a 0-d ``p``.
    """
    p = _creation.asarray(p)
    nd = p.ndim
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    rest = [slice(None)] * nd
    rest[axis] = slice(1, None)
    rest = tuple(rest)
    dtype = np.result_type(dd.dtype, period)
    if dtype.kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high = period / 2
        ambiguous = True
    low = -high
    ddmod = _ufunc.add(_ufunc.remainder(_ufunc.subtract(dd, low), period),
                       low)
    if ambiguous:
        _padding.copyto(ddmod, high, where=_ufunc.logical_and(
            _ufunc.equal(ddmod, low), _ufunc.greater(dd, 0)))
    correct = _ufunc.subtract(ddmod, dd)
    _padding.copyto(correct, 0, where=_ufunc.less(cumath.absolute(dd),
                                                  discont))
    up = p.astype(dtype)     # a copy, as numpy's array(p, copy=True)
    up[rest] = _ufunc.add(p[rest], cumulative.cumsum(correct, axis=axis))
    return up


def polyval(p, x):
    """A polynomial's values at ``x``, by Horner's rule (numpy.polyval).

    Parameters
    ----------
    p : GPUArray or array_like
        1-d coefficients, highest power first.
    x : GPUArray, array_like or scalar

    Returns
    -------
    GPUArray
        ``x``'s shape; the promotion of ``x``'s and ``p``'s dtypes
        (``y * x + c`` step by step, as numpy).
    """
    p = _creation.asarray(p)
    x = _creation.asarray(x)
    y = _creation.zeros_like(x)
    for k in range(p.shape[0]):
        y = _ufunc.add(_ufunc.multiply(y, x), p[k])
    return y


_placement.route(globals())
