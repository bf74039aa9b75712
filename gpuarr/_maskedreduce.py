"""numpy's ``where=`` and ``initial=`` of the reductions (layer 5).

A masked reduction is the plain reduction of ``where(mask, a, neutral)``:
one fused kernel (:func:`gpuarr.fuse`) reads ``a`` and the mask and
reduces, with no temporary array.  ``initial`` joins the result as numpy's
does: added to a sum, multiplied into a product, the extremum taken with
it; it is also the answer of an empty reduction, which numpy then allows
for ``max`` and ``min``.
"""

import numpy as np

from . import _creation, _layout, _manipulation, _transfer, _ufunc
from . import reductions as _reductions
from . import _fusion

__all__ = ["reduce_masked", "var_masked"]

_NoValue = np._NoValue
#: reduction -> (the ufunc joining ``initial``, the neutral element or None
#: when the reduction has none, numpy's ufunc name in its messages)
_RULES = {
    "sum": ("add", 0, "add"), "nansum": ("add", 0, "add"),
    "prod": ("multiply", 1, "multiply"),
    "max": ("maximum", None, "maximum"), "min": ("minimum", None, "minimum"),
    "nanmax": ("fmax", None, "fmax"), "nanmin": ("fmin", None, "fmin"),
    "any": (None, False, "logical_or"), "all": (None, True, "logical_and"),
    "mean": (None, 0, "add"),
}
_KERNELS = {}


def _kernel(name, axis, dtype, keepdims):
    """The fused ``reduce(where(mask, a, fill))`` of one reduction, axis,
    dtype and keepdims (kept: each traces once per signature)."""
    key = (name, axis, dtype, keepdims)
    f = _KERNELS.get(key)
    if f is None:
        red = getattr(_reductions, name)
        kw = {"axis": axis, "keepdims": keepdims}
        if dtype is not None:
            kw["dtype"] = dtype

        def masked(a, mask, fill):
            return red(_ufunc.where(mask, a, fill), **kw)
        f = _KERNELS[key] = _fusion.Fusion(masked, "masked_" + name)
        if len(_KERNELS) > 512:
            _KERNELS.clear()
    return f


def reduce_masked(name, a, axis, dtype, out, keepdims, initial, where):
    """The reduction ``name`` of ``a`` with numpy's ``where=`` and
    ``initial=`` (either may be ``numpy._NoValue``).

    Parameters
    ----------
    name : str
        ``sum``, ``nansum``, ``prod``, ``mean``, ``max``, ``min``,
        ``nanmax``, ``nanmin``, ``any`` or ``all``.
    a : GPUArray
    axis, dtype, out, keepdims
        As for the reduction.
    initial : scalar or numpy._NoValue
        The starting value (numpy's), converted to the result's dtype.
    where : bool array-like (GPUArray, ndarray, bool) or numpy._NoValue
        Which elements take part; broadcast to ``a``'s shape.

    Returns
    -------
    GPUArray
        ``out`` when given (the result cast to its dtype unsafely, as
        numpy's reductions do).

    Raises
    ------
    ValueError
        As numpy: ``where=`` of ``max``/``min`` without ``initial``; an
        empty ``max``/``min`` without ``initial``; shapes that do not
        broadcast.
    TypeError
        ``initial=`` of ``mean``, ``any``, ``all`` (numpy takes none).
    """
    join, neutral, uname = _RULES[name]
    if isinstance(axis, list):
        axis = tuple(axis)
    mask = True if where is _NoValue else _as_mask(where, a.shape)
    res_dt = _reductions.result_dtype(name, a.dtype, dtype)
    if initial is not _NoValue and join is None:
        raise TypeError("%s() got an unexpected keyword argument 'initial'"
                        % name)
    if neutral is None and initial is _NoValue and mask is not True:
        raise ValueError("reduction operation '%s' does not have an "
                         "identity, so to use a where mask one has to specify "
                         "'initial'" % uname)
    if initial is not _NoValue:
        init = np.asarray(initial).astype(res_dt, casting="unsafe")[()]
    else:
        init = None
    fill = init if neutral is None else neutral
    axes = _reductions.normalize_axes(axis, len(a.shape))
    n = 1
    for k in axes:
        n *= a.shape[k]
    if name == "mean":
        res = _mean(a, mask, axis, dtype, keepdims, res_dt)
    elif n == 0 or a.size == 0:
        if fill is None:
            # numpy's own error for an empty max/min without initial
            return getattr(_reductions, name)(a, axis=axis, keepdims=keepdims)
        shape = _reduced_shape(a.shape, axes, keepdims)
        res = _creation.full(shape, fill if init is None else init, res_dt)
    else:
        f = _kernel(name, axis, None if dtype is None else np.dtype(dtype),
                    keepdims)
        m = mask if mask is not True else np.True_
        res = f(a, m, _fill_value(fill, a.dtype))
        if init is not None and neutral is not None:
            _ufunc.apply(join, (res, init), out=res)
    if out is None:
        return res
    if out.shape != res.shape:
        raise ValueError("output parameter for reduction operation %s has "
                         "the wrong shape: found %s, expected %s"
                         % (uname, out.shape, res.shape))
    # numpy's reductions cast into ``out`` unsafely
    _transfer.assign(out, res)
    return out


def _as_mask(where, shape):
    """numpy's ``where=``: a Python or numpy bool as it is, else a bool
    GPUArray (host data copied once) that broadcasts to ``shape``.

    Raises
    ------
    ValueError
        When it does not broadcast to ``shape`` (numpy's rule: the mask may
        not widen the result).
    """
    if isinstance(where, (bool, np.bool_)):
        return bool(where)
    if isinstance(where, (np.ndarray, list, tuple)):
        where = _creation.to_gpu(np.asarray(where, dtype=bool))
    else:
        where = _creation.asarray(where)
    if where.dtype != np.bool_:
        where = where.astype(np.bool_)
    if _layout.broadcast_shapes(shape, where.shape, operands=True) != shape:
        raise ValueError("non-broadcastable where= mask of shape %s for an "
                         "operand of shape %s" % (where.shape, shape))
    return where


def _fill_value(fill, dt):
    """The element masked out elements take, as a value of ``a``'s dtype
    (strong, so it never changes the result dtype)."""
    return np.asarray(fill).astype(dt, casting="unsafe")[()]


def _reduced_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if k in axes else n for k, n in enumerate(shape))
    return tuple(n for k, n in enumerate(shape) if k not in axes)


def _mean(a, mask, axis, dtype, keepdims, res_dt):
    """numpy's ``mean(where=)``: the sum of the selected elements over
    their count (NaN where none is selected)."""
    ct = _reductions.mean_dtype(a.dtype, dtype)
    if mask is True:
        return _reductions.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    total = _kernel("sum", axis, ct, keepdims)(a, mask, _fill_value(0, a.dtype))
    full = _manipulation.broadcast_to(mask, a.shape)
    count = _reductions.count_nonzero(full, axis=axis, keepdims=keepdims)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = _ufunc.true_divide(total, count)
    return q if q.dtype == res_dt else q.astype(res_dt)


def _deviations(axis, keepdims, md):
    """The fused ``sum(where(mask, |a - mu|**2, 0))`` in dtype ``md``."""
    key = ("dev", axis, keepdims, md)
    f = _KERNELS.get(key)
    if f is None:
        real = np.dtype("f%d" % (md.itemsize // 2)) if md.kind == "c" else md

        def dev(a, mu, mask):
            d = a.astype(md) - mu
            sq = (d * _ufunc.apply("conjugate", (d,))).astype(real) \
                if md.kind == "c" \
                else d * d
            return _reductions.sum(_ufunc.where(mask, sq, 0), axis=axis,
                                   keepdims=keepdims)
        f = _KERNELS[key] = _fusion.Fusion(dev, "masked_deviations")
    return f


def var_masked(name, a, axis, dtype, out, ddof, keepdims, where):
    """numpy's ``var(where=)`` and ``std(where=)``: the mean of the
    selected elements, then the sum of their squared deviations over
    ``count - ddof`` (NaN or inf where that is not positive, as numpy).

    Parameters
    ----------
    name : {"var", "std"}
    a : GPUArray
    axis, dtype, out, ddof, keepdims
        As for :func:`gpuarr.var`.
    where : bool array-like
        Broadcast to ``a``'s shape.

    Returns
    -------
    GPUArray
        The real dtype numpy gives (float64 for integers).
    """
    if isinstance(axis, list):
        axis = tuple(axis)
    where = _as_mask(where, a.shape)
    res_dt = _reductions.result_dtype(name, a.dtype, dtype)
    md = _reductions.mean_dtype(a.dtype, dtype)
    if md.kind not in "fc":
        md = np.dtype("f8")
    mu = _mean(a, where, axis, md, True, md)
    full = (_manipulation.broadcast_to(where, a.shape)
            if not isinstance(where, (bool, np.bool_))
            else _creation.full(a.shape, bool(where), np.bool_))
    count = _reductions.count_nonzero(full, axis=axis, keepdims=keepdims)
    if a.size == 0:
        total = _creation.zeros(count.shape, md if md.kind != "c" else
                                np.dtype("f%d" % (md.itemsize // 2)))
    else:
        total = _deviations(axis, keepdims, md)(a, mu, where)
    dof = _ufunc.maximum(_ufunc.subtract(count, ddof), 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = _ufunc.true_divide(total, dof)
    if name == "std":
        r = _ufunc.apply("sqrt", (r,))
    if r.dtype != res_dt:
        r = r.astype(res_dt)
    if out is None:
        return r
    _transfer.assign(out, r)
    return out
