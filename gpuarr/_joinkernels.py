"""Kernel builders of joins and gathers (layer 4).

Two kernel families, each described without a device by a
:class:`~gpuarr._kernelspec.KernelSpec` (the CPU tests render and compile
them) and compiled once per context by :func:`function`:

``joining.cu.mako`` (:func:`copy_spec`)
    One launch copies many (destination view, source) pairs of equal
    shapes, any strides (negative and 0 too), casting each source's values
    to the destination dtype.  The pairs are rows of a small table the
    caller copies to device memory; a kernel depends only on the output
    dtype, the set of source dtypes, the number of dimensions after merging
    and the index width, so joins of any number of arrays share it.
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

__all__ = ["BLOCK", "UNROLL", "NVEC", "copy_spec", "take_spec", "function",
           "gather_grid", "upload", "NO_BAD", "STAGING_SLOTS",
           "STAGING_WORDS"]

#: threads per block of both families
BLOCK = 256
#: elements per thread of a joining block (a block copies BLOCK * UNROLL)
UNROLL = 4
#: arrays per launch of a take/put kernel
NVEC = 16
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

    __slots__ = ("kernels", "nsm", "staging", "events", "next", "lock")

    def __init__(self, nsm):
        self.kernels = {}
        self.nsm = nsm
        self.staging = None
        self.events = [None] * STAGING_SLOTS
        self.next = 0
        self.lock = threading.Lock()


def _new_state(ctx):
    nsm = ctx.get_device().get_attribute(device_attribute.MULTIPROCESSOR_COUNT)
    return _State(int(nsm))


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


def gather_grid(n):
    """The grid of a take/put launch over ``n`` indices.

    Returns
    -------
    tuple of int
        ``(blocks, 1, 1)``: enough blocks of :data:`BLOCK` threads for
        ``n``, at most 8 per multiprocessor (the kernel loops over the
        rest).
    """
    nsm = _state().nsm
    return (max(1, min(-(-n // BLOCK), nsm * 8)), 1, 1)


def _estrides(a):
    isz = a.dtype.itemsize
    st = tuple(a.strides)
    if any(s % isz for s in st):
        raise ValueError("strides %s are not a multiple of the item size %d"
                         % (st, isz))
    return tuple(s // isz for s in st)


def copy_spec(out_dtype, pairs):
    """The launch copying every ``(dst, src)`` of ``pairs`` at once.

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
        The spec (argument format ``"Pi"``: the table's device address
        and :attr:`KernelSpec.tail`, the row count) and the table, int64
        of shape ``(rows, 5 + 3 * ndim)``, which the caller copies to
        device memory; None when every pair is empty.

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
    margin = BLOCK * UNROLL * 2
    for dst, src in pairs:
        shape = tuple(dst.shape)
        if tuple(src.shape) != shape:
            raise ValueError("a source of shape %s for a destination of "
                             "shape %s" % (_layout.shape_str(src.shape),
                                           _layout.shape_str(shape)))
        if dst.dtype != out_dtype:
            raise ValueError("a destination of dtype %s in a copy to %s"
                             % (dst.dtype, out_dtype))
        sdt = src.dtype
        key = (shape, tuple(src.strides), tuple(dst.strides), sdt.itemsize,
               out_dtype.itemsize)
        row = _ROWS.get(key)
        if row is None:
            n = _layout.prod(shape)
            if n == 0:
                continue
            mshape, (ms, md) = _layout.merge_dims(
                shape, [_estrides(src), _estrides(dst)])
            if not mshape:
                mshape, ms, md = (1,), (0,), (0,)
            row = (n, mshape, ms, md,
                   _layout.needs_64bit(mshape, [ms, md], margin))
            if len(_ROWS) >= 4096:
                _ROWS.clear()
            _ROWS[key] = row
        if sdt not in _dtypes.SUPPORTED:
            _dtypes.check_supported(sdt)
        n, mshape, ms, md, w = row
        ndim = max(ndim, len(mshape))
        wide = wide or w
        rows.append((src, dst, n, mshape, ms, md))
    if not rows:
        return None
    src_dts = sorted({r[0].dtype for r in rows}, key=lambda d: d.str)
    codes = {dt: k for k, dt in enumerate(src_dts)}
    chunk = BLOCK * UNROLL
    first = 0
    table = []
    for src, dst, n, mshape, ms, md in rows:
        pad = [1] * (ndim - len(mshape))
        zeros = [0] * len(pad)
        table.append([src.ptr, dst.ptr, n, first, codes[src.dtype]]
                     + pad + list(mshape) + zeros + list(ms) + zeros
                     + list(md))
        first += -(-n // chunk)
    table = np.array(table, np.int64)
    if first > _GRID_MAX:
        raise ValueError("a join of %d blocks is more than one launch can "
                         "hold" % first)
    itype = "long long" if wide else "int"
    spec = KernelSpec("joining.cu.mako")
    spec.path = "join"
    spec.kkey = ("join", out_dtype, tuple(src_dts), ndim, itype)
    spec.name = "gpuarr_join"
    spec.render_kw = dict(name=spec.name, out_dt=out_dtype,
                          src_dts=tuple(src_dts), ndim=ndim, itype=itype,
                          block=BLOCK, unroll=UNROLL)
    spec.chars = "Pi"
    spec.grid = (first, 1, 1)
    spec.block = (BLOCK, 1, 1)
    spec.tail = (len(rows),)
    return spec, table


def take_spec(kind, itemsize, index_dtype, mode="raise"):
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

    Returns
    -------
    KernelSpec
        Its arguments, in order: the index array, its size (q), the flag
        word (P; ``mode="raise"``: the smallest position of a bad index is
        stored there by atomicMin, the word must hold :data:`NO_BAD`
        before the launch), the number ``m <= NVEC`` of arrays used (i),
        then NVEC source pointers, NVEC destination pointers, NVEC sizes
        (q: the source's for take, the destination's for put) and for put
        NVEC value counts (q).

    Raises
    ------
    ValueError
        For an unknown kind, item size or mode.
    TypeError
        For an index dtype that is not bool or integer.
    """
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
    spec.kkey = (kind, itemsize, idt, mode)
    spec.name = "gpuarr_%s" % kind
    spec.render_kw = dict(name=spec.name, kind=kind, unit=_UNITS[itemsize],
                          idx_t=_dtypes.ctype(idt), mode=mode, nvec=NVEC,
                          block=BLOCK)
    spec.chars = "PqPi" + "P" * (2 * NVEC) + "q" * (
        NVEC * (2 if kind == "put" else 1))
    spec.block = (BLOCK, 1, 1)
    spec.grid = None
    spec.tail = ()
    return spec
