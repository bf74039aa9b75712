"""Kernel builders of joins and gathers (layer 4).

Three kernel families, each described without a device by a
:class:`~gpuarr._kernelspec.KernelSpec` (the CPU tests render and compile
them) and compiled once per context by :func:`function`:

``joining.cu.mako`` (:func:`copy_spec`)
    One launch copies many (destination view, source) pairs of equal
    shapes, any strides (negative and 0 too): sources of the destination's
    dtype as raw units of up to 16 bytes, others cast element by element.
    The pairs are rows of a small table the caller copies to device
    memory; the grid is persistent (:func:`join_grid`).  A kernel depends
    only on the output dtype, the set of cast source dtypes, the number of
    dimensions after merging and the index width, so joins of any number
    of arrays share it.
``join_alike.cu.mako`` (:func:`alike_join_spec`)
    The usual join of many parts of one shape and dtype, C-contiguous,
    into a new array: the table holds only the parts' addresses, the
    blocks take the chunks of all parts in order.
``take.cu.mako`` (:func:`take_spec`)
    Gathers (``take``) and scatters (``put``) through an integer index
    array for up to :data:`NVEC` arrays per launch, values moved as raw
    units of their item size, out-of-range indices handled by numpy's
    ``mode``.

Like the other builders here, these take anything with ``ptr``, ``dtype``,
``shape`` and ``strides`` (bytes) and never import the array layer.
"""

import threading

import numpy as np

from . import _dtypes, _layout, _percontext
from . import driver as _drv
from ._enums import device_attribute
from ._kernelspec import KernelSpec

__all__ = ["BLOCK", "UNROLL", "NVEC", "TAKE_STREAM", "TAKE_BLOCKS_PER_SM",
           "GATHER_L2_SHARE", "copy_spec", "take_spec", "function",
           "gather_grid", "take_grid", "capped_grid", "kept", "gather_groups",
           "join_grid", "contiguous_join_spec", "alike_join_spec", "ALIKE",
           "upload", "NO_BAD", "STAGING_SLOTS", "STAGING_WORDS",
           "BLOCKS_PER_SM", "SHARED_ROWS"]

#: threads per block of both families
BLOCK = 256
#: units per thread of a joining chunk (a chunk is BLOCK * UNROLL units)
UNROLL = 4
#: blocks per multiprocessor of a joining launch (its grid is persistent)
BLOCKS_PER_SM = 8
#: joining tables of at most this many rows are searched in shared memory
SHARED_ROWS = 1024
#: joins of many parts alike go through ``join_alike.cu.mako``
#: (:func:`alike_join_spec`); False: the general kernel (for comparison)
ALIKE = True
#: arrays per launch of a take/put kernel
NVEC = 16
#: blocks per multiprocessor of a take/put launch (0: a block per BLOCK
#: indices, no loop; 2% faster than 8 a multiprocessor, looping, on an H100)
TAKE_BLOCKS_PER_SM = 0
#: whether takes and puts load their index array, and takes store their
#: output, with the streaming (evict-first) hints, so that the streams
#: read or written once do not push the gathered arrays out of L2 (4%
#: faster gathering from an L2-resident array on an H100)
TAKE_STREAM = True
#: the share of the L2 cache one take/put launch's gathered arrays fill
GATHER_L2_SHARE = 0.5
#: the "no bad index" value of a take/put kernel's flag word (all ones)
NO_BAD = (1 << 64) - 1
#: page-locked staging slots for joining tables, per context
STAGING_SLOTS = 8
#: int64 words of one staging slot (a table of up to ~180 rows of 2 dims)
STAGING_WORDS = 2048
_GRID_MAX = 2 ** 31 - 1
_FIXED = 5          # the fixed columns of a joining table row

_UNITS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
          8: "unsigned long long", 16: "ga_unit16"}
_MODES = ("raise", "wrap", "clip")
# (shape, source strides, destination strides, item sizes) -> a table
# row's size, merged shape and element strides and whether it needs 64-bit
# offsets (the same layouts recur: many equal inputs, repeated joins)
_ROWS = {}


class _State:
    """A context's kernels (by kernel key), multiprocessor count and
    staging ring (made on first use; ``lock`` guards it: threads sharing
    the context upload through one ring)."""

    __slots__ = ("kernels", "nsm", "l2", "staging", "events", "next", "lock")

    def __init__(self, nsm, l2):
        self.kernels = {}
        self.nsm = nsm
        self.l2 = l2
        self.staging = None
        self.events = [None] * STAGING_SLOTS
        self.next = 0
        self.lock = threading.Lock()


def _new_state(ctx):
    dev = ctx.get_device()
    return _State(int(dev.get_attribute(device_attribute.MULTIPROCESSOR_COUNT)),
                  int(dev.get_attribute(device_attribute.L2_CACHE_SIZE)))


_state = _percontext.state(_new_state)


def function(spec):
    """The current context's compiled kernel of ``spec``.

    Parameters
    ----------
    spec : KernelSpec
        From :func:`copy_spec` or :func:`take_spec`.

    Returns
    -------
    gpuarr.driver.Function
        Prepared with ``spec.chars``; built on first use and kept, with its
        module, in the context's state (keyed by ``spec.kkey``).
    """
    kernels = _state().kernels
    ent = kernels.get(spec.kkey)
    if ent is None:
        ent = kernels[spec.kkey] = spec.build()
    return ent[0]


def upload(table, dst, stream=None):
    """Copy ``table`` (a C-contiguous int64 numpy array) to device address
    ``dst``, ordered on ``stream``, without waiting for the work before it.

    A copy from pageable memory first waits for the stream to drain; the
    table goes instead through one of :data:`STAGING_SLOTS` page-locked
    slots of the context, whose previous copy is awaited (an event) before
    the slot is written again.  A table of more than :data:`STAGING_WORDS`
    words is copied from pageable memory.  Thread-safe: choosing a slot,
    waiting for it, writing it and queueing its copy happen under the
    context's lock, so two threads never share a slot at once.

    Parameters
    ----------
    table : numpy.ndarray
        int64, C-contiguous (a :func:`copy_spec` table).
    dst : int
        Device address of at least ``table.nbytes`` bytes.
    stream : gpuarr.driver.Stream, optional
        Default: the legacy default stream.

    Raises
    ------
    gpuarr.driver.InvalidContextError
        When no context is current.
    """
    n = table.size
    if n > STAGING_WORDS:
        if stream is None:
            _drv.memcpy_htod(dst, table)
        else:
            _drv.memcpy_htod_async(dst, table, stream)
        return
    st = _state()
    # Held until the copy is queued and its event recorded: a thread
    # coming round to the slot meanwhile would otherwise wait on the
    # event of the copy before, then overwrite the slot before this copy
    # read it.
    with st.lock:
        if st.staging is None:
            st.staging = _drv.pagelocked_empty(
                (STAGING_SLOTS, STAGING_WORDS), np.int64)
        k = st.next
        st.next = (k + 1) % STAGING_SLOTS
        ev = st.events[k]
        if ev is None:
            ev = st.events[k] = _drv.Event(2)        # DISABLE_TIMING
        else:
            ev.synchronize()
        host = st.staging[k, :n]
        host[:] = table.reshape(-1)
        _drv.memcpy_htod_async(dst, host, stream)
        ev.record(stream)


def gather_groups(nbytes):
    """Split the arrays of a take/put into launches: consecutive groups of
    at most :data:`NVEC` whose randomly accessed arrays (the sources of a
    take, the destinations of a put), ``nbytes`` each, total at most
    :data:`GATHER_L2_SHARE` of the L2 cache (half), so that each launch's
    gathers hit in L2 (one array per launch when they are larger).

    Returns
    -------
    list of (int, int)
        ``(start, stop)`` index ranges covering ``range(len(nbytes))``.
    """
    cap = int(_state().l2 * GATHER_L2_SHARE)
    groups = []
    start, total = 0, 0
    for k, b in enumerate(nbytes):
        if k > start and (k - start == NVEC or total + b > cap):
            groups.append((start, k))
            start, total = k, 0
        total += b
    if start < len(nbytes):
        groups.append((start, len(nbytes)))
    return groups


def gather_grid(n):
    """The grid of a take/put launch over ``n`` indices.

    Returns
    -------
    tuple of int
        ``(blocks, 1, 1)``: enough blocks of :data:`BLOCK` threads for
        ``n``, at most 8 per multiprocessor (the kernel loops over the
        rest).
    """
    return capped_grid(-(-n // BLOCK), 8)


def take_grid(n):
    """The grid of a take/put launch over ``n`` indices: as
    :func:`gather_grid`'s with :data:`TAKE_BLOCKS_PER_SM` blocks per
    multiprocessor at most (with 0, a block per :data:`BLOCK` indices).

    Returns
    -------
    tuple of int
        ``(blocks, 1, 1)``.
    """
    return capped_grid(-(-n // BLOCK), TAKE_BLOCKS_PER_SM)


def capped_grid(blocks, per_sm):
    """A one-dimensional grid of ``blocks`` blocks, capped.

    Parameters
    ----------
    blocks : int
        Blocks wanted (fewer than one counts as one).
    per_sm : int
        Blocks per multiprocessor of the current context's device at most
        (0: no such cap).

    Returns
    -------
    tuple of int
        ``(b, 1, 1)`` with ``1 <= b <= 2**31 - 1``.
    """
    cap = _state().nsm * per_sm or _GRID_MAX
    return (max(1, min(blocks, cap, _GRID_MAX)), 1, 1)


def _estrides(a):
    isz = a.dtype.itemsize
    st = tuple(a.strides)
    if any(s % isz for s in st):
        raise ValueError("strides %s are not a multiple of the item size %d"
                         % (st, isz))
    return tuple(s // isz for s in st)


def _raw_row(shape, sst, dst_st, isz, align):
    """A same-dtype row as raw units: (count, shape, source and
    destination strides in units, unit width), the widest unit (at most
    ``align`` bytes, the pointers' common alignment) the layout allows."""
    # the element's bytes as a last axis, merged with the rest in bytes
    mshape, (ms, md) = _layout.merge_dims(
        tuple(shape) + (isz,), [tuple(sst) + (1,), tuple(dst_st) + (1,)])
    if not mshape:
        mshape, ms, md = (1,), (0,), (0,)
    w = align
    while w > 1:
        if (mshape[-1] % w == 0 and ms[-1] == 1 and md[-1] == 1
                and all(x % w == 0 for x in ms[:-1] + md[:-1])):
            break
        w //= 2
    if w > 1:
        mshape = mshape[:-1] + (mshape[-1] // w,)
        ms = tuple(x // w for x in ms[:-1]) + (1,)
        md = tuple(x // w for x in md[:-1]) + (1,)
    n = _layout.prod(mshape)
    mshape, (ms, md) = _layout.merge_dims(mshape, [ms, md])   # 1s go
    if not mshape:
        mshape, ms, md = (1,), (0,), (0,)
    return n, mshape, ms, md, w


_EMPTY = ()


def _row(dst, src, out_dtype, align):
    """One pair's row, checked: ``(unit count, ndim, code or None for a
    cast, [shape, source strides, destination strides], 64-bit)``, or
    ``_EMPTY`` for an empty pair."""
    shape = tuple(dst.shape)
    if tuple(src.shape) != shape:
        raise ValueError("a source of shape %s for a destination of "
                         "shape %s" % (_layout.shape_str(src.shape),
                                       _layout.shape_str(shape)))
    if dst.dtype != out_dtype:
        raise ValueError("a destination of dtype %s in a copy to %s"
                         % (dst.dtype, out_dtype))
    sdt = _dtypes.check_supported(src.dtype)
    if _layout.prod(shape) == 0:
        return _EMPTY
    ss, ds = _estrides(src), _estrides(dst)       # checks the strides
    if sdt == out_dtype:
        n, mshape, ms, md, w = _raw_row(shape, src.strides, dst.strides,
                                        sdt.itemsize, align)
        code = -w
    else:
        mshape, (ms, md) = _layout.merge_dims(shape, [ss, ds])
        if not mshape:
            mshape, ms, md = (1,), (0,), (0,)
        n, code = _layout.prod(mshape), None
    wide = _layout.needs_64bit(mshape, [ms, md], BLOCK * UNROLL * 2)
    return (n, len(mshape), code, list(mshape) + list(ms) + list(md), wide)


def _pad(cols, nd, ndim):
    """A row's shape and strides of ``nd`` dimensions padded to ``ndim``
    (leading length-1 axes of stride 0)."""
    k = ndim - nd
    return ([1] * k + cols[:nd] + [0] * k + cols[nd:2 * nd] + [0] * k
            + cols[2 * nd:])


def copy_spec(out_dtype, pairs):
    """The launch copying every ``(dst, src)`` of ``pairs`` at once.

    A pair whose source has the output's dtype is copied as raw units of
    up to 16 bytes (its bytes as they are: float16 NaN payloads too), the
    widest its layout and addresses allow; others are cast element by
    element.

    Parameters
    ----------
    out_dtype : numpy.dtype
        Every destination's dtype (supported by gpuarr).
    pairs : sequence of (array-like, array-like)
        Destination views and their sources, each pair of one shape; the
        destinations must not overlap each other or any source.  Empty
        pairs are left out.

    Returns
    -------
    (KernelSpec, numpy.ndarray) or None
        The spec (argument format ``"Piq"``: the table's device address,
        then :attr:`KernelSpec.tail`, the row and chunk counts) and the
        table, int64 of shape ``(rows, 5 + 3 * ndim)``, which the caller
        copies to device memory; None when every pair is empty.

    Raises
    ------
    ValueError
        For a pair of different shapes, or strides not a multiple of the
        item size.
    TypeError
        For an unsupported dtype.
    """
    out_dtype = _dtypes.check_supported(out_dtype)
    rows = []
    ndim = 1
    wide = False
    for dst, src in pairs:
        sdt = src.dtype
        sp, dp = src.ptr, dst.ptr
        if sdt == out_dtype:
            x = (sp | dp) & 15
            align = 16 if not x else x & -x
        else:
            align = 0
        # what the row depends on; everything is checked on a miss
        key = (dst.shape, src.shape, src.strides, dst.strides, sdt,
               dst.dtype, out_dtype, align)
        row = _ROWS.get(key)
        if row is None:
            row = _ROWS[key] = _row(dst, src, out_dtype, align)
            if len(_ROWS) > 4096:
                _ROWS.clear()
        if row is _EMPTY:
            continue
        if row[1] > ndim:
            ndim = row[1]
        wide = wide or row[4]
        rows.append((sp, dp, sdt, row))
    if not rows:
        return None
    src_dts = sorted({r[2] for r in rows if r[3][2] is None},
                     key=lambda d: d.str)
    codes = {dt: k for k, dt in enumerate(src_dts)}
    chunk = BLOCK * UNROLL
    first = 0
    flat = []           # one flat list: numpy converts it faster than rows
    put_all = flat.extend
    for sp, dp, sdt, (n, nd, code, cols, _) in rows:
        put_all((sp, dp, n, first, codes[sdt] if code is None else code))
        put_all(cols if nd == ndim else _pad(cols, nd, ndim))
        first += -(-n // chunk)
    table = np.array(flat, np.int64).reshape(len(rows), _FIXED + 3 * ndim)
    itype = "long long" if wide else "int"
    spec = KernelSpec("joining.cu.mako")
    spec.path = "join"
    # (the tuning constants too: the source depends on them)
    spec.kkey = ("join", out_dtype, tuple(src_dts), ndim, itype, BLOCK,
                 UNROLL, SHARED_ROWS)
    spec.name = "gpuarr_join"
    spec.render_kw = dict(name=spec.name, out_dt=out_dtype,
                          src_dts=tuple(src_dts), ndim=ndim, itype=itype,
                          block=BLOCK, unroll=UNROLL, srows=SHARED_ROWS)
    spec.chars = "Piq"
    spec.grid = (max(1, min(first, _GRID_MAX)), 1, 1)
    spec.block = (BLOCK, 1, 1)
    spec.tail = (len(rows), first)
    return spec, table


#: the last few contiguous joins' (spec, table), by their arguments: a
#: loop joining the same buffers into a recycled output (the pool hands
#: back the same block) builds its table once
_RECENT_JOINS = {}
_RECENT_MAX = 8
_RECENT_LOCK = threading.Lock()


def _recent(key, build, *args):
    """``build(*args)``, or its result kept under ``key`` and the settings
    the kernels are rendered with among the last :data:`_RECENT_MAX`
    joins'."""
    key += (BLOCK, UNROLL, BLOCKS_PER_SM, SHARED_ROWS)
    got = _RECENT_JOINS.get(key)
    if got is None:
        got = build(*args)
        with _RECENT_LOCK:
            if len(_RECENT_JOINS) >= _RECENT_MAX:
                _RECENT_JOINS.pop(next(iter(_RECENT_JOINS)), None)
            _RECENT_JOINS[key] = got
    return got


def contiguous_join_spec(out_dtype, out_ptr, outer, row_bytes, parts):
    """:func:`copy_spec` of a join whose output and parts are all
    C-contiguous of one dtype, built with a few numpy operations instead of
    one step per part (the same table and kernel).

    Parameters
    ----------
    out_dtype : numpy.dtype
    out_ptr : int
        The output's address.
    outer : int
        The number of rows of the output before the join axis (the product
        of its leading dimensions; 1 for axis 0).
    row_bytes : int
        The bytes of one such row (all parts' bytes of it).
    parts : sequence of (int, int, int), or of int
        ``(source address, byte offset in a row, bytes in a row)`` of every
        non-empty part, in order, at least one; or the same three numbers
        of each part one after the other in a flat sequence.

    Returns
    -------
    (KernelSpec, numpy.ndarray)
        As :func:`copy_spec`; the last :data:`_RECENT_MAX` results are
        kept and returned again for the same arguments (neither is to be
        modified).
    """
    return _recent((out_dtype, out_ptr, outer, row_bytes, tuple(parts)),
                   _contiguous_join_spec, out_dtype, out_ptr, outer,
                   row_bytes, parts)


def _contiguous_join_spec(out_dtype, out_ptr, outer, row_bytes, parts):
    out_dtype = _dtypes.check_supported(out_dtype)
    # (few numpy calls: on 64 parts each costs about a microsecond)
    p = np.array(parts, np.int64).reshape(-1, 3)
    sp, off, nb = p[:, 0], p[:, 1], p[:, 2]
    dp = off + out_ptr
    # the widest unit up to 16 bytes dividing both addresses, the part's
    # bytes per row and (with several rows) the row's bytes: the lowest
    # set bit of x | 16
    x = (sp | dp | nb | (row_bytes if outer > 1 else 0) | 16) & 31
    w = x & -x
    npr = nb // w                               # units per row
    n = npr * outer if outer > 1 else npr
    chunks = (n + (BLOCK * UNROLL - 1)) // (BLOCK * UNROLL)
    first = np.cumsum(chunks)
    first -= chunks
    rows = len(p)
    rw = row_bytes // w
    lim = _layout.INT32_MAX - BLOCK * UNROLL * 2
    # every position is below the join's bytes: no part needs 64-bit
    # positions unless the whole output does
    big = outer * row_bytes > lim
    if outer == 1:
        ndim = 1
        unit = n > 1                            # one unit: strides 0
        cols = [n, unit, unit]
        wide = big and bool((n > lim).any())
    else:
        # (outer, npr) of strides (npr, 1) and (rw, 1); a part of one unit
        # per row merges to (outer,) of strides (1, rw), padded
        ndim = 2
        one = npr == 1
        cols = [np.where(one, 1, outer), np.where(one, outer, npr),
                np.where(one, 0, npr), 1,
                np.where(one, 0, rw), np.where(one, rw, 1)]
        wide = big and bool((n > lim).any() or (n - 1 > lim).any()
                            or ((outer - 1) * rw + npr - 1 > lim).any())
    table = np.empty((rows, _FIXED + 3 * ndim), np.int64)
    table[:, 0], table[:, 1], table[:, 2] = sp, dp, n
    table[:, 3], table[:, 4] = first, -w
    for k, c in enumerate(cols):
        table[:, _FIXED + k] = c
    total = int(first[-1] + chunks[-1])
    itype = "long long" if wide else "int"
    spec = KernelSpec("joining.cu.mako")
    spec.path = "join"
    spec.kkey = ("join", out_dtype, (), ndim, itype, BLOCK, UNROLL,
                 SHARED_ROWS)
    spec.name = "gpuarr_join"
    spec.render_kw = dict(name=spec.name, out_dt=out_dtype, src_dts=(),
                          ndim=ndim, itype=itype, block=BLOCK, unroll=UNROLL,
                          srows=SHARED_ROWS)
    spec.chars = "Piq"
    spec.grid = (max(1, min(total, _GRID_MAX)), 1, 1)
    spec.block = (BLOCK, 1, 1)
    spec.tail = (rows, total)
    return spec, table


def join_grid(spec):
    """The persistent grid of a :func:`copy_spec` launch in the current
    context: at most :data:`BLOCKS_PER_SM` blocks per multiprocessor, and
    no more than the chunks (for an :func:`alike_join_spec` launch, the
    chunks of all parts together).

    Returns
    -------
    tuple of int
    """
    if spec.path == "join_alike":
        _, npr, outer, _, nparts = spec.tail
        chunks = -(-(npr * outer) // (BLOCK * UNROLL)) * nparts
    else:
        chunks = spec.tail[1]
    return capped_grid(chunks, BLOCKS_PER_SM)


#: the raw units of the alike join, by width in bytes
_ALIKE_UNITS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
                8: "unsigned long long", 16: "uint4"}


def alike_join_spec(out_ptr, outer, part_bytes, sources):
    """The join of parts alike (``join_alike.cu.mako``): C-contiguous
    parts of one shape and dtype joined into a new C-contiguous output,
    each part ``outer`` rows of ``part_bytes`` bytes (``outer`` is the
    product of the dimensions before the join axis).

    Parameters
    ----------
    out_ptr : int
        The output's address.
    outer : int
        Rows before the join axis (1 for axis 0).
    part_bytes : int
        Bytes of one part's row (positive).
    sources : sequence of int
        The parts' addresses, in order, at least one.

    Returns
    -------
    (KernelSpec, numpy.ndarray)
        The kernel and its table (the sources as int64, to copy to device
        memory: the kernel's first argument); launched on
        :func:`join_grid`'s grid with the table's device address followed
        by ``spec.tail`` (output address, units per part row, rows,
        units per output row, parts).  The last :data:`_RECENT_MAX`
        results are kept as :func:`contiguous_join_spec`'s are.
    """
    return _recent(("alike", out_ptr, outer, part_bytes, tuple(sources)),
                   _alike_join_spec, out_ptr, outer, part_bytes, sources)


def _alike_join_spec(out_ptr, outer, part_bytes, sources):
    table = np.array(sources, np.int64)
    nparts = len(table)
    # the widest unit up to 16 bytes dividing every source address, the
    # output's, the part's row and (with several rows) the output's row
    x = (int(np.bitwise_or.reduce(table)) | out_ptr | part_bytes | 16
         | (part_bytes * nparts if outer > 1 else 0))
    w = x & -x
    npr = part_bytes // w
    rw = npr * nparts
    # 64-bit positions when the output's units come within half of 2**31
    # (positions, chunk numbers and a grid's step past them stay below
    # 2**31 otherwise)
    wide = outer * rw > _layout.INT32_MAX // 2
    itype = "long long" if wide else "int"
    spec = KernelSpec("join_alike.cu.mako")
    spec.path = "join_alike"
    spec.kkey = ("join_alike", w, outer > 1, itype, BLOCK, UNROLL,
                 BLOCKS_PER_SM)
    spec.name = "gpuarr_join_alike"
    spec.render_kw = dict(name=spec.name, unit=_ALIKE_UNITS[w],
                          rows=outer > 1, itype=itype, block=BLOCK,
                          unroll=UNROLL, bps=BLOCKS_PER_SM)
    spec.chars = "PPqqqi"
    spec.block = (BLOCK, 1, 1)
    spec.grid = None
    spec.tail = (out_ptr, npr, outer, rw, nparts)
    return spec, table


def take_spec(kind, itemsize, index_dtype, mode="raise", single=False):
    """The take or put kernel for elements of ``itemsize`` bytes.

    Parameters
    ----------
    kind : {"take", "put"}
    itemsize : int
        1, 2, 4, 8 or 16 (values move as raw bytes).
    index_dtype : numpy.dtype
        bool or an integer dtype.
    mode : {"raise", "wrap", "clip"}
        numpy's handling of indices out of range.
    single : bool
        Whether the launches move one array each (``m == 1``): the kernel
        takes the parameters of one array, not of :data:`NVEC`.

    Returns
    -------
    KernelSpec
        Its arguments, in order: the index array, its size (q), the flag
        word (P; ``mode="raise"``: the smallest position of a bad index is
        stored there by atomicMin, the word must hold :data:`NO_BAD`
        before the launch), the number ``m <= NVEC`` of arrays used (i),
        then ``v`` source pointers, ``v`` destination pointers, ``v``
        sizes (q: the source's for take, the destination's for put) and
        for put ``v`` value counts (q), where ``v`` is 1 for ``single``
        and :data:`NVEC` otherwise.  Specs are kept per argument set and
        setting (one build a kind of call).

    Raises
    ------
    ValueError
        For an unknown kind, item size or mode.
    TypeError
        For an index dtype that is not bool or integer.
    """
    return kept(_TAKE_SPECS, _take_spec, kind, itemsize, index_dtype, mode,
                bool(single), bool(TAKE_STREAM), NVEC, BLOCK)


def kept(table, build, *key):
    """``build(*key)``, made once and kept in the dict ``table`` under
    ``key`` (what raises is not kept): the specs of the take and move
    kernels, built once a kind of call."""
    got = table.get(key)
    if got is None:
        got = table[key] = build(*key)
    return got


#: take_spec's results by its arguments and the settings (a spec is built
#: once a kind of call: no KernelSpec, dtype checks and render arguments
#: on every take)
_TAKE_SPECS = {}


def _take_spec(kind, itemsize, index_dtype, mode, single, stream, nvec,
               block):
    if kind not in ("take", "put"):
        raise ValueError("kind must be 'take' or 'put', not %r" % (kind,))
    if itemsize not in _UNITS:
        raise ValueError("no take/put kernel for items of %r bytes"
                         % (itemsize,))
    if mode not in _MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or "
                         "'wrap' (got %r)" % (mode,))
    idt = np.dtype(index_dtype)
    if idt.kind not in "biu":
        raise TypeError("indices of dtype %s are not integers" % idt)
    spec = KernelSpec("take.cu.mako")
    spec.path = kind
    spec.kkey = (kind, itemsize, idt, mode, single, stream, nvec, block)
    spec.name = "gpuarr_%s" % kind
    spec.render_kw = dict(name=spec.name, kind=kind, unit=_UNITS[itemsize],
                          idx_t=_dtypes.ctype(idt), mode=mode, nvec=nvec,
                          block=block, single=single, stream=stream)
    nv = 1 if single else nvec
    spec.chars = "PqPi" + "P" * (2 * nv) + "q" * (
        nv * (2 if kind == "put" else 1))
    spec.block = (block, 1, 1)
    spec.grid = None
    spec.tail = ()
    return spec
