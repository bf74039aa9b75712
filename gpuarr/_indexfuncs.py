"""numpy's index helpers over GPUArrays (layer 6): ``broadcast_arrays``,
``unravel_index``, ``ravel_multi_index``, ``ix_``, ``tri`` (and the
matrices built like it, ``vander``, ``identity``, and ``logspace``),
``tril_indices``, ``triu_indices`` (and their ``_from`` forms),
``diag_indices`` (and ``diag_indices_from``), ``fill_diagonal``,
``select``, ``putmask``.

Each is numpy 2's recipe out of gpuarr's ufuncs, views and selections, so
results, dtypes (indices are int64, numpy's intp) and errors are numpy's.
Range checks of index values run on the device and read back two numbers
(a minimum and a maximum) before any result is made.
"""

import operator

import numpy as np

from . import _placement
from . import _creation, _editing, _manipulation, _padding, _selection
from . import _transfer, _ufunc
from . import cumulative
from ._array import GPUArray

__all__ = ["broadcast_arrays", "unravel_index", "ravel_multi_index", "ix_",
           "tri", "vander", "identity", "logspace", "tril_indices",
           "triu_indices",
           "tril_indices_from",
           "triu_indices_from", "diag_indices", "diag_indices_from",
           "fill_diagonal", "select", "putmask"]

_I64 = np.dtype(np.int64)
_MODES = ("raise", "wrap", "clip")


def broadcast_arrays(*args, subok=False):
    """The arguments broadcast against each other (numpy.broadcast_arrays).

    Parameters
    ----------
    *args : GPUArray or array_like
    subok : bool
        Accepted for numpy's signature (there are no subclasses).

    Returns
    -------
    tuple of GPUArray
        Views of the common shape (stride 0 along broadcast axes; unlike
        numpy's, writable); every argument itself when the shapes already
        agree.

    Raises
    ------
    ValueError
        For shapes that do not broadcast (numpy's message).
    """
    arrs = [_creation.asarray(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrs])
    return tuple(a if a.shape == shape else
                 _manipulation.broadcast_to(a, shape) for a in arrs)


def _c_or_f(order):
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    return order


def _int_indices(x):
    """``x`` as an int64 device array; numpy's TypeError unless its dtype
    casts to intp under same_kind (bools and integers)."""
    if not isinstance(x, GPUArray):
        h = np.asarray(x)
        if h.size == 0 and h.dtype == np.float64 and not isinstance(
                x, np.ndarray):
            raise TypeError("indices must be integral: the provided empty "
                            "sequence was inferred as float. Wrap it with "
                            "'np.array(indices, dtype=np.intp)'")
        x = h
    if not np.can_cast(x.dtype, np.intp, "same_kind"):
        raise TypeError("only int indices permitted")
    return _creation.asarray(x, dtype=_I64)


def _extremes(a):
    """The least and greatest elements of a non-empty device array, read
    back."""
    return a.min().get().item(), a.max().get().item()


def unravel_index(indices, shape, order="C"):
    """Flat indices as tuples of coordinate arrays (numpy.unravel_index).

    Parameters
    ----------
    indices : GPUArray or array_like of int
        Flat indices into an array of ``shape`` (bools and any integer
        dtype; a host scalar gives 0-d arrays).
    shape : int or tuple of int
    order : {'C', 'F'}
        Row-major or column-major flat indices.

    Returns
    -------
    tuple of GPUArray
        ``len(shape)`` int64 arrays of ``indices``' shape.

    Raises
    ------
    TypeError
        For indices of a float or complex dtype, or a ``shape`` that is
        not integers.
    ValueError
        For an index outside ``[0, prod(shape))`` (numpy's message, with
        the first such index), or an ``order`` other than 'C' and 'F'.
    """
    dims = ((operator.index(shape),) if not isinstance(shape, (tuple, list))
            else tuple(operator.index(d) for d in shape))
    _c_or_f(order)
    idx = _int_indices(indices)
    size = 1
    for d in dims:
        size *= d
    if idx.size:
        lo, hi = _extremes(idx)
        if lo < 0 or hi >= size:
            flat = idx.ravel()
            bad = _selection.flatnonzero(_ufunc.logical_or(
                _ufunc.less(flat, 0), _ufunc.greater_equal(flat, size)))
            first = int(flat[int(bad[0].get())].get())
            raise ValueError("index %d is out of bounds for array with size "
                             "%d" % (first, size))
    out = [None] * len(dims)
    rem = idx
    axes = range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))
    for k in axes:
        d = dims[k]
        if d == 1:
            out[k] = _creation.zeros(idx.shape, _I64)
            continue
        out[k] = _ufunc.remainder(rem, d)
        rem = _ufunc.floor_divide(rem, d)
    return tuple(out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Coordinate arrays as flat indices (numpy.ravel_multi_index).

    Parameters
    ----------
    multi_index : tuple of GPUArray or array_like of int
        One integer array per dimension, broadcast together.
    dims : int or tuple of int
        The shape the coordinates index.
    mode : {'raise', 'wrap', 'clip'} or tuple of them
        What an out-of-range coordinate does, for all dimensions or one
        each: raise, wrap around, or clip to the range.
    order : {'C', 'F'}
        Row-major or column-major flat indices.

    Returns
    -------
    GPUArray
        int64 of the broadcast shape of the coordinates.

    Raises
    ------
    TypeError
        For coordinates of a float or complex dtype.
    ValueError
        For the wrong number of coordinate arrays, a coordinate out of
        range under 'raise', an empty ``dims`` product where there are
        coordinates, dims whose size overflows int64, an unknown mode or
        order (numpy's messages).
    """
    dims = ((operator.index(dims),) if not isinstance(dims, (tuple, list))
            else tuple(operator.index(d) for d in dims))
    _c_or_f(order)
    if isinstance(multi_index, GPUArray):
        multi_index = [multi_index[k] for k in range(multi_index.shape[0])] \
            if multi_index.ndim else [multi_index]
    coords = list(multi_index)
    if len(coords) != len(dims):
        raise ValueError("parameter multi_index must be a sequence of "
                         "length %d" % len(dims))
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims):
        raise ValueError("list of clipmodes has wrong length (%d instead of "
                         "%d)" % (len(modes), len(dims)))
    for m in modes:
        if m not in _MODES:
            raise ValueError("clipmode must be one of 'clip', 'raise', or "
                             "'wrap' (got %r)" % (m,))
    size = 1
    for d in dims:
        size *= max(d, 0)
    if size > np.iinfo(np.intp).max:
        raise ValueError("invalid dims: array size defined by dims is "
                         "larger than the maximum possible size.")
    coords = list(broadcast_arrays(*[_int_indices(c) for c in coords]))
    shape = coords[0].shape if coords else ()
    if coords and coords[0].size and 0 in dims:
        raise ValueError("cannot unravel if shape has zero entries (is "
                         "empty).")
    steps = [1] * len(dims)
    ks = range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))
    for k in ks:
        j = k + 1 if order == "C" else k - 1
        steps[k] = steps[j] * dims[j]
    # every range check first: nothing is computed for a bad entry
    for c, d, m in zip(coords, dims, modes):
        if c.size and m == "raise":
            lo, hi = _extremes(c)
            if lo < 0 or hi >= d:
                raise ValueError("invalid entry in coordinates array")
    res = _creation.zeros(shape, _I64)
    for c, d, m, s in zip(coords, dims, modes, steps):
        if c.size and m == "wrap":
            c = _ufunc.remainder(c, d)
        elif c.size and m == "clip":
            c = _ufunc.minimum(_ufunc.maximum(c, 0), d - 1)
        res = _ufunc.add(res, _ufunc.multiply(c, s) if s != 1 else c,
                         out=res)
    return res


def ix_(*args):
    """Open meshes of 1-d sequences, for cross-product indexing (``numpy.ix_``).

    Parameters
    ----------
    *args : GPUArray or array_like, 1-d
        Integer or bool sequences (a bool one gives its true positions).

    Returns
    -------
    tuple of GPUArray
        Argument ``k`` shaped with ``len(args)`` axes, all of length 1 but
        axis ``k`` (views, int64 for bools and empty sequences).

    Raises
    ------
    ValueError
        For an argument that is not 1-d (numpy's message).
    """
    out = []
    nd = len(args)
    for k, seq in enumerate(args):
        given = seq
        new = _creation.asarray(seq)
        if new.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if new.size == 0 and not isinstance(given, (np.ndarray, GPUArray)):
            new = new.astype(_I64)
        if new.dtype == np.bool_:
            new = _selection.flatnonzero(new)
        out.append(new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


def tri(N, M=None, k=0, dtype=float):
    """Ones at and below the ``k``-th diagonal, zeros above (numpy.tri).

    Parameters
    ----------
    N : int
        Rows.
    M : int, optional
        Columns (default ``N``).
    k : int
        The diagonal: 0 the main one, positive above it, negative below.
    dtype : dtype-like
        Of the result (default float64).

    Returns
    -------
    GPUArray
        ``(N, M)`` of ``dtype``: ``T[i, j] = j <= i + k``.
    """
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    k = operator.index(k)
    rows = _creation.arange(0, N, dtype=_I64).reshape(N, 1)
    cols = _creation.arange(-k, M - k, dtype=_I64).reshape(1, M)
    m = _ufunc.greater_equal(rows, cols)
    dt = np.dtype(dtype)
    return m if dt == np.bool_ else m.astype(dt)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a vector: its columns the powers of ``x``
    (numpy.vander).

    Parameters
    ----------
    x : GPUArray or array_like
        1-d.
    N : int, optional
        Columns (default ``len(x)``).
    increasing : bool
        Powers rising left to right (default falling, ``x**(N-1)`` first).

    Returns
    -------
    GPUArray
        ``(len(x), N)`` of ``numpy.promote_types(x.dtype, int)`` (int64
        for bool and integers, float64 for float16 and float32): the
        powers by a running product along each row, as numpy's.

    Raises
    ------
    ValueError
        For an ``x`` that is not 1-d (numpy's message).
    """
    x = _creation.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else operator.index(N)
    dt = np.promote_types(x.dtype, int)
    v = _creation.empty_c((x.shape[0], n), dt)
    powers = v if increasing else v[:, ::-1]
    if n > 0:
        powers[:, 0] = 1
    if n > 1:
        powers[:, 1:] = x.reshape(x.shape[0], 1)
        # (into a new array first: the scan does not promise to read
        # every element before it writes its output)
        powers[:, 1:] = cumulative.cumprod(powers[:, 1:], axis=1)
    return v


def identity(n, dtype=None):
    """The ``(n, n)`` identity matrix (numpy.identity).

    Parameters
    ----------
    n : int
    dtype : dtype-like, optional
        Default float64.

    Returns
    -------
    GPUArray
    """
    return _creation.eye(n, dtype=np.float64 if dtype is None else dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None,
             axis=0):
    """Numbers evenly spaced on a log scale: ``base ** linspace(start,
    stop, num)`` (numpy.logspace).

    Parameters
    ----------
    start, stop : float
        The exponents of the first and last values.
    num : int
    endpoint : bool
        Whether ``base ** stop`` is the last value.
    base : float
        A scalar (numpy's array bases are not supported).
    dtype : dtype-like, optional
        Of the result (default float64, numpy's ``power``).
    axis : int
        Only 0 (the result is 1-d).

    Returns
    -------
    GPUArray
        ``(num,)``.

    Raises
    ------
    NotImplementedError
        For array ``start``, ``stop`` or ``base``, or another ``axis``.
    """
    if any(np.ndim(v) for v in (start, stop, base)) or axis != 0:
        raise NotImplementedError("gpuarr's logspace takes scalar start, "
                                  "stop and base only (axis 0)")
    y = _ufunc.power(base, _creation.linspace(start, stop, num,
                                               endpoint=endpoint))
    return y if dtype is None or np.dtype(dtype) == y.dtype else \
        y.astype(dtype)


def tril_indices(n, k=0, m=None):
    """The row and column indices of the lower triangle of an ``(n, m)``
    array (numpy.tril_indices).

    Parameters
    ----------
    n : int
        Rows.
    k : int
        The diagonal bounding the triangle (as :func:`tri`).
    m : int, optional
        Columns (default ``n``).

    Returns
    -------
    tuple of GPUArray
        Two int64 arrays, in row-major order.
    """
    return _selection.nonzero(tri(n, m, k=k, dtype=bool))


def triu_indices(n, k=0, m=None):
    """The row and column indices of the upper triangle of an ``(n, m)``
    array (numpy.triu_indices).

    Parameters
    ----------
    n : int
        Rows.
    k : int
        The diagonal bounding the triangle: elements at and above it.
    m : int, optional
        Columns (default ``n``).

    Returns
    -------
    tuple of GPUArray
        Two int64 arrays, in row-major order.
    """
    return _selection.nonzero(_ufunc.logical_not(
        tri(n, m, k=operator.index(k) - 1, dtype=bool)))


def _two_d(arr):
    shape = arr.shape if isinstance(arr, GPUArray) else np.shape(arr)
    if len(shape) != 2:
        raise ValueError("input array must be 2-d")
    return shape


def tril_indices_from(arr, k=0):
    """:func:`tril_indices` of a 2-d array's shape
    (numpy.tril_indices_from).

    Parameters
    ----------
    arr : GPUArray
        2-d (only its shape is used).
    k : int
        The diagonal bounding the triangle.

    Returns
    -------
    tuple of GPUArray
        Two int64 arrays.

    Raises
    ------
    ValueError
        For an ``arr`` that is not 2-d.
    """
    shape = _two_d(arr)
    return tril_indices(shape[-2], k=k, m=shape[-1])


def triu_indices_from(arr, k=0):
    """:func:`triu_indices` of a 2-d array's shape
    (numpy.triu_indices_from).

    Parameters
    ----------
    arr : GPUArray
        2-d (only its shape is used).
    k : int
        The diagonal bounding the triangle.

    Returns
    -------
    tuple of GPUArray
        Two int64 arrays.

    Raises
    ------
    ValueError
        For an ``arr`` that is not 2-d.
    """
    shape = _two_d(arr)
    return triu_indices(shape[-2], k=k, m=shape[-1])


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an ``(n,) * ndim`` array
    (numpy.diag_indices).

    Parameters
    ----------
    n : int
        The length of each axis.
    ndim : int
        The number of axes.

    Returns
    -------
    tuple of GPUArray
        ``ndim`` times the same int64 array ``arange(n)``.
    """
    idx = _creation.arange(0, operator.index(n), dtype=_I64)
    return (idx,) * operator.index(ndim)


def diag_indices_from(arr):
    """:func:`diag_indices` of an array whose axes are all of one length
    (numpy.diag_indices_from).

    Parameters
    ----------
    arr : GPUArray
        At least 2-d, all axes equally long (only its shape is used).

    Returns
    -------
    tuple of GPUArray
        ``arr.ndim`` times the same int64 array.

    Raises
    ------
    ValueError
        For fewer than 2 axes or axes of different lengths (numpy's
        messages).
    """
    shape = arr.shape if isinstance(arr, GPUArray) else np.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if any(d != shape[0] for d in shape):
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def fill_diagonal(a, val, wrap=False):
    """Write ``val`` into the main diagonal, in place (numpy.fill_diagonal).

    Parameters
    ----------
    a : GPUArray
        At least 2-d; more than 2 axes must all be equally long.  Any
        layout.
    val : scalar, GPUArray or array_like
        Written along the diagonal in order, repeated as needed (numpy's
        ``a.flat`` assignment; cast unsafely to ``a``'s dtype).
    wrap : bool
        For a tall 2-d ``a``: start the diagonal again every ``M + 1`` rows
        (numpy's wrap).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        For fewer than 2 axes or, past 2, axes of different lengths.
    """
    if not isinstance(a, GPUArray):
        raise TypeError("fill_diagonal: a must be a GPUArray, not %s"
                        % type(a).__name__)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    end = a.size
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:
            end = min(end, a.shape[1] * a.shape[1])
    else:
        if any(d != a.shape[0] for d in a.shape):
            raise ValueError("All dimensions of input must be of equal "
                             "length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
    if end <= 0:
        return None
    if a.ndim == 2 and wrap and a.shape[0] > a.shape[1] + 1:
        # the diagonal starts again further down: numpy's flat positions
        pos = _creation.arange(0, end, step, dtype=_I64)
        _selection.put(a, pos, val)
        return None
    # one diagonal: a strided view of it, written in place (any layout,
    # no copy of the array)
    diag = a
    while diag.ndim > 1:
        diag = _manipulation.diagonal(diag, 0, 0, 1)
    if isinstance(val, (bool, int, float, complex, np.generic)):
        _transfer.assign(diag, val)
        return None
    vals = _creation.asarray(val).reshape(-1)
    if vals.size:
        _transfer.assign(diag, _editing.resize(vals, diag.shape))
    return None


def select(condlist, choicelist, default=0):
    """From each choice, the elements where its condition is the first to
    hold (numpy.select).

    Parameters
    ----------
    condlist : sequence of GPUArray or array_like of bool
    choicelist : sequence of GPUArray, array_like or scalar
        As many as ``condlist``; all broadcast together with it.
    default : scalar, GPUArray or array_like
        Where no condition holds.

    Returns
    -------
    GPUArray
        Of the broadcast shape and the result type of the choices and
        ``default`` (Python scalars weak, NEP 50).

    Raises
    ------
    ValueError
        For lists of different lengths or empty ones, or shapes that do not
        broadcast.
    TypeError
        For a condition that is not bool, or choices without a common
        dtype (numpy's messages).
    """
    condlist = list(condlist)
    choicelist = list(choicelist)
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of "
                         "conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not "
                         "possible")
    weak = (int, float, complex)
    choicelist = [c if type(c) in weak else _creation.asarray(c)
                  for c in choicelist]
    choicelist.append(default if type(default) in weak
                      else _creation.asarray(default))
    try:
        dtype = np.result_type(*[c.dtype if isinstance(c, GPUArray) else c
                                 for c in choicelist])
    except TypeError as e:
        raise TypeError("Choicelist and default value do not have a common "
                        "dtype: %s" % e) from None
    conds = broadcast_arrays(*condlist)
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError("invalid entry %d in condlist: should be boolean "
                            "ndarray" % i)
    choices = broadcast_arrays(*choicelist)
    shape = np.broadcast_shapes(conds[0].shape, choices[0].shape)
    result = _creation.empty_c(shape, dtype)
    _padding.copyto(result, choices[-1], casting="unsafe")
    for choice, cond in zip(choices[-2::-1], conds[::-1]):
        _padding.copyto(result, choice, casting="unsafe", where=cond)
    return result


def putmask(a, mask, values):
    """``a.flat[n] = values[n % len(values)]`` where ``mask.flat[n]``, in
    place (numpy.putmask).

    Parameters
    ----------
    a : GPUArray
        Any layout; written in place.
    mask : GPUArray or array_like
        Of ``a``'s size (its truth taken, in C order).
    values : scalar, GPUArray or array_like
        Repeated over ``a``'s positions in C order (so element ``n`` takes
        ``values[n % len(values)]``); cast unsafely to ``a``'s dtype; none
        leaves ``a`` as it was.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        For an ``a`` that is not a GPUArray.
    ValueError
        For a mask of another size (numpy's message).
    """
    if not isinstance(a, GPUArray):
        raise TypeError("putmask: first argument must be a GPUArray, not %s"
                        % type(a).__name__)
    mask = _creation.asarray(mask)
    if mask.size != a.size:
        raise ValueError("putmask: mask and data must be the same size")
    values = _creation.asarray(values)
    if values.size == 0 or a.size == 0:
        return None
    if mask.dtype != np.bool_:
        mask = mask.astype(np.bool_)
    full = _editing.resize(values, a.shape)
    _padding.copyto(a, full, casting="unsafe", where=mask.reshape(a.shape))
    return None


_placement.route(globals())
