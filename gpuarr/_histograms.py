"""Counting into bins (layer 5): numpy's ``bincount``, ``digitize`` and
``histogram``.

``histogram`` of integer or float data into at most
:data:`gpuarr._histkernels.MAX_BINS` bins counts in one pass, with the
edges and a count per bin in each block's shared memory
(:mod:`gpuarr._histkernels`), and so does ``bincount`` of integers below
that many.  Otherwise bins are
found with :func:`gpuarr._sorting.searchsorted` and counted with the
unbuffered scatter of ``add.at`` (:func:`gpuarr._indexing.ufunc_at`,
atomics on the device).  What numpy decides from a few numbers (the bin
edges of ``histogram``, the direction of ``digitize``'s bins, the length of
``bincount``'s result) is decided on the host from those numbers, by
numpy itself where it can be (``numpy.histogram_bin_edges`` of the data's
minimum and maximum), so the edges are numpy's to the last bit.

Counts are exact.  Weighted sums add in float64 in the order the atomics
land, so they agree with numpy's to rounding, not bit for bit.
"""

import numpy as np

from . import _placement
from . import _creation, _indexing, _sorting, _ufunc, reductions
from . import _histkernels as _hk
from . import _joinkernels as _jk
from ._array import GPUArray

__all__ = ["bincount", "digitize", "histogram", "histogram_bin_edges"]

_I64 = np.dtype(np.int64)
_F64 = np.dtype(np.float64)



def _host(a):
    return a.get() if isinstance(a, GPUArray) else np.asarray(a)


def _scalar(a):
    """A 0-d device array's value as a numpy scalar of its dtype."""
    return a.get()[()]


def bincount(x, weights=None, minlength=0):
    """The number of occurrences of each value in an array of non-negative
    integers (numpy.bincount).

    Parameters
    ----------
    x : GPUArray or array_like
        1-d, bool or integers, no negative values.
    weights : GPUArray or array_like, optional
        ``x``'s shape; each occurrence adds its weight instead of 1.
    minlength : int
        The least length of the result.

    Returns
    -------
    GPUArray
        int64 (float64 with ``weights``) of length
        ``max(x.max() + 1, minlength)``.

    Raises
    ------
    ValueError
        For ``x`` that is not 1-d, a negative value, a negative
        ``minlength``, ``weights`` of another length (numpy's messages).
    TypeError
        For ``x`` of another dtype kind, complex ``weights``.
    """
    x = _creation.asarray(x)
    minlength = int(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if x.ndim != 1:
        raise ValueError("object too deep for desired array")
    if x.dtype.kind not in "biu":
        raise TypeError("Cannot cast array data from %r to dtype('int64') "
                        "according to the rule 'safe'" % x.dtype)
    w = None
    if weights is not None:
        w = _creation.asarray(weights)
        if w.shape != x.shape:
            raise ValueError("The weights and list don't have the same "
                             "length.")
        if not np.can_cast(w.dtype, _F64, "safe"):
            raise TypeError("Cannot cast array data from %r to "
                            "dtype('float64') according to the rule 'safe'"
                            % w.dtype)
    out_dt = _I64 if w is None else _F64
    if x.size == 0:
        return _creation.zeros((minlength,), out_dt)
    if x.dtype.kind != "b":
        lo = _scalar(reductions.min(x))
        if lo < 0:
            raise ValueError("'list' argument must have no negative "
                             "elements")
    top = int(_scalar(reductions.max(x)))
    if top >= 2 ** 63:              # negative once numpy casts it to intp
        raise ValueError("'list' argument must have no negative elements")
    n = max(top + 1, minlength)
    if x.dtype.kind != "b" and n <= _hk.MAX_BINS:
        # the histogram of bins [k, k + 1): no value reaches the last edge
        edges = np.arange(n + 1, dtype=_I64)
        return _shared_counts(x, edges, _creation.to_gpu(edges), w, True)
    xi = x if x.dtype == _I64 else x.astype(_I64)
    out = _creation.zeros((n,), out_dt)
    vals = 1 if w is None else (w if w.dtype == _F64 else w.astype(_F64))
    _indexing.ufunc_at("add", out, xi, vals)
    return out


def _monotonicity(b):
    """numpy's test of digitize's bins on the host array ``b``: 1 rising
    (repeats allowed), -1 falling, 0 neither; the order of the first two
    different values decides, as numpy's C loop does (NaN included)."""
    n = b.size
    if n < 2:
        return 1
    diff = np.flatnonzero(~(b[1:] == b[:-1]))
    if not diff.size:
        return 1
    i = int(diff[0]) + 1
    rest_a, rest_b = b[i:n - 1], b[i + 1:]
    if b[i - 1] < b[i]:
        return 0 if np.any(rest_a > rest_b) else 1
    return 0 if np.any(rest_a < rest_b) else -1


def digitize(x, bins, right=False):
    """The index of the bin each value falls in (numpy.digitize).

    Parameters
    ----------
    x : GPUArray or array_like
        Any shape, real.
    bins : GPUArray or array_like
        1-d, rising or falling (repeats allowed).
    right : bool
        Whether a bin holds its right edge rather than its left one.

    Returns
    -------
    GPUArray
        int64 of ``x``'s shape: ``i`` with ``bins[i-1] <= x < bins[i]``
        for rising bins (``<`` and ``<=`` swapped with ``right``), the
        mirror for falling ones; 0 and ``len(bins)`` outside.

    Raises
    ------
    TypeError
        For complex ``x``.
    ValueError
        For ``bins`` that are not 1-d or not monotonic (numpy's messages).
    """
    x = _creation.asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    hb = _host(bins)
    if hb.ndim != 1:
        raise ValueError("object too deep for desired array")
    mono = _monotonicity(hb)
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or "
                         "decreasing")
    side = "left" if right else "right"
    if hb.size == 0:
        return _creation.zeros(x.shape, _I64)
    db = bins if isinstance(bins, GPUArray) else _creation.to_gpu(hb)
    if mono == 1:
        return _sorting.searchsorted(db, x, side)
    pos = _sorting.searchsorted(db[::-1], x, side)
    return _ufunc.apply("subtract", (hb.size, pos))


def _edges(a, bins, range_):
    """numpy's bin edges (host array) for data ``a`` (a device array)."""
    if isinstance(bins, str):
        raise NotImplementedError("gpuarr's histogram takes bins as a count "
                                  "or as edges, not the estimator %r"
                                  % (bins,))
    if np.ndim(bins) == 0:
        # numpy's edges depend on the data only through its extremes
        if range_ is None and a.size:
            proxy = np.array([_scalar(reductions.min(a)),
                              _scalar(reductions.max(a))], a.dtype)
        else:
            proxy = np.empty((0,), a.dtype)
        return np.histogram_bin_edges(proxy, bins, range_)
    edges = _host(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """The histogram of an array's values (numpy.histogram).

    Parameters
    ----------
    a : GPUArray or array_like
        Any shape (flattened), real.
    bins : int or 1-d array_like
        The number of equal bins over ``range``, or the edges (rising).
        numpy's estimator names ('auto', ...) are not supported.
    range : (float, float), optional
        The outer edges; default the data's minimum and maximum (numpy's
        rules: a single value spans [v - 0.5, v + 0.5]).  Values outside
        are not counted.
    density : bool, optional
        Return the probability density (each count over the bin's width
        and the total) instead of counts.
    weights : GPUArray or array_like, optional
        ``a``'s shape; each value adds its weight instead of 1.

    Returns
    -------
    hist : GPUArray
        int64 counts, ``weights``' dtype with weights, float64 with
        ``density``; one per bin.
    bin_edges : GPUArray
        ``len(hist) + 1`` edges: numpy's dtype (the data's float dtype, or
        float64).

    Raises
    ------
    ValueError
        numpy's, for a non-positive bin count, a reversed or non-finite
        range, a non-finite data range, edges that fall or are not 1-d,
        ``weights`` of another shape.
    NotImplementedError
        For an estimator name as ``bins``, complex ``weights``.
    """
    a = _creation.asarray(a).reshape(-1)
    if a.dtype.kind == "c":
        raise TypeError("histogram of complex values is not supported")
    w = None
    if weights is not None:
        w = _creation.asarray(weights).reshape(-1)
        if w.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
        if w.dtype.kind == "c":
            raise NotImplementedError("gpuarr's histogram does not take "
                                      "complex weights")
    edges = _edges(a, bins, range)
    nb = edges.size - 1
    de = _creation.to_gpu(edges)
    if _hk.shared_bins_ok(a.dtype, edges.dtype, nb):
        hist = _shared_counts(a, edges, de, w, np.ndim(bins) == 0)
        if w is not None and w.dtype != _F64:
            hist = hist.astype(w.dtype)
        if density:
            hist = _density(hist, edges)
        return hist, de
    if a.size:
        # bin i holds edges[i] <= v < edges[i + 1], the last one its right
        # edge too; values outside (and NaN) go to a spare bin nb
        # (numpy's keep: edges[0] <= v <= edges[-1], compared in the
        # promoted dtype, as searchsorted compares)
        right = _sorting.searchsorted(de, a, "right")
        inside = _ufunc.apply("logical_and", (
            _ufunc.apply("greater_equal", (right, 1)),
            _ufunc.apply("less_equal", (a, de[-1]))))
        idx = _ufunc.apply("minimum", (_ufunc.apply("subtract", (right, 1)),
                                       nb - 1))
        idx = _ufunc.where(inside, idx, nb)
    counts_dt = _I64 if w is None else _F64
    counts = _creation.zeros((nb + 1,), counts_dt)
    if a.size:
        vals = 1 if w is None else (w if w.dtype == _F64 else w.astype(_F64))
        _indexing.ufunc_at("add", counts, idx, vals)
    hist = counts[:nb]
    if w is not None and w.dtype != _F64:
        hist = hist.astype(w.dtype)
    if density:
        hist = _density(hist, edges)
    return hist, de


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The bin edges :func:`histogram` would use (numpy.histogram_bin_edges).

    Parameters
    ----------
    a : GPUArray or array_like
        Flattened; real.
    bins : int or sequence of scalars
        A count of equal bins over ``range`` (default the data's extremes,
        read back), or the edges themselves (checked as numpy).
    range : (float, float), optional
    weights : GPUArray or array_like, optional
        Of ``a``'s shape; not used for the edges (numpy's estimators,
        which would use them, are not supported).

    Returns
    -------
    GPUArray
        1-d edges of numpy's dtype (float64 for integer data, the data's
        float dtype otherwise).

    Raises
    ------
    ValueError
        As :func:`histogram` (numpy's messages).
    NotImplementedError
        For an estimator name as ``bins``.
    TypeError
        For complex data.
    """
    a = _creation.asarray(a)
    if weights is not None and _creation.asarray(weights).shape != a.shape:
        raise ValueError("weights should have the same shape as a.")
    a = a.reshape(-1)
    if a.dtype.kind == "c":
        raise TypeError("histogram of complex values is not supported")
    return _creation.to_gpu(_edges(a, bins, range))


def _density(hist, edges):
    """numpy's density: each count over its bin's width and the total."""
    width = _creation.to_gpu(np.array(np.diff(edges), float))
    return _ufunc.apply("true_divide", (
        _ufunc.apply("true_divide", (hist, width)), reductions.sum(hist)))


def _shared_counts(a, edges, de, w, equal):
    """Counts (float64 weight sums with ``w``) of the 1-d ``a`` into the
    bins of the host ``edges`` (``de`` on the device) in one launch of
    the shared-memory kernel; ``equal``: the edges are equal bins (a
    first guess by arithmetic, then the comparisons)."""
    nb = edges.size - 1
    cmp = _hk.compare_dtype(a.dtype, edges.dtype)
    ce = de if de.dtype == cmp else _creation.to_gpu(edges.astype(cmp))
    weighted = w is not None
    counts = _creation.zeros((nb,), _F64 if weighted else np.uint64)
    if a.size:
        if weighted and not (w.dtype == _F64 and w.flags.c_contiguous):
            w = w.astype(_F64)
        scale = 0.0
        if equal:
            span = float(edges[-1]) - float(edges[0])
            if span > 0 and np.isfinite(span):
                scale = nb / span
        spec = _hk.hist_spec(a.dtype, cmp, weighted)
        _jk.function(spec).prepared_async_call(
            _jk.gather_grid(a.size), spec.block, None, a.ptr, a.size,
            a.strides[0] // a.dtype.itemsize, ce.ptr, nb, scale, counts.ptr,
            w.ptr if weighted else 0,
            shared_size=_hk.shared_bytes(cmp, nb, weighted))
    return counts if weighted else counts.view(_I64)


# run on the arrays' device (issue 16)
_placement.route(globals())
