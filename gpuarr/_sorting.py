"""Sorting and searching (layer 5): ``sort``, ``argsort``, ``partition``,
``argpartition``, ``searchsorted``, ``unique``, ``lexsort`` and the
``sort``/``argsort`` methods.

numpy's names, signatures and order (``kind='stable'``: equal elements
keep their order; NaNs last; -0.0 equal to 0.0; complex by real part then
imaginary part with numpy's NaN rules), gpuarr's own kernels
(:mod:`gpuarr._sortkernels`):

* rows of at most :data:`gpuarr._sortkernels.WARP_SORT_MAX` (1024)
  elements whose keys have at most 32 bits, a small flat array included,
  sort one warp a row in registers (a bitonic network on words of the
  key above the position: ``key << 32 | position``, or
  ``key << 16 | position`` in 32 bits for keys of at most 16 bits);
* other rows of at most :func:`gpuarr._sortkernels.block_capacity`
  elements (2048; 1024 for complex) sort one block a row in shared memory
  (a bitonic network on (key, position) pairs);
* longer ones by an LSD radix sort with 8-bit digits: a global histogram of
  every digit first (read back: passes whose digit is the same for every
  key are skipped), then one launch a pass: a stable scatter whose tiles
  find the digit counts of the tiles before them by a decoupled
  look-back.  Many long rows sort together as (row, key), the row
  being the most significant digits of a carried flat index.

The sort axis is first moved last and made contiguous (a copy); results
are new C-contiguous arrays.  Every call runs on the legacy default
stream and waits once for the global histogram (the radix path) or for
the number of unique values (``unique``).
"""

import operator

import numpy as np

from . import _placement
from . import _creation, _layout, _manipulation, _transfer
from . import _sortkernels as _sk
from . import driver as _drv
from ._array import GPUArray

__all__ = ["sort", "argsort", "partition", "argpartition", "searchsorted",
           "unique", "lexsort", "sort_complex", "method_sort",
           "method_argsort", "sort_rows"]

_I64 = np.dtype(np.int64)
_U64 = np.dtype(np.uint64)
_U32 = np.dtype(np.uint32)
_U8 = np.dtype(np.uint8)
_INT32_MAX = 2 ** 31 - 1


# ---------------------------------------------------------------------------
# helpers


def _check_kind(kind, order, stable):
    """numpy's checks of ``kind``, ``order`` and ``stable`` (every kind
    sorts stably here)."""
    if kind is not None:
        if stable is not None:
            raise ValueError("`kind` and keyword parameters can't be provided "
                             "at the same time. Use only one of them.")
        if not isinstance(kind, str):
            raise TypeError("sort kind must be str, not %s"
                            % type(kind).__name__)
        # numpy reads only the first letter (any case)
        if kind[:1].lower() not in ("q", "h", "m", "s"):
            raise ValueError("sort kind must be one of 'quick', 'heap', or "
                             "'stable' (got %r)" % (kind,))
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def _contiguous(a):
    return a if a._c else a.copy()


def _rows_view(a, axis, zero_d_as_1d):
    """``(source, rows, L, moved shape, axis)``: ``a`` with ``axis`` moved
    last as a C-contiguous array (a copy when needed); ``axis`` None
    flattens."""
    if axis is None:
        src = _contiguous(a).reshape(-1) if a.ndim != 1 else _contiguous(a)
        return src, 1, src.size, (src.size,), None
    if a.ndim == 0 and zero_d_as_1d:
        a = a.reshape(1)
    ax = _layout.normalize_axis(axis, a.ndim)
    moved = _manipulation.moveaxis(a, ax, -1) if ax != a.ndim - 1 else a
    src = _contiguous(moved)
    L = src.shape[-1]
    rows = _layout.prod(src.shape[:-1])
    return src, rows, L, src.shape, ax


def _restore(res, shape, ax, ndim):
    """A sorted (rows, L) result back to the input's axis order, C
    order."""
    res = res.reshape(shape)
    if ax is None or ax == ndim - 1:
        return res
    return _manipulation.moveaxis(res, -1, ax).copy()


def _launch(spec, grid, *args):
    _sk.function(spec).prepared_call(grid, spec.block, *args)


def _radix(src, n, rows, L, kout, vout):
    """The radix sort of ``src`` (C-contiguous, ``n = rows * L``) into
    ``kout`` (sorted elements) and ``vout`` (positions in the row), either
    None."""
    dt = src.dtype
    kp = _sk.key_passes(dt)
    rp = _sk.row_passes(rows) if rows > 1 else 0
    kv = vout is not None or rows > 1
    narrow = n <= _sk.VALUES32_LIMIT
    specs = _sk.radix_specs(dt, kv, n > _sk.STATUS32_LIMIT, narrow)
    hist = _creation.empty_c(((kp + rp) * 256,), _U64)
    _drv.memset_d8(hist.ptr, 0, hist.nbytes)
    _launch(specs["hist"], _sk.grid(n, 4), src.ptr, n, L, rp, hist.ptr)
    h = hist.get().reshape(kp + rp, 256)
    run = _sk.radix_passes(h, n, kp, rp)
    m = len(run)
    if m == 0:
        if kout is not None:
            _drv.memcpy_dtod(kout.ptr, src.ptr, src.nbytes)
        if vout is not None:
            _launch(_sk.finish_spec(), _sk.grid(n), 0, vout.ptr, n, L)
        return
    plan = _sk.radix_plan(m, kv, narrow, vout is not None)
    used = {name for step in plan for name in step[1:]}
    vfinal = None
    if "vfinal" in used:
        vfinal = vout if (vout is not None and rows == 1) else \
            _creation.empty_c((n,), _I64)
    vdt = _U32 if narrow else _I64
    bufs = {"src": src, None: None, "vfinal": vfinal,
            "kfinal": kout if kout is not None else
            _creation.empty_c((n,), dt)}
    for name in ("ktmp", "vtmp0", "vtmp1"):
        if name in used:
            bufs[name] = _creation.empty_c((n,), dt if name == "ktmp"
                                           else vdt)
    nt = _sk.ntiles(n, dt, kv)
    # one tile counter a pass, then the status words of the even passes
    # and of the odd ones: each pass zeroes the other's for the pass after
    sb = _sk.status_bytes(n, dt, kv)
    work = _creation.empty_c((256 + 2 * sb,), _U8)
    _drv.memset_d8(work.ptr, 0, 256 + sb)
    status = (work.ptr + 256, work.ptr + 256 + sb)
    for i, (p, (kernel, kin, kdst, vin, vdst)) in enumerate(zip(run, plan)):
        kin, kdst, vin, vdst = (bufs[kin], bufs[kdst], bufs[vin], bufs[vdst])
        _launch(specs[kernel], (nt, 1, 1), kin.ptr, kdst.ptr,
                vin.ptr if vin is not None else 0,
                vdst.ptr if vdst is not None else 0, hist.ptr + p * 256 * 8,
                status[i % 2], status[1 - i % 2], work.ptr + 4 * i, n, p, L)
    if vout is not None and vfinal is not vout:
        _launch(_sk.finish_spec(), _sk.grid(n), vfinal.ptr, vout.ptr, n, L)


def sort_rows(src, rows, L, want_keys=True, want_positions=False):
    """Sort each of the ``rows`` rows of ``L`` elements of ``src``.

    Parameters
    ----------
    src : GPUArray
        C-contiguous, of ``rows * L`` elements (any shape), any supported
        dtype.  Not written.
    rows, L : int
    want_keys, want_positions : bool
        Which results to make.

    Returns
    -------
    (GPUArray or None, GPUArray or None)
        The sorted elements (``src``'s dtype) and each one's position in
        its row before sorting (int64), both flat of ``rows * L``
        elements; None for a result not asked for.
    """
    n = rows * L
    kout = _creation.empty_c((n,), src.dtype) if want_keys else None
    vout = _creation.empty_c((n,), _I64) if want_positions else None
    if n == 0:
        return kout, vout
    if L <= _sk.block_capacity(src.dtype):   # warp_sort_ok implies it
        if _sk.warp_sort_ok(src.dtype, L):
            # 16 blocks an SM: more than stay resident (registers allow
            # about 16 warps), and the warps stride over the other rows
            grid, block, shared, np2 = _sk.wsort_launch(
                src.dtype, rows, L, 16 * _sk.multiprocessors())
            fn = _sk.function(_sk.wsort_spec(src.dtype, L))
        else:
            grid, block, shared, np2 = _sk.block_launch(src.dtype, rows, L)
            fn = _sk.function(_sk.block_spec(src.dtype))
        fn.prepared_call(grid, block, src.ptr,
                         kout.ptr if kout is not None else 0,
                         vout.ptr if vout is not None else 0, rows, L, np2,
                         shared_size=shared)
    else:
        _radix(src, n, rows, L, kout, vout)
    return kout, vout


# ---------------------------------------------------------------------------
# sort, argsort

def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """A sorted copy of an array (numpy.sort, always stable).

    Parameters
    ----------
    a : GPUArray or array_like
        Any shape, layout and supported dtype (bool, integers, float16/32/
        64, complex64/128).
    axis : int or None
        The axis to sort along (default the last); None sorts the
        flattened array.
    kind : {None, 'quicksort', 'mergesort', 'heapsort', 'stable'}
        Accepted as numpy does; every kind sorts stably (numpy's
        ``'stable'`` order).
    order : None
        numpy's field order; arrays here have no fields.
    stable : bool, optional
        numpy 2's keyword (not together with ``kind``).

    Returns
    -------
    GPUArray
        A new C-contiguous array of ``a``'s shape and dtype (1-d of
        ``a.size`` for ``axis=None``): NaNs last, -0.0 and 0.0 in their
        input order, complex values by numpy's order.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range (a 0-d ``a`` with an integer axis too).
    ValueError
        For an unknown ``kind``, ``kind`` with ``stable``, or ``order``.
    TypeError
        For a ``kind`` that is not a string, an unsupported dtype.
    """
    a = _creation.asarray(a)
    _check_kind(kind, order, stable)
    src, rows, L, shape, ax = _rows_view(a, axis, False)
    keys, _ = sort_rows(src, rows, L, True, False)
    return _restore(keys, shape, ax, a.ndim)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """The indices that sort an array (numpy.argsort, always stable).

    Parameters
    ----------
    a : GPUArray or array_like
        Any shape, layout and supported dtype; a 0-d array counts as 1-d
        (numpy).
    axis : int or None
        The axis to sort along (default the last); None: the flattened
        array.
    kind, order, stable
        As for :func:`sort`.

    Returns
    -------
    GPUArray
        int64 (numpy's intp), ``a``'s shape (``(a.size,)`` for ``axis=None``,
        ``(1,)`` for a 0-d ``a``): along ``axis``, the positions of the
        elements in numpy's stable order.

    Raises
    ------
    numpy.exceptions.AxisError, ValueError, TypeError
        As for :func:`sort`.
    """
    a = _creation.asarray(a)
    _check_kind(kind, order, stable)
    src, rows, L, shape, ax = _rows_view(a, axis, True)
    _, pos = sort_rows(src, rows, L, False, True)
    return _restore(pos, shape, ax, max(a.ndim, 1))


def _check_partition(a, kth, axis, kind, order):
    """numpy's checks of partition's arguments (kth against the length of
    ``axis``; a 0-d ``a`` with an integer axis fails in the sort)."""
    if kind != "introselect":
        raise ValueError("select kind must be 'introselect' (got %r)"
                         % (kind,))
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    ks = np.asarray(kth)
    if ks.dtype.kind == "b":
        raise ValueError("Booleans unacceptable as partition index")
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if axis is None:
        n = a.size
    elif a.ndim:
        n = a.shape[_layout.normalize_axis(axis, a.ndim)]
    else:
        return
    for k in ks.ravel().tolist():
        if not -n <= k < n:
            raise ValueError("kth(=%d) out of bounds (%d)"
                             % (k + n if k < 0 else k, n))


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A partitioned copy of an array (numpy.partition).

    numpy promises only that the element at each ``kth`` position is the
    one a sort would put there, smaller or equal ones before it and larger
    or equal ones after; gpuarr returns the fully sorted array (one
    stable sort along ``axis``), which keeps that promise for every
    ``kth`` at once.

    Parameters
    ----------
    a : GPUArray or array_like
    kth : int or sequence of ints
        Positions along ``axis`` (negative from the end).
    axis : int or None
        Default the last; None: the flattened array.
    kind : {'introselect'}
    order : None

    Returns
    -------
    GPUArray
        As :func:`sort`.

    Raises
    ------
    ValueError
        For a ``kth`` out of bounds (numpy's ``kth(=k) out of bounds
        (n)``), a boolean ``kth``, another ``kind``, ``order``.
    TypeError
        For a non-integer ``kth``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    a = _creation.asarray(a)
    _check_partition(a, kth, axis, kind, order)
    return sort(a, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """The indices that partition an array (numpy.argpartition): those of
    a full stable sort along ``axis`` (see :func:`partition`).

    Parameters
    ----------
    a : GPUArray or array_like
    kth : int or sequence of ints
    axis : int or None
    kind : {'introselect'}
    order : None
        As :func:`partition`.

    Returns
    -------
    GPUArray
        int64, as :func:`argsort`.

    Raises
    ------
    ValueError, TypeError, numpy.exceptions.AxisError
        As :func:`partition`.
    """
    a = _creation.asarray(a)
    _check_partition(a, kth, axis, kind, order)
    return argsort(a, axis)


def method_sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``a.sort(axis)``: sort ``a`` in place (numpy's ndarray.sort); the
    arguments as for :func:`sort`.  Returns None."""
    _check_kind(kind, order, stable)
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an "
                        "integer")
    res = sort(a, axis=axis)
    _transfer.copy_into(a, res)


def method_argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``a.argsort(axis)``: :func:`argsort` of ``a``."""
    return argsort(a, axis=axis, kind=kind, order=order, stable=stable)


# ---------------------------------------------------------------------------
# searchsorted

def searchsorted(a, v, side="left", sorter=None):
    """Where ``v``'s elements would go in a sorted ``a`` (numpy's).

    Parameters
    ----------
    a : GPUArray or array_like
        1-d, sorted ascending in numpy's order (NaNs last), or any order
        with ``sorter``.
    v : GPUArray, array_like or scalar
        Values of any shape.
    side : {'left', 'right'}
        The first suitable position (``a[i-1] < x <= a[i]``) or the last
        (``a[i-1] <= x < a[i]``).
    sorter : GPUArray or array_like of integers, optional
        1-d, ``a.size`` indices that sort ``a`` (from :func:`argsort`).

    Returns
    -------
    GPUArray
        int64 of ``v``'s shape (0-d for a scalar ``v``).  ``a`` and ``v``
        are compared in ``numpy.result_type`` of their dtypes.

    Raises
    ------
    ValueError
        For ``a`` not 1-d ("object too deep for desired array"), an
        unknown ``side``, a ``sorter`` of another size or with an index out
        of range (numpy's messages).
    TypeError
        For a ``sorter`` that is not integers or not 1-d.
    """
    if not isinstance(side, str):
        raise TypeError("search side must be str, not %s"
                        % type(side).__name__)
    if side not in ("left", "right"):
        raise ValueError("search side must be 'left' or 'right' (got %r)"
                         % (side,))
    a = _creation.asarray(a)
    if a.ndim > 1:
        raise ValueError("object too deep for desired array")
    if a.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if isinstance(v, GPUArray) or hasattr(v, "__cuda_array_interface__"):
        v = _creation.asarray(v)
        vdt = v.dtype
    else:
        v = np.asarray(v)
        vdt = v.dtype
    dt = np.result_type(a.dtype, vdt)
    srt = host = None
    if sorter is not None:
        if isinstance(sorter, GPUArray) or hasattr(
                sorter, "__cuda_array_interface__"):
            srt = _creation.asarray(sorter)
            sdt, snd, ssize = srt.dtype, srt.ndim, srt.size
        else:
            host = np.asarray(sorter)
            sdt, snd, ssize = host.dtype, host.ndim, host.size
        if sdt.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if snd != 1:
            raise TypeError("could not parse sorter argument")
        if ssize != a.size:
            raise ValueError("sorter.size must equal a.size")
    spec = _sk.search_spec(dt)          # checks dt is supported
    if sorter is not None:
        if host is None:
            host = srt.get()            # the range check, as numpy's
        if host.size and (host.min() < 0 or host.max() >= a.size):
            raise ValueError("Sorter index out of range.")
        if srt is None:
            srt = _creation.to_gpu(np.ascontiguousarray(host, _I64))
        srt = _contiguous(srt.astype(_I64) if srt.dtype != _I64 else srt)
    if not isinstance(v, GPUArray):
        v = _creation.to_gpu(np.asarray(v, dtype=dt, order="C"))
    vv = _contiguous(v.astype(dt) if v.dtype != dt else v)
    aa = _contiguous(a.astype(dt) if a.dtype != dt else a)
    out = _creation.empty_c(tuple(v.shape), _I64)
    if out.size:
        _launch(spec, _sk.grid(out.size), aa.ptr,
                srt.ptr if srt is not None else 0, aa.size, vv.ptr,
                out.size, out.ptr, 1 if side == "right" else 0)
    return out


# ---------------------------------------------------------------------------
# unique, lexsort

def unique(ar, return_index=False, return_inverse=False, return_counts=False,
           axis=None, *, equal_nan=True):
    """The sorted unique elements of an array (numpy.unique, axis=None).

    Parameters
    ----------
    ar : GPUArray or array_like
        Any shape, layout and supported dtype; flattened.
    return_index : bool
        Also return the index in the flattened ``ar`` of each unique
        value's first occurrence.
    return_inverse : bool
        Also return, for each element of ``ar``, the index of its value in
        the unique values (of ``ar``'s shape, numpy 2).
    return_counts : bool
        Also return how many times each unique value occurs.
    axis : None
        Only None (the flattened array) is supported.
    equal_nan : bool
        Whether all NaNs count as one value (numpy's default; for complex,
        every value with a NaN part).

    Returns
    -------
    GPUArray or tuple of GPUArray
        The unique values (1-d, ``ar``'s dtype; of equal values such as
        -0.0 and 0.0 the first in stable order), then, as asked, index
        (int64), inverse (int64, ``ar``'s shape) and counts (int64).

    Raises
    ------
    NotImplementedError
        For an ``axis`` other than None.
    TypeError
        For an unsupported dtype.

    Notes
    -----
    Integers and bools of at least ``_sortkernels.DENSE_MIN`` elements,
    without ``return_index``, whose values span at most
    ``_sortkernels.DENSE_SPAN`` times as many values as there are
    elements, are not sorted: a bitmap of the span marks the values
    present and each is written at its rank (the span is found by one
    pass over the elements first; a wider one then sorts).  The others
    take an LSD radix sort, then a compaction of its runs.
    """
    if axis is not None:
        raise NotImplementedError("unique: axis=%r is not supported (only "
                                  "axis=None)" % (axis,))
    ar = _creation.asarray(ar)
    flat, _, n, _, _ = _rows_view(ar, None, False)
    dt = flat.dtype
    if not return_index and _sk.dense_ok(dt, n):
        res = _unique_dense(flat, n, return_inverse, return_counts)
        if res is not None:
            if return_inverse:
                res[1] = res[1].reshape(ar.shape)
            return res[0] if len(res) == 1 else tuple(res)
    need_perm = return_index or return_inverse
    s, perm = sort_rows(flat, 1, n, True, need_perm)
    if not (need_perm or return_counts) and n and s.ptr % 16 == 0:
        return _unique_runs(s, n, equal_nan)
    # the run starts as bytes, their running count in 4 bytes where n
    # allows (a quarter of int64's traffic through the scan)
    cdt = np.dtype(np.int32) if n <= _INT32_MAX else _I64
    mask_spec = _sk.mask_spec(dt)
    compact_spec = _sk.compact_spec(dt, cdt == _I64)
    nu = 0
    if n:
        flags = _creation.empty_c((n,), _U8)
        _launch(mask_spec, _sk.grid(n), s.ptr, flags.ptr, n,
                1 if equal_nan else 0)
        from . import cumulative
        csum = cumulative.cumsum(flags, dtype=cdt)
        last = np.empty(1, cdt)
        _drv.memcpy_dtoh(last, csum.ptr + (n - 1) * cdt.itemsize)
        nu = int(last[0])
    uniq = _creation.empty_c((nu,), dt)
    index = _creation.empty_c((nu,), _I64) if return_index else None
    inverse = _creation.empty_c((n,), _I64) if return_inverse else None
    starts = _creation.empty_c((nu,), _I64) if return_counts else None
    ends = _creation.empty_c((nu,), _I64) if return_counts else None
    if n:
        def p(x):
            return x.ptr if x is not None and x.size else 0
        _launch(compact_spec, _sk.grid(n), s.ptr, p(perm), csum.ptr, n,
                p(uniq), p(index), p(inverse), p(starts), p(ends))
    res = [uniq]
    if return_index:
        res.append(index)
    if return_inverse:
        res.append(inverse.reshape(ar.shape))
    if return_counts:
        res.append(ends - starts if nu else _creation.empty_c((0,), _I64))
    return res[0] if len(res) == 1 else tuple(res)


def _unique_runs(s, n, equal_nan):
    """The first element of each run of equal values of the sorted ``s``
    (``n`` > 0 elements, 16-byte aligned), in order: the run starts
    counted a tile, the counts' inclusive sum, then each tile's starts
    staged and stored (two reads of ``s``, where the flags, their scan and
    the compaction moved about twice as many bytes)."""
    specs = _sk.run_specs(s.dtype)
    nt = _sk.run_tiles(s.dtype, n)
    eq = 1 if equal_nan else 0
    counts = _creation.empty_c((nt,), _I64)
    _launch(specs["runcount"], (nt, 1, 1), s.ptr, n, eq, counts.ptr)
    from . import cumulative
    cs = cumulative.cumsum(counts)
    last = np.empty(1, _I64)
    _drv.memcpy_dtoh(last, cs.ptr + (nt - 1) * 8)
    uniq = _creation.empty_c((int(last[0]),), s.dtype)
    _launch(specs["runselect"], (nt, 1, 1), s.ptr, n, eq, cs.ptr, uniq.ptr)
    return uniq


def _unique_dense(flat, n, want_inverse, want_counts):
    """unique of ``n`` integers or bools (``flat``, C-contiguous) by a
    bitmap of their keys' range, when that range spans at most
    ``DENSE_SPAN * n`` values: ``[values, inverse?, counts?]`` as
    :func:`unique` returns them (the inverse flat), or None (the range is
    wider: seen in a sample of the values, or found by one pass over
    them all)."""
    # a sample of about DENSE_SAMPLE values first: where its span
    # alone is too wide, the exact pass over all n is not spent
    sample = flat[::max(1, n // _sk.DENSE_SAMPLE)].get().astype(object)
    if int(sample.max()) - int(sample.min()) + 1 > _sk.DENSE_SPAN * n:
        return None
    specs = _sk.dense_specs(flat.dtype)
    grid = _sk.grid(n)
    mm = _creation.empty_c((2,), _U64)
    _drv.memset_d8(mm.ptr, 0xFF, 8)
    _drv.memset_d8(mm.ptr + 8, 0, 8)
    _launch(specs["minmax"], grid, flat.ptr, n, mm.ptr)
    lo, hi = (int(k) for k in mm.get())
    span = hi - lo + 1
    if span > _sk.DENSE_SPAN * n:
        return None
    nwords = -(-span // 32)
    wide = span > _INT32_MAX
    if wide:
        specs = _sk.dense_specs(flat.dtype, wide=True)
    cdt = _I64 if wide else np.dtype(np.int32)
    bitmap = _creation.empty_c((nwords,), _U32)
    counts = None
    if want_counts:
        counts = _creation.empty_c((span,), _U32)
        _drv.memset_d8(counts.ptr, 0, counts.nbytes)
    else:
        _drv.memset_d8(bitmap.ptr, 0, bitmap.nbytes)
    cptr = counts.ptr if counts is not None else 0
    _launch(specs["mark"], grid, flat.ptr, n, lo,
            0 if counts is not None else bitmap.ptr, cptr)
    pc = _creation.empty_c((nwords,), np.dtype(np.int32))
    _launch(specs["words"], _sk.grid(nwords * 32), bitmap.ptr, cptr, nwords,
            span, pc.ptr)
    from . import cumulative
    csum = cumulative.cumsum(pc, dtype=cdt)
    last = np.empty(1, cdt)
    _drv.memcpy_dtoh(last, csum.ptr + (nwords - 1) * cdt.itemsize)
    nu = int(last[0])
    uniq = _creation.empty_c((nu,), flat.dtype)
    cout = _creation.empty_c((nu,), _I64) if want_counts else None
    _launch(specs["emit"], _sk.grid(span), bitmap.ptr, csum.ptr, span, lo,
            uniq.ptr, cptr, cout.ptr if cout is not None else 0)
    res = [uniq]
    if want_inverse:
        inverse = _creation.empty_c((n,), _I64)
        _launch(specs["inverse"], grid, flat.ptr, n, lo, bitmap.ptr,
                csum.ptr, inverse.ptr)
        res.append(inverse)
    if want_counts:
        res.append(cout)
    return res


def sort_complex(a):
    """A copy sorted along the last axis, real part first, then imaginary
    part, as complex (numpy.sort_complex).

    Parameters
    ----------
    a : GPUArray or array_like

    Returns
    -------
    GPUArray
        ``a``'s shape; ``a``'s complex dtype, complex64 for 8- and 16-bit
        integers, complex128 for the others (numpy's choice).
    """
    b = sort(a, axis=-1)
    if b.dtype.kind == "c":
        return b
    return b.astype(np.complex64 if b.dtype.char in "bhBH"
                    else np.complex128)


def lexsort(keys, axis=-1):
    """The indices sorting by several keys, the last one primary
    (numpy.lexsort, stable).

    Parameters
    ----------
    keys : sequence of GPUArray or array_like, or a GPUArray
        Keys of one shape (a 2-d or more array: its first axis indexes the
        keys), each of any supported dtype.
    axis : int
        The axis to sort along (default the last).

    Returns
    -------
    GPUArray
        int64 of the keys' shape.

    Raises
    ------
    TypeError
        For no keys.
    ValueError
        For keys of different shapes.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    axis = operator.index(axis)        # numpy: no None here
    if isinstance(keys, GPUArray):
        ks = [keys[k] for k in range(keys.shape[0])] if keys.ndim else []
    else:
        try:
            ks = list(keys)
        except TypeError:
            ks = []
        ks = [_creation.asarray(k) for k in ks]
    if not ks:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = ks[0].shape
    if any(k.shape != shape for k in ks):
        raise ValueError("all keys need to be the same shape")
    if not shape:
        return _creation.zeros((), _I64)
    srcs = [_rows_view(k, axis, False) for k in ks]
    _, rows, L, mshape, ax = srcs[0]
    n = rows * L
    _, pos = sort_rows(srcs[0][0], rows, L, False, True)
    if len(ks) > 1 and n:
        from . import _joining
        base = None
        if rows > 1:
            base = (_creation.arange(0, n, dtype=_I64) // L) * L
        flat_pos = pos + base if base is not None else pos
        for src in srcs[1:]:
            g = _joining.take(src[0].reshape(-1), flat_pos, mode="clip")
            _, q = sort_rows(g, rows, L, False, True)
            flat_pos = _joining.take(flat_pos, q + base if base is not None
                                     else q, mode="clip")
        pos = flat_pos - base if base is not None else flat_pos
    return _restore(pos, mshape, ax, len(shape))


# run on the arrays' device (issue 16)
_placement.route(globals())
