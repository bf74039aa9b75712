"""numpy's average, cov and corrcoef (layer 5).

The weighted sums are one fused kernel each (:func:`gpuarr.fuse`: the
products are never stored); the covariance's product is a cuBLAS GEMM
(:func:`gpuarr.matmul`).  numpy's algorithms and checks, step for step.
"""

import warnings

import numpy as np

from . import _placement
from . import _creation, _joining, _manipulation, _matmul, _ufunc
from . import reductions as _rs
from ._array import GPUArray
from . import _fusion

__all__ = ["average", "cov", "corrcoef"]

_WSUM = {}


def _asarray(a):
    return a if isinstance(a, GPUArray) else _creation.asarray(a)


def _weighted_sum(a, w, axes, keepdims, dt):
    """``sum(a * w)`` over ``axes`` in dtype ``dt``, one kernel."""
    key = (axes, keepdims, dt)
    f = _WSUM.get(key)
    if f is None:
        def wsum(x, y):
            return _rs.sum(x.astype(dt) * y.astype(dt), axis=axes,
                           keepdims=keepdims)
        f = _WSUM[key] = _fusion.Fusion(wsum, "weighted_sum")
    return f(a, w)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """Weighted average over the given axes (``numpy.average``).

    Parameters
    ----------
    a : GPUArray or array_like
    axis : None, int or tuple of ints
    weights : GPUArray or array_like, optional
        Of ``a``'s shape, or of the shape of ``a`` along ``axis`` (then
        broadcast along the other axes).
    returned : bool
        Also return the sum of the weights (broadcast to the result's
        shape).
    keepdims : bool

    Returns
    -------
    GPUArray, or (GPUArray, GPUArray) when ``returned``
        float64 for integer and bool ``a`` with integer weights, else
        numpy's promotion of ``a``'s and the weights' dtypes.

    Raises
    ------
    TypeError
        Weights of another shape without ``axis``.
    ValueError
        Weights whose shape does not match ``a`` along ``axis``.
    ZeroDivisionError
        Weights that sum to zero (the check reads one bool back).
    """
    a = _asarray(a)
    if weights is None:
        avg = _rs.mean(a, axis=axis, keepdims=keepdims)
        scl = np.asarray(a.size / max(avg.size, 1)).astype(avg.dtype)[()]
        if returned:
            return avg, _creation.full(avg.shape, scl, avg.dtype)
        return avg
    w = _asarray(weights)
    if a.dtype.kind in "biu":
        dt = np.result_type(a.dtype, w.dtype, np.float64)
    else:
        dt = np.result_type(a.dtype, w.dtype)
    axes = None if axis is None else _rs.normalize_axes(axis, len(a.shape))
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and "
                            "weights differ.")
        if w.shape != tuple(a.shape[k] for k in axes):
            raise ValueError("Shape of weights must be consistent with shape "
                             "of a along specified axis.")
        w = _manipulation.transpose(w, tuple(np.argsort(axes)))
        w = w.reshape(tuple(n if k in axes else 1
                            for k, n in enumerate(a.shape)))
    wb = _manipulation.broadcast_to(w, a.shape)
    scl = _rs.sum(wb, axis=axes, dtype=dt, keepdims=keepdims)
    if bool(_rs.any(_ufunc.equal(scl, 0)).get()):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = _ufunc.true_divide(_weighted_sum(a, w, axes, keepdims, dt), scl)
    if returned:
        return avg, scl
    return avg


def _weights(v, n, name, kind):
    """numpy's checks of cov's fweights/aweights; float64 on the device."""
    h = np.asarray(v.get() if isinstance(v, GPUArray) else v, dtype=float)
    if kind == "f" and not np.all(h == np.around(h)):
        raise TypeError("fweights must be integer")
    if h.ndim > 1:
        raise RuntimeError("cannot handle multidimensional %s" % name)
    if h.shape[0] != n:
        raise RuntimeError("incompatible numbers of samples and %s" % name)
    if np.any(h < 0):
        raise ValueError("%s cannot be negative" % name)
    return h


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
        aweights=None, *, dtype=None):
    """Covariance matrix (``numpy.cov``): variables in rows (``rowvar``)
    or columns, observations along the other axis.

    Parameters
    ----------
    m, y : GPUArray or array_like
        1-D or 2-D; ``y`` adds variables.
    rowvar, bias, ddof : as numpy's
    fweights, aweights : array_like, optional
        Integer frequency and real observation weights, one per observation
        (checked on the host, as numpy's).
    dtype : dtype-like, optional
        Default numpy's: at least float64.

    Returns
    -------
    GPUArray
        ``(p, p)`` for ``p`` variables, squeezed (0-d for one variable).

    Raises
    ------
    ValueError, TypeError, RuntimeError
        numpy's, for more than 2 dimensions, a non-integer ``ddof`` or bad
        weights.  A non-positive number of degrees of freedom warns
        (RuntimeWarning) and divides by 0, as numpy.
    """
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = _asarray(m)
    if len(m.shape) > 2:
        raise ValueError("m has more than 2 dimensions")
    if y is not None:
        y = _asarray(y)
        if len(y.shape) > 2:
            raise ValueError("y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m.dtype, np.float64) if y is None else \
            np.result_type(m.dtype, y.dtype, np.float64)
    dtype = np.dtype(dtype)
    X = _manipulation.atleast_2d(m).astype(dtype)
    if not rowvar and X.shape[0] != 1:
        X = X.T
    if X.shape[0] == 0:
        return _creation.empty((0, 0), dtype)
    if y is not None:
        Y = _manipulation.atleast_2d(y).astype(dtype)
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = _joining.concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = X.shape[1]
    w = ha = None
    if fweights is not None:
        w = _weights(fweights, n, "fweights", "f")
    if aweights is not None:
        ha = _weights(aweights, n, "aweights", "a")
        w = ha if w is None else w * ha
    wd = None if w is None else _creation.to_gpu(w)
    avg, w_sum = average(X, axis=1, weights=wd, returned=True)
    w_sum = float(np.asarray(w_sum[0].get()).real)
    if w is None:
        fact = n - ddof
    elif ddof == 0:
        fact = w_sum
    elif ha is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * float(np.sum(w * ha)) / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning,
                      stacklevel=2)
        fact = 0.0
    Xc = _ufunc.subtract(X, avg.reshape(avg.shape[0], 1))
    XT = Xc.T if wd is None else _ufunc.multiply(Xc, wd).T
    if dtype.kind == "c":
        XT = _ufunc.apply("conjugate", (XT,))
    c = _matmul.matmul(Xc, XT)
    with np.errstate(divide="ignore"):
        inv = np.true_divide(1, fact)
    c = _ufunc.multiply(c, np.asarray(inv).astype(dtype)[()], out=c)
    return _manipulation.squeeze(c)


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients (``numpy.corrcoef``).

    ``cov / outer(std, std)``, clipped to ``[-1, 1]`` (real and imaginary
    parts), computed from :func:`cov` (a matrix product).  numpy's
    deprecated ``bias`` and ``ddof`` are not taken (they have no effect).

    Parameters
    ----------
    x : GPUArray or array_like
        1-D or 2-D: each row a variable, each column an observation (with
        ``rowvar`` True).
    y : GPUArray or array_like, optional
        Further variables, of ``x``'s layout.
    rowvar : bool, optional
        True (default): variables in rows; False: variables in columns.
    dtype : dtype-like, optional
        The dtype computed in and of the result; default numpy's: at least
        float64 (complex128 for complex input).

    Returns
    -------
    GPUArray
        ``(p, p)`` for ``p`` variables; for one variable 0-d, ``c / c``
        (1.0, or NaN).

    Raises
    ------
    ValueError
        For inputs of more than 2 dimensions (numpy's).
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if len(c.shape) < 2:
        return _ufunc.true_divide(c, c)
    d = _manipulation.diagonal(c)
    sd = _ufunc.apply("sqrt", (d.real if c.dtype.kind == "c" else d,))
    c = _ufunc.true_divide(c, sd.reshape(sd.shape[0], 1), out=c)
    c = _ufunc.true_divide(c, sd.reshape(1, sd.shape[0]), out=c)
    if c.dtype.kind == "c":
        for part in (c.real, c.imag):
            _ufunc.apply("clip", (part, -1.0, 1.0), out=part)
    else:
        _ufunc.apply("clip", (c, -1.0, 1.0), out=c)
    return c


# run on the arrays' device (issue 16)
_placement.route(globals())
