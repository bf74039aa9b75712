"""Order statistics (layer 5): numpy's ``quantile``, ``percentile`` and
``median``, and their NaN-ignoring forms ``nanquantile``,
``nanpercentile`` and ``nanmedian``.

The data are sorted along the reduced axes (moved last and flattened, as
numpy's ``_ureduce`` does) by :func:`gpuarr._sorting.sort`; which sorted
positions a quantile reads and with which weight depends only on the
length and ``q``, so that is worked out on the host with numpy's formulas
(its ``method`` table for the five classic methods) and the device only
gathers the neighbours and interpolates, in numpy's order of operations
and dtypes (``_lerp``: ``a + (b - a) * t``, or ``b - (b - a) * (1 - t)``
for ``t >= 0.5``).  A slice holding a NaN gives NaN, as numpy.  The
median is numpy's: the mean of the middle one or two sorted values.

The NaN-ignoring forms sort the same way (NaNs last) and count each
slice's other values on the device; the positions and weights then
differ by slice, so numpy's formulas run there too, on that count, in
numpy's order of operations; an all-NaN slice gives NaN (without numpy's
warning, which would read the counts back).
"""

import numpy as np

from . import _placement
from . import _creation, _joining, _manipulation, _selection, _sorting
from . import _transfer, _ufunc, reductions
from ._array import GPUArray

__all__ = ["quantile", "percentile", "median", "nanquantile",
           "nanpercentile", "nanmedian"]

#: the methods gpuarr has, of numpy's thirteen
METHODS = ("linear", "lower", "higher", "midpoint", "nearest")
_NUMPY_METHODS = METHODS + (
    "inverted_cdf", "averaged_inverted_cdf", "closest_observation",
    "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
    "normal_unbiased")



def _upload(x, dtype=None):
    """A host array (0-d too) on the device, C-contiguous."""
    return _creation.to_gpu(np.array(x, dtype=dtype, order="C"))


def _q_valid(q):
    return bool(q.size == 0 or (q.min() >= 0 and q.max() <= 1))


def _checked_q(name, q, weights, interpolation, percent):
    """numpy's handling of ``q``: ``(q on the host, whether it is a Python
    scalar, weak)``; numpy's range error, gpuarr's for what it lacks."""
    if weights is not None or interpolation is not None:
        raise NotImplementedError("gpuarr's %s takes no weights or "
                                  "interpolation" % name)
    weak_q = type(q) in (int, float)
    qh = q.get() if isinstance(q, GPUArray) else q
    qh = np.asanyarray(np.true_divide(qh, 100) if percent else qh)
    if not _q_valid(qh):
        raise ValueError("Percentiles must be in the range [0, 100]"
                         if percent else
                         "Quantiles must be in the range [0, 1]")
    return qh, weak_q


def plan(n, q, method):
    """Where quantiles ``q`` (a host array) of ``n`` sorted values come
    from, by numpy's rules.

    Returns
    -------
    ("take", idx) or ("lerp", prev, next, gamma)
        int64 positions of ``q``'s shape (``take``: the value itself), or
        the two neighbours and the float64 weight of the later one.
    """
    if method == "lower":
        return "take", np.floor((n - 1) * q).astype(np.intp)
    if method == "higher":
        return "take", np.ceil((n - 1) * q).astype(np.intp)
    if method == "nearest":
        return "take", np.around((n - 1) * q).astype(np.intp)
    if method == "midpoint":
        vi = np.asanyarray(0.5 * (np.floor((n - 1) * q)
                                  + np.ceil((n - 1) * q)))
    else:
        vi = np.asanyarray((n - 1) * q)
        if vi.dtype.kind in "iu":
            return "take", vi.astype(np.intp)
    prev = np.array(np.floor(vi))
    nxt = np.array(prev + 1)
    above = vi >= n - 1
    prev[above] = -1
    nxt[above] = -1
    below = vi < 0
    prev[below] = 0
    nxt[below] = 0
    gamma = np.asanyarray(vi - prev)
    if method == "midpoint":
        gamma = np.where(vi % 1 == 0, 0.0, 0.5)
    gamma = np.asanyarray(gamma, dtype=vi.dtype)
    prev = prev.astype(np.intp) % n
    nxt = nxt.astype(np.intp) % n
    return "lerp", prev, nxt, gamma


def _reduced_last(a, axis):
    """``a`` with the reduced axes moved last and merged: (view, kept
    shape, reduced axes)."""
    if axis is None:
        return a.reshape(-1), (), tuple(range(a.ndim))
    axes = reductions.normalize_axes(axis, a.ndim)
    keep = [k for k in range(a.ndim) if k not in axes]
    moved = _manipulation.transpose(a, keep + list(axes))
    kshape = tuple(a.shape[k] for k in keep)
    n = 1
    for k in axes:
        n *= a.shape[k]
    return moved.reshape(kshape + (n,)), kshape, axes


def _finish(res, kshape, axes, ndim, qnd, keepdims, out):
    """numpy's keepdims shape and ``out=`` (cast as numpy's)."""
    if keepdims:
        shape = list(res.shape[:qnd])
        it = iter(kshape)
        shape += [1 if k in axes else next(it) for k in range(ndim)]
        res = res.reshape(tuple(shape))
    if out is None:
        return res
    _transfer.assign(out, res)
    return out


def _quantile(a, q, axis, out, method, keepdims, weak_q, name):
    a = _creation.asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if method not in METHODS:
        if method in _NUMPY_METHODS:
            raise NotImplementedError("gpuarr's %s has the methods %s, not "
                                      "%r" % (name, ", ".join(METHODS),
                                              method))
        raise ValueError("%r is not a valid method. Use one of: %s"
                         % (method, _NUMPY_METHODS))
    s, kshape, axes = _reduced_last(a, axis)
    n = s.shape[-1]
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0")
    s = _sorting.sort(s, axis=-1)
    plan_ = plan(n, q, method)
    qnd = q.ndim
    rest = len(kshape)

    def at(idx):
        # s[..., idx] with q's axes first (numpy's result layout)
        g = _selection.take(s, _upload(idx, np.int64), axis=-1,
                            mode="clip")
        if qnd:
            g = _manipulation.moveaxis(g, tuple(range(rest, rest + qnd)),
                                       tuple(range(qnd)))
        return g

    if plan_[0] == "take":
        res = at(plan_[1])
    else:
        _, prev, nxt, gamma = plan_
        lo, hi = at(prev), at(nxt)
        diff = _ufunc.apply("subtract", (hi, lo))
        if weak_q:
            t = float(gamma)
            one_minus = 1 - t
            high = t >= 0.5
        else:
            shape = gamma.shape + (1,) * rest
            t = _upload(gamma.reshape(shape))
            one_minus = _upload((1 - gamma).reshape(shape))
            high = _upload((gamma >= 0.5).reshape(shape))
        res = _ufunc.apply("add", (lo, _ufunc.apply("multiply", (diff, t))))
        if weak_q:
            if high:
                res = _ufunc.apply("subtract", (
                    hi, _ufunc.apply("multiply", (diff, one_minus))),
                    out=res, casting="unsafe")
        else:
            alt = _ufunc.apply("subtract", (
                hi, _ufunc.apply("multiply", (diff, one_minus))))
            res = _ufunc.where(high, alt.astype(res.dtype), res)
    if a.dtype.kind == "f":
        # a slice holding NaN sorted it last: its quantiles are that NaN
        last = s[..., -1]
        res = _ufunc.where(_ufunc.apply("isnan", (last,)),
                           last.astype(res.dtype), res)
    return _finish(res, kshape, axes, a.ndim, qnd, keepdims, out)


def quantile(a, q, axis=None, out=None, overwrite_input=False,
             method="linear", keepdims=False, *, weights=None,
             interpolation=None):
    """The ``q``-th quantiles of the data along the axes (numpy.quantile).

    Parameters
    ----------
    a : GPUArray or array_like
        Real values, any shape.
    q : float or array_like of floats
        In [0, 1]; a host value or array (its shape goes first in the
        result).  A Python float keeps a float ``a``'s dtype (numpy's weak
        promotion); an array computes in float64.
    axis : None, int or tuple of ints
        The axes reduced (None: all).
    out : GPUArray, optional
        Written with the result (cast as numpy's assignment).
    overwrite_input : bool
        Accepted; the input is never changed.
    method : {'linear', 'lower', 'higher', 'midpoint', 'nearest'}
        numpy's (the default 'linear' is Hyndman and Fan's 7th).
    keepdims : bool
    weights : None
        numpy's weights (for 'inverted_cdf' only) are not supported.
    interpolation : None
        numpy's old name of ``method``; not accepted.

    Returns
    -------
    GPUArray
        ``q.shape + `` the kept shape; float64 for integers, the data's
        dtype for floats with a scalar ``q``, a 0-d array for a scalar
        ``q`` over all axes.

    Raises
    ------
    ValueError
        For ``q`` outside [0, 1] (numpy's "Quantiles must be in the range
        [0, 1]"), an unknown method.
    TypeError
        For complex data.
    IndexError
        For an empty reduction (numpy's message).
    NotImplementedError
        For numpy's other methods, ``weights``, ``interpolation``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    qh, weak_q = _checked_q("quantile", q, weights, interpolation, False)
    return _quantile(a, qh, axis, out, method, keepdims, weak_q, "quantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False,
               method="linear", keepdims=False, *, weights=None,
               interpolation=None):
    """The ``q``-th percentiles (numpy.percentile): :func:`quantile` of
    ``q / 100``.

    Parameters
    ----------
    a : GPUArray or array_like
        Real values, any shape.
    q : float or array_like of floats
        In [0, 100] (a Python float keeps a float ``a``'s dtype).
    axis, out, overwrite_input, method, keepdims, weights, interpolation
        As :func:`quantile`.

    Returns
    -------
    GPUArray
        As :func:`quantile`.

    Raises
    ------
    ValueError
        For ``q`` outside [0, 100] (numpy's message); otherwise as
        :func:`quantile`.
    """
    qh, weak_q = _checked_q("percentile", q, weights, interpolation, True)
    return _quantile(a, qh, axis, out, method, keepdims, weak_q,
                     "percentile")


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along the axes (numpy.median): the mean of the middle
    one or two sorted values, NaN for a slice holding NaN.

    Parameters
    ----------
    a : GPUArray or array_like
    axis : None, int or tuple of ints
    out : GPUArray, optional
    overwrite_input : bool
        Accepted; the input is never changed.
    keepdims : bool

    Returns
    -------
    GPUArray
        numpy's mean dtype (float64 for integers, the float dtype
        otherwise); NaN for an empty reduction, as numpy (which warns).

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    a = _creation.asarray(a)
    s, kshape, axes = _reduced_last(a, axis)
    n = s.shape[-1]
    if n == 0:
        dt = np.mean(np.zeros(1, a.dtype)).dtype
        res = _creation.full(kshape, np.nan, dt)
        return _finish(res, kshape, axes, a.ndim, 0, keepdims, out)
    s = _sorting.sort(s, axis=-1)
    h = n // 2
    mid = s[..., h - 1:h + 1] if n % 2 == 0 else s[..., h:h + 1]
    res = reductions.mean(mid, axis=-1)
    if a.dtype.kind in "fc":
        last = s[..., -1]
        res = _ufunc.where(_ufunc.apply("isnan", (last,)),
                           last.astype(res.dtype), res)
    return _finish(res, kshape, axes, a.ndim, 0, keepdims, out)


# ---------------------------------------------------------------------------
# NaN-ignoring forms

def _empty_nan(a, kshape, axes, keepdims, out):
    """numpy's nan* of an empty array: nanmean's NaN of the kept shape
    (float64 for integers)."""
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float64)
    res = _creation.full(kshape, np.nan, dt)
    return _finish(res, kshape, axes, a.ndim, 0, keepdims, out)


def _valid_counts(s):
    """The number of values that are not NaN in each slice of the sorted
    ``s`` (along its last axis), int64 with a length-1 last axis."""
    c = _ufunc.logical_not(_ufunc.apply("isnan", (s,))).sum(axis=-1)
    return c.reshape(c.shape + (1,))


def _lerp_rows(lo, hi, gamma, weak_dt):
    """numpy's _lerp with a device ``gamma``: ``lo + (hi - lo) * t``, and
    ``hi - (hi - lo) * (1 - t)`` where ``t >= 0.5``; with ``weak_dt``
    (a Python float q) the weights are that dtype, as a Python float
    would be cast."""
    diff = _ufunc.apply("subtract", (hi, lo))
    one_minus = _ufunc.subtract(1.0, gamma)
    high = _ufunc.greater_equal(gamma, 0.5)
    if weak_dt is not None:
        gamma, one_minus = gamma.astype(weak_dt), one_minus.astype(weak_dt)
    res = _ufunc.apply("add", (lo, _ufunc.apply("multiply", (diff, gamma))))
    alt = _ufunc.apply("subtract", (
        hi, _ufunc.apply("multiply", (diff, one_minus))))
    return _ufunc.where(high, alt.astype(res.dtype), res)


def _nanquantile(a, q, axis, out, method, keepdims, weak_q, name):
    a = _creation.asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if a.size == 0:
        _, kshape, axes = _reduced_last(a, axis)
        return _empty_nan(a, kshape, axes, keepdims, out)
    if a.dtype.kind != "f":
        return _quantile(a, q, axis, out, method, keepdims, weak_q, name)
    if method not in METHODS:
        # _quantile's error for the method
        return _quantile(a, q, axis, out, method, keepdims, weak_q, name)
    s, kshape, axes = _reduced_last(a, axis)
    s = _sorting.sort(s, axis=-1)
    c = _valid_counts(s)
    qd = _upload(q.reshape(-1))
    # numpy's (n - 1) * q has a Python int n: q's dtype when it is float
    m1 = _ufunc.subtract(c, 1)
    vi = _ufunc.multiply(m1.astype(qd.dtype) if qd.dtype.kind == "f" else m1,
                         qd)
    if method in ("lower", "higher", "nearest") or (
            method == "linear" and vi.dtype.kind in "iu"):
        if vi.dtype.kind == "f":
            vi = _ufunc.apply({"lower": "floor", "higher": "ceil",
                               "nearest": "rint"}[method], (vi,))
        idx = vi.astype(np.int64)
        res = _selection.take_along_axis(
            s, _ufunc.maximum(idx, 0), axis=-1)
    else:
        if vi.dtype.kind != "f":
            vi = vi.astype(np.float64)
        if method == "midpoint":
            vi = _ufunc.multiply(0.5, _ufunc.add(
                _ufunc.apply("floor", (vi,)), _ufunc.apply("ceil", (vi,))))
        prev = _ufunc.apply("floor", (vi,))
        above = _ufunc.greater_equal(vi, _ufunc.subtract(c, 1))
        below = _ufunc.less(vi, 0)
        prev_m = _ufunc.where(above, -1.0, _ufunc.where(below, 0.0, prev))
        gamma = _ufunc.subtract(vi, prev_m)
        if method == "midpoint":
            gamma = _ufunc.where(_ufunc.equal(_ufunc.remainder(vi, 1), 0),
                                 0.0, 0.5).astype(vi.dtype)
        last = _ufunc.maximum(_ufunc.subtract(c, 1), 0)
        p_i = _ufunc.where(above, last, _ufunc.where(
            below, 0, prev.astype(np.int64)))
        n_i = _ufunc.where(above, last, _ufunc.where(
            below, 0, _ufunc.add(prev.astype(np.int64), 1)))
        lo = _selection.take_along_axis(s, p_i, axis=-1)
        hi = _selection.take_along_axis(s, n_i, axis=-1)
        res = _lerp_rows(lo, hi, gamma, a.dtype if weak_q else None)
    res = _ufunc.where(_ufunc.equal(c, 0), np.nan, res)
    res = res.reshape(kshape + q.shape)
    qnd, rest = q.ndim, len(kshape)
    if qnd:
        res = _manipulation.moveaxis(res, tuple(range(rest, rest + qnd)),
                                     tuple(range(qnd)))
    return _finish(res, kshape, axes, a.ndim, qnd, keepdims, out)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False,
                method="linear", keepdims=False, *, weights=None,
                interpolation=None):
    """The ``q``-th quantiles of the values that are not NaN, along the
    axes (numpy.nanquantile).

    Parameters
    ----------
    a : GPUArray or array_like
        Real values, any shape.
    q : float or array_like of floats
        In [0, 1], as :func:`quantile`.
    axis, out, overwrite_input, method, keepdims, weights, interpolation
        As :func:`quantile`.

    Returns
    -------
    GPUArray
        As :func:`quantile`; NaN for a slice of NaNs alone (numpy warns
        there; gpuarr reads nothing back), and, for an empty ``a``,
        numpy's ``nanmean`` of it.

    Raises
    ------
    ValueError
        For ``q`` outside [0, 1], an unknown method.
    TypeError
        For complex data.
    NotImplementedError
        For numpy's other methods, ``weights``, ``interpolation``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    qh, weak_q = _checked_q("nanquantile", q, weights, interpolation, False)
    return _nanquantile(a, qh, axis, out, method, keepdims, weak_q,
                        "nanquantile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False,
                  method="linear", keepdims=False, *, weights=None,
                  interpolation=None):
    """The ``q``-th percentiles of the values that are not NaN
    (numpy.nanpercentile): :func:`nanquantile` of ``q / 100``.

    Parameters
    ----------
    a : GPUArray or array_like
        Real values, any shape.
    q : float or array_like of floats
        In [0, 100].
    axis, out, overwrite_input, method, keepdims, weights, interpolation
        As :func:`quantile`.

    Returns
    -------
    GPUArray
        As :func:`nanquantile`.

    Raises
    ------
    ValueError
        For ``q`` outside [0, 100]; otherwise as :func:`nanquantile`.
    """
    qh, weak_q = _checked_q("nanpercentile", q, weights, interpolation,
                            True)
    return _nanquantile(a, qh, axis, out, method, keepdims, weak_q,
                        "nanpercentile")


def nanmedian(a, axis=None, out=None, overwrite_input=False,
              keepdims=False):
    """The median of the values that are not NaN, along the axes
    (numpy.nanmedian).

    Parameters
    ----------
    a : GPUArray or array_like
    axis : None, int or tuple of ints
    out : GPUArray, optional
    overwrite_input : bool
        Accepted; the input is never changed.
    keepdims : bool

    Returns
    -------
    GPUArray
        As :func:`median`: the middle value, or the mean of the middle
        two, of each slice's values that are not NaN; NaN for a slice of
        NaNs alone (numpy warns there) and for an empty ``a``.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    a = _creation.asarray(a)
    if a.dtype.kind != "f" or a.size == 0:
        if a.size == 0:
            _, kshape, axes = _reduced_last(a, axis)
            return _empty_nan(a, kshape, axes, keepdims, out)
        return median(a, axis, out, keepdims=keepdims)
    s, kshape, axes = _reduced_last(a, axis)
    s = _sorting.sort(s, axis=-1)
    c = _valid_counts(s)
    h = _ufunc.floor_divide(c, 2)
    odd = _ufunc.equal(_ufunc.remainder(c, 2), 1)
    lo_i = _ufunc.maximum(_ufunc.where(odd, h, _ufunc.subtract(h, 1)), 0)
    pair = _selection.take_along_axis(
        s, _joining.concatenate([lo_i, h], axis=-1), axis=-1)
    res = reductions.mean(pair, axis=-1)
    res = _ufunc.where(odd[..., 0], pair[..., 0].astype(res.dtype), res)
    res = _ufunc.where(_ufunc.equal(c[..., 0], 0), np.nan, res)
    return _finish(res, kshape, axes, a.ndim, 0, keepdims, out)


# run on the arrays' device (issue 16)
_placement.route(globals())
