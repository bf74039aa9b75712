"""numpy's rearranging functions that make new arrays (layer 5): ``tile``,
``repeat``, ``roll``, ``diag``, ``diagflat``, ``tril``, ``triu``,
``trace``, ``meshgrid`` and ``indices`` (``pad`` and ``copyto``, which
use the helpers here, are in :mod:`gpuarr._padding`).

numpy 2's signatures, results, dtypes and exceptions (checked before any
launch).  Most take one launch:

* ``tile`` and a ``repeat`` by one count copy a broadcast view of the
  input (stride 0 on the new axes) into the result: the ``copy`` kernel;
* ``roll``, dense ``indices`` and ``meshgrid(copy=True)`` copy their
  pieces with one launch of the joining kernel
  (:mod:`gpuarr._joinkernels`);
* ``repeat`` by per-element counts, ``tril`` and ``triu`` (and ``pad``)
  run the gather kernel (:mod:`gpuarr._gatherkernels`, :func:`gather`),
  whose per-axis tables of source coordinates numpy computes on the host;
* ``diag`` of a 1-d array zeroes the result and copies into its diagonal;
  ``trace`` sums a diagonal view (:func:`gpuarr.reductions.sum`).

Everything runs on the legacy default stream; the tables the kernels read
are temporaries the stream orders before any later reuse.
"""

import itertools
import math
import operator

import numpy as np

from . import _placement
from . import _creation, _dtypes, _layout, _transfer
from . import _gatherkernels as _gk
from . import _joinkernels as _jk
from . import _manipulation as _manip
from . import reductions as _red
from ._array import GPUArray

__all__ = ["tile", "repeat", "roll", "diag", "diagflat", "tril", "triu",
           "trace", "meshgrid", "indices", "gather", "item_strides",
           "strided"]

_I64 = np.dtype(np.int64)
_INTP = np.dtype(np.intp)


# ---------------------------------------------------------------------------
# helpers

def item_strides(a):
    """``(a, strides in items)`` for a gather: ``a`` itself, or a
    C-contiguous copy when its address or strides do not suit raw units of
    its item size (a view at an odd offset of another dtype's data).

    Returns
    -------
    (GPUArray, tuple of int)
    """
    isz = a.dtype.itemsize
    if a.size and (a.ptr % min(isz, 8)
                   or any(s % isz for s in a.strides)):
        a = a.copy()
    return a, tuple(s // isz for s in a.strides)


def gather(src, shape, axes, tri=0, k=0, consts=None):
    """A new C-contiguous array of ``shape`` and ``src``'s dtype written by
    one launch of the gather kernel.

    Parameters
    ----------
    src : GPUArray
        From :func:`item_strides`.
    shape : sequence of int
        The result's shape.
    axes : list of gpuarr._gatherkernels.Axis
        One per axis of the result, strides in items of ``src``.
    tri, k : int
        tril/triu (:data:`gpuarr._gatherkernels.TRIL`, ``TRIU``) and the
        diagonal.
    consts : numpy.ndarray, optional
        The constants the axes' marks name (``src``'s dtype).

    Returns
    -------
    GPUArray
    """
    out = _creation.empty_c(tuple(shape), src.dtype)
    if not out.size:
        return out
    isz = src.dtype.itemsize
    merged, table, bases = _gk.gather_plan(axes, keep=2 if tri else 0)
    cbase = table.size
    if consts is not None and len(consts):
        table = np.concatenate([table, _gk.constant_words(consts, isz)])
    spec = _gk.gather_spec(isz, merged, bases, out.size, tri, k, cbase)
    fn = _jk.function(spec)
    tab = None
    if table.size:
        tab = _creation.empty_c((table.size,), _I64)
        _jk.upload(table, tab.ptr)
    fn.prepared_async_call(_jk.gather_grid(out.size), spec.block, None,
                           src.ptr, out.ptr, 0 if tab is None else tab.ptr,
                           *spec.tail)
    return out      # the table is dropped: the legacy stream orders reuse


def _copy_pairs(pairs):
    """Copy every ``(destination view, source)`` of ``pairs`` (destinations
    of one dtype, disjoint from each other and from the sources): one
    launch of the joining kernel, or ``copy_into`` for a single pair."""
    pairs = [(d, s) for d, s in pairs if d.size]
    if not pairs:
        return
    if len(pairs) == 1:
        _transfer.copy_into(pairs[0][0], pairs[0][1])
        return
    made = _jk.copy_spec(pairs[0][0].dtype, pairs)
    if made is None:
        return
    spec, table = made
    fn = _jk.function(spec)
    tab = _creation.empty_c((table.size,), _I64)
    _jk.upload(table, tab.ptr)
    fn.prepared_async_call(_jk.join_grid(spec), spec.block, None, tab.ptr,
                           *spec.tail)


def strided(a, shape, strides):
    """A view of ``a`` of ``shape`` and byte ``strides`` (0 strides
    broadcast) at its own address."""
    return a._view(tuple(shape), tuple(strides), 0)


def _axis(axis, ndim, name):
    """numpy's normalize_axis_index with the argument's name in the
    message."""
    ax = operator.index(axis)
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim, msg_prefix=name)
    return ax % ndim


# ---------------------------------------------------------------------------
# tile, repeat, roll

def tile(A, reps):
    """Repeat ``A`` ``reps`` times along each axis (numpy.tile).

    Parameters
    ----------
    A : GPUArray or array_like
        Any shape, dtype and layout (host data is copied first).
    reps : int or sequence of int
        Repetitions per axis; when longer than ``A.ndim`` ``A`` gains
        leading length-1 axes, when shorter ``reps`` gains leading 1s.

    Returns
    -------
    GPUArray
        A new C-contiguous array of ``A``'s dtype and shape
        ``A.shape[i] * reps[i]`` (after the padding above); one launch of
        the ``copy`` kernel over a broadcast view of ``A``.

    Raises
    ------
    TypeError
        For a repetition that is not an integer.
    ValueError
        For a negative repetition.
    """
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    a = _creation.asarray(A)
    d = len(tup)
    if all(x == 1 for x in tup):
        c = _manip.with_shape(a, (1,) * (d - a.ndim) + a.shape)
        return c.copy()
    tup = tuple(operator.index(x) for x in tup)
    if any(x < 0 for x in tup):
        raise ValueError("negative dimensions are not allowed")
    c = _manip.with_shape(a, (1,) * (d - a.ndim) + a.shape)
    tup = (1,) * (c.ndim - d) + tup
    out_shape = tuple(n * r for n, r in zip(c.shape, tup))
    view_shape, view_strides = [], []
    for n, s, r in zip(c.shape, c.strides, tup):
        view_shape += [r, n]
        view_strides += [0, s]
    out = _creation.empty_c(tuple(view_shape), a.dtype)
    _transfer.copy_into(out, strided(c, view_shape, view_strides))
    return out.reshape(out_shape)


def _repeat_counts(repeats):
    """numpy's conversion of ``repeats`` to intp: arrays by the 'safe'
    rule, anything else element by element as Python's ``int``."""
    if isinstance(repeats, GPUArray):
        repeats = repeats.get()
    if isinstance(repeats, np.ndarray):
        if not np.can_cast(repeats.dtype, _INTP, "safe"):
            raise TypeError("Cannot cast array data from %r to %r according "
                            "to the rule 'safe'" % (repeats.dtype, _INTP))
        r = repeats.astype(_INTP)
    else:
        r = np.array(repeats, dtype=_INTP)
    if r.ndim > 1:
        raise ValueError("object too deep for desired array")
    return r.reshape(-1)


def repeat(a, repeats, axis=None):
    """Repeat each element of ``a`` (numpy.repeat).

    Parameters
    ----------
    a : GPUArray or array_like
        Any shape, dtype and layout.
    repeats : int or 1-d sequence of int
        One count for every element, or a count per element along
        ``axis`` (arrays must cast to intp by numpy's 'safe' rule).
    axis : int, optional
        The axis along which to repeat; None repeats the flattened array.

    Returns
    -------
    GPUArray
        A new C-contiguous array of ``a``'s dtype: one launch of the
        ``copy`` kernel over a broadcast view (one count) or of the gather
        kernel (per-element counts).

    Raises
    ------
    ValueError
        For negative counts, or counts that do not match the axis.
    TypeError
        For counts that are not integers.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    a = _creation.asarray(a)
    reps = _repeat_counts(repeats)
    if axis is None:
        a = a.ravel()
        ax = 0
    else:
        ax = _layout.normalize_axis(axis, max(a.ndim, 1))
        if a.ndim == 0:
            a = a.reshape(1)
    n = a.shape[ax]
    if reps.size != 1 and reps.size != n:
        raise ValueError("operands could not be broadcast together with "
                         "shape (%d,) (%d,)" % (n, reps.size))
    if (reps < 0).any():
        raise ValueError("repeats may not contain negative values.")
    shape, strides = list(a.shape), list(a.strides)
    if reps.size == 1:
        r = int(reps[0])
        vshape = shape[:ax + 1] + [r] + shape[ax + 1:]
        vstrides = strides[:ax + 1] + [0] + strides[ax + 1:]
        out = _creation.empty_c(tuple(vshape), a.dtype)
        _transfer.copy_into(out, strided(a, vshape, vstrides))
        return out.reshape(tuple(shape[:ax] + [n * r] + shape[ax + 1:]))
    a, est = item_strides(a)
    axes = _gk.repeat_axes(a.shape, est, ax, reps)
    return gather(a, [x.n for x in axes], axes)


def roll(a, shift, axis=None):
    """Roll elements along axes (numpy.roll): those shifted past the end
    come back at the start.

    Parameters
    ----------
    a : GPUArray or array_like
    shift : int or sequence of int
        Shifts, broadcast against ``axis`` (several for one axis add up).
    axis : int, sequence of int or None
        The axes; None rolls the flattened array and restores the shape.

    Returns
    -------
    GPUArray
        A new C-contiguous array of ``a``'s dtype: the pieces copied by one
        launch of the joining kernel.

    Raises
    ------
    ValueError
        For ``shift`` and ``axis`` that are not scalars or 1-d sequences
        broadcasting together.
    numpy.exceptions.AxisError
        For an axis out of range.
    TypeError
        For a shift that is not a number.
    """
    a = _creation.asarray(a)
    if axis is None:
        return roll(a.ravel(), shift, 0).reshape(a.shape)
    try:
        axes = (operator.index(axis),)
    except TypeError:
        axes = tuple(axis)
    axes = tuple(_layout.normalize_axis(x, a.ndim) for x in axes)
    b = np.broadcast(shift, axes)
    if b.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D "
                         "sequences")
    shifts = dict.fromkeys(range(a.ndim), 0)
    for sh, ax in b:
        shifts[ax] += int(sh)
    out = _creation.empty_c(a.shape, a.dtype)
    if not out.size:
        return out
    pieces = []
    for ax in range(a.ndim):
        n = a.shape[ax]
        s = shifts[ax] % n
        full = slice(None)
        pieces.append([(full, full)] if not s else
                      [(slice(s, None), slice(None, n - s)),
                       (slice(None, s), slice(n - s, None))])
    pairs = []
    for combo in itertools.product(*pieces):
        pairs.append((out[tuple(c[0] for c in combo)],
                      a[tuple(c[1] for c in combo)]))
    _copy_pairs(pairs)
    return out


# ---------------------------------------------------------------------------
# diagonals and triangles

def _diag_from_1d(v, k):
    n = v.shape[0] + abs(k)
    res = _creation.zeros((n, n), v.dtype)
    if v.size:
        _transfer.copy_into(_manip.diagonal(res, k), v)
    return res


def diag(v, k=0):
    """Extract a diagonal, or build a diagonal array (numpy.diag).

    Parameters
    ----------
    v : GPUArray or array_like
        1-d: the values of the ``k``-th diagonal of a new square array;
        2-d: the array whose ``k``-th diagonal is taken.
    k : int
        Above the main diagonal when positive, below when negative.

    Returns
    -------
    GPUArray
        Of ``v``'s dtype: ``(n + |k|, n + |k|)`` zeros but for the diagonal
        (from 1-d), or a 1-d copy of the diagonal (from 2-d; numpy gives a
        read-only view).

    Raises
    ------
    ValueError
        For an input that is not 1-d or 2-d.
    TypeError
        For a ``k`` that is not an integer.
    """
    v = _creation.asarray(v)
    k = operator.index(k)
    if v.ndim == 1:
        return _diag_from_1d(v, k)
    if v.ndim == 2:
        return _manip.diagonal(v, k).copy()
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    """A 2-d array with the flattened ``v`` on its ``k``-th diagonal
    (numpy.diagflat).

    Parameters
    ----------
    v : GPUArray or array_like
        Any shape (flattened in C order).
    k : int

    Returns
    -------
    GPUArray
        Of shape ``(v.size + |k|,) * 2`` and ``v``'s dtype.

    Raises
    ------
    TypeError
        For a ``k`` that is not an integer.
    """
    v = _creation.asarray(v).ravel()
    return _diag_from_1d(v, operator.index(k))


def _tri_k(k, lower):
    """The integer diagonal numpy's mask of ``tri(k=k)`` (``lower``) or
    ``~tri(k=k - 1)`` keeps, for any real ``k``."""
    try:
        kk = operator.index(k)
    except TypeError:
        if isinstance(k, (bool, str)) or not isinstance(k, (int, float,
                                                            np.number)):
            raise TypeError("bad operand type for unary -: '%s'"
                            % type(k).__name__) from None
        if isinstance(k, (complex, np.complexfloating)):
            raise TypeError("'<=' not supported between instances of "
                            "'complex' and 'int'") from None
        # numpy's tri compares with an integer arange(-k, M - k) (triu:
        # k - 1), whose step is the difference of its first two values
        # truncated: 1, or 0 for -k in (-1, 0), where the mask is all True
        t = -float(k) if lower else 1 - float(k)
        a0 = math.trunc(t)
        if math.trunc(t + 1) == a0:
            return 2 ** 62
        kk = -a0 if lower else 1 - a0
    return max(-2 ** 62, min(2 ** 62, kk))


def _tri(m, k, code):
    m = _creation.asarray(m)
    if m.ndim == 0:
        raise TypeError("tri() missing 1 required positional argument: 'N'")
    kk = _tri_k(k, code == _gk.TRIL)
    if m.ndim == 1:
        m = _manip.broadcast_to(m, (m.shape[0],) * 2)
    m, est = item_strides(m)
    return gather(m, m.shape, _gk.plain_axes(m.shape, est), code, kk)


def tril(m, k=0):
    """The lower triangle of ``m`` (numpy.tril): elements above the
    ``k``-th diagonal zeroed, over the last two axes of every leading
    index.

    Parameters
    ----------
    m : GPUArray or array_like
        At least 1-d (a 1-d ``m`` is taken as the rows of an ``(n, n)``
        array); any dtype and layout.
    k : int
        The last diagonal kept (above the main one when positive).

    Returns
    -------
    GPUArray
        A new C-contiguous array of ``m``'s dtype: one gather launch.

    Raises
    ------
    TypeError
        For a 0-d ``m`` or a ``k`` that is not a real number.
    """
    return _tri(m, k, _gk.TRIL)


def triu(m, k=0):
    """The upper triangle of ``m`` (numpy.triu): elements below the
    ``k``-th diagonal zeroed.

    Parameters
    ----------
    m : GPUArray or array_like
        As for :func:`tril`.
    k : int
        The first diagonal kept.

    Returns
    -------
    GPUArray
        As for :func:`tril`.

    Raises
    ------
    TypeError
        As for :func:`tril`.
    """
    return _tri(m, k, _gk.TRIU)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along diagonals (numpy.trace).

    Parameters
    ----------
    a : GPUArray or array_like
        At least 2-d.
    offset : int
        The diagonal (as for :func:`gpuarr.diagonal`).
    axis1, axis2 : int
        The plane of the 2-d subarrays.
    dtype : dtype-like, optional
        Accumulator and result dtype; numpy's default of ``sum``.
    out : GPUArray, optional
        Of the other axes' shape (0-d for a 2-d ``a``).

    Returns
    -------
    GPUArray
        0-d for a 2-d ``a``, else of the other axes' shape: the sum of a
        diagonal view (:func:`gpuarr.reductions.sum`).

    Raises
    ------
    ValueError
        For fewer than 2 dimensions, ``axis1 == axis2``, a wrong ``out``.
    numpy.exceptions.AxisError
        For an axis out of range (the message names it).
    TypeError
        For an ``offset`` that is not an integer, or a bad ``dtype``.
    """
    a = _creation.asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1 = _axis(axis1, a.ndim, "axis1")
    ax2 = _axis(axis2, a.ndim, "axis2")
    d = _manip.diagonal(a, offset, ax1, ax2)
    return _red.sum(d, axis=-1, dtype=dtype, out=out)


# ---------------------------------------------------------------------------
# grids

def _copies(arrs):
    """A C-contiguous copy of each array: one joining launch per dtype."""
    outs = [_creation.empty_c(a.shape, a.dtype) for a in arrs]
    by_dtype = {}
    for o, a in zip(outs, arrs):
        by_dtype.setdefault(o.dtype, []).append((o, a))
    for pairs in by_dtype.values():
        _copy_pairs(pairs)
    return outs


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors (numpy.meshgrid).

    Parameters
    ----------
    *xi : GPUArray or array_like
        N coordinate vectors (each flattened).
    copy : bool
        False: broadcast views of the inputs (writing them writes the
        inputs); True: new arrays (one joining launch per dtype).
    sparse : bool
        Shapes of length-1 axes but one instead of the full grid.
    indexing : {'xy', 'ij'}
        Cartesian ('xy': the first two axes swapped) or matrix indexing.

    Returns
    -------
    tuple of GPUArray
        One per input, of its dtype.

    Raises
    ------
    ValueError
        For another ``indexing``.
    """
    ndim = len(xi)
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    s0 = (1,) * ndim
    out = [_creation.asarray(x).reshape(s0[:i] + (-1,) + s0[i + 1:])
           for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        out[0] = out[0].reshape((1, -1) + s0[2:])
        out[1] = out[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        shape = _layout.broadcast_shapes(*[o.shape for o in out])
        out = [_manip.broadcast_to(o, shape) for o in out]
    if copy:
        out = _copies(out)
    return tuple(out)


def indices(dimensions, dtype=int, sparse=False):
    """The indices of a grid (numpy.indices).

    Parameters
    ----------
    dimensions : sequence of int
        The grid's shape.
    dtype : dtype-like
        Of the result (numpy's arange must make it: bool only up to 2).
    sparse : bool
        One array of length-1 axes but one per dimension instead.

    Returns
    -------
    GPUArray or tuple of GPUArray
        Dense: shape ``(len(dimensions),) + dimensions``, ``[i]`` holding
        the index along axis i (one joining launch); sparse: a tuple of
        views of one small array.

    Raises
    ------
    TypeError
        For dimensions that are not a sequence of integers, or a dtype
        numpy's arange refuses.
    ValueError
        For negative dimensions.
    """
    dims = tuple(dimensions)
    dims = tuple(operator.index(n) for n in dims)
    if any(n < 0 for n in dims):
        raise ValueError("negative dimensions are not allowed")
    dt = _dtypes.canonical(dtype)
    nd = len(dims)
    hosts = [np.arange(n, dtype=dt) for n in dims]
    if not sparse:
        res = _creation.empty_c((nd,) + dims, dt)
    if not nd:
        return () if sparse else res
    flat = _creation.to_gpu(np.concatenate(hosts))
    views, at = [], 0
    for i, n in enumerate(dims):
        shape = (1,) * i + (n,) + (1,) * (nd - i - 1)
        views.append(flat[at:at + n].reshape(shape))
        at += n
    if sparse:
        return tuple(views)
    if res.size:
        _copy_pairs([(res[i], _manip.broadcast_to(v, dims))
                     for i, v in enumerate(views)])
    return res


# run on the arrays' device (issue 16)
_placement.route(globals())
