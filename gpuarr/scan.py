"""Prefix scans: PyCUDA's scan kernels and the machinery under ``cumsum``.

Layer 4: takes anything array-like (``.ptr``, ``.dtype``, ``.shape``,
``.strides`` in bytes) and never imports :mod:`gpuarr.gpuarray`.

Two kernels, both rendered from ``kernels/scan.cu.mako``:

``lookback``
    A single pass over contiguous data (each element read once and written
    once): the decoupled look-back scan of Merrill and Garland.  Each block
    takes the next tile id from an atomic counter, loads its tile (16-byte
    vector loads where aligned), scans it in registers and with warp
    shuffles, publishes its aggregate in a per-tile descriptor, looks back
    over its predecessors' descriptors for its exclusive prefix, publishes
    its inclusive prefix and writes its results.  Two implementations:
    ``v1``, a block per tile, and ``v3`` (sm_90, the default there),
    persistent blocks whose warps split the work into a pipeline (load by
    TMA into shared memory, reduce, look back, scan and store) so that
    several tiles are in flight an SM.  With ``row_len`` the data
    is a sequence of rows of ``row_len`` elements scanned independently
    (a segmented scan with heads at row starts); rows of any length, from
    1 element to the whole array, run at the same speed.
``columns``
    Scans along an axis that is not innermost: one thread per column
    (outer x inner index) walking down the axis.

See ``docs/performance/scan.md`` for the algorithm and its memory-ordering argument.
"""

import collections
import math

import numpy as np

from . import _placement
from . import _config, _dtypes, _percontext
from . import driver as _drv
from ._enums import device_attribute, function_attribute
from ._kernelargs import check_device_array, is_c_contiguous, is_identifier
from ._kernelspec import compile_function
from .kernels import render

__all__ = ["InclusiveScanKernel", "ExclusiveScanKernel", "run_scan",
           "run_column_scan", "scan_source", "builtin_operator", "tile_size",
           "clear_cache"]

_BLOCK = 256
_COL_BLOCK = 256
_MAX_GRID = 2 ** 31 - 1
_F2 = np.dtype(np.float16)
_F4 = np.dtype(np.float32)
_ACC_WORDS = 24      # accumulator registers per thread aimed at by layout()
_LOOKBACK = 4        # descriptors per lane per look-back step (128 tiles);
                     # 2 for unpacked descriptors (more registers each)
_IMPLS = ("block-per-tile", "pipelined")   # a third (persistent, L2 prefetch) lost to both
_V3_SMEM = 192 * 1024  # bytes of staged input a v3 block aims at
_V3_BLOCK = 256       # v3's consumer threads
_V3_WORDS = 48        # v3: accumulator words a consumer thread holds
_V3_ROLE_WARPS = 5    # v3: a producer, two aggregator, two look-back warps


#: The look-back kernel used by default: ``"pipelined"`` (persistent
#: blocks with warp roles and TMA staging; where the device is older than
#: sm_90 or an array is not 16-byte aligned, the block-per-tile kernel runs
#: instead) or ``"block-per-tile"``.  On the H200 the pipelined kernel ran
#: flat float32 scans at about 3100 GB/s against 2250-2420, int32->int64 at
#: 2700 against 1600, rows at 3250 against 2700 (NOTES.md, runs 26-28, where
#: the two are called v3 and v1).  Set by ``GPUARR_SCAN`` (read by
#: :mod:`gpuarr._config`), or assign ``gpuarr.scan.IMPL`` at run time; a bad
#: setting is refused when a scan kernel is first built.
IMPL = _config.settings.scan
_MAX_BLOCKS = None  # tests: cap v3's grid (None: one block an SM)


def _check_impl(impl):
    if impl is None:
        impl = IMPL
        if impl not in _IMPLS:
            _config.choice("GPUARR_SCAN", impl)
    if impl not in _IMPLS:
        raise ValueError("scan impl must be one of %s, not %r"
                         % ("/".join(_IMPLS), impl))
    return impl


# ---------------------------------------------------------------------------
# specialisation (pure Python)


def _acc_dtype(loop_dtype):
    """The dtype the accumulator is held in: float16 loops run in float32."""
    return _F4 if loop_dtype == _F2 else loop_dtype


def layout(in_dtype, out_dtype, loop_dtype=None, impl="block-per-tile"):
    """``(vec, rows)`` of the look-back kernel for these dtypes.

    Parameters
    ----------
    in_dtype, out_dtype : dtype-like
        The dtypes of input and output memory.
    loop_dtype : dtype-like, optional
        The operator's dtype (default: the wider of the two).

    Returns
    -------
    (vec, rows) : tuple of int
        ``vec`` elements per lane per row (16-byte accesses for the wider of
        the two memory types), ``rows`` rows per warp, so a tile holds
        ``256 * vec * rows`` elements (6144 for float32).  ``rows`` gives
        each thread about ``_ACC_WORDS`` 32-bit registers of accumulators
        (for accumulators up to 8 bytes; never fewer rows than 4, or than
        32 elements a lane), which keeps the kernel within 64 registers: 4
        blocks per SM and 24 KB (float32) per block in flight.
        ``impl="pipelined"`` (one block an SM, registers to spare) aims at 48
        accumulator words a thread instead (32 for complex128, which spills
        at 48), up to 16 rows: 12288 float32 elements a tile.
    """
    i_dt, o_dt = np.dtype(in_dtype), np.dtype(out_dtype)
    isz = max(i_dt.itemsize, o_dt.itemsize)
    if loop_dtype is None:
        loop_dtype = i_dt if i_dt.itemsize >= o_dt.itemsize else o_dt
    acc_isz = _acc_dtype(np.dtype(loop_dtype)).itemsize
    vec = max(1, 16 // isz)
    if impl == "pipelined":
        words = vec * -(-acc_isz // 4)
        budget = _V3_WORDS if acc_isz < 16 else 32   # complex128 spills
        return vec, max(1, min(16, budget // words))
    rows = max(1, min(4, 32 // vec))
    if acc_isz <= 8:
        words = vec * -(-acc_isz // 4)
        rows = max(rows, min(8, _ACC_WORDS // words))
    return vec, rows


def _min_blocks(acc_dt):
    """Blocks per SM the kernel is compiled for (``__launch_bounds__``)."""
    return 4 if acc_dt.itemsize <= 8 else 2


def tile_size(in_dtype, out_dtype, loop_dtype=None, impl="block-per-tile"):
    """Elements per tile (one block's share) of the look-back kernel.

    Parameters
    ----------
    in_dtype, out_dtype : dtype-like
        The dtypes of input and output memory.
    loop_dtype : dtype-like, optional
        The operator's dtype (default: the wider of the two).
    impl : {"block-per-tile", "pipelined"}
        The look-back kernel the tile is for (see :func:`layout`).

    Returns
    -------
    int
        ``threads * vec * rows`` (``layout``'s ``vec`` and ``rows``; 256
        threads for either kernel): e.g. 6144 for float32 with
        ``"block-per-tile"``, 12288 with ``"pipelined"``.
    """
    vec, rows = layout(in_dtype, out_dtype, loop_dtype, impl)
    return _block(impl) * vec * rows


def _block(impl):
    """Threads of a block that share a tile (v3: its consumer warps)."""
    return _V3_BLOCK if impl == "pipelined" else _BLOCK


def v3_stages(in_dtype, out_dtype, loop_dtype=None):
    """Tiles of input a v3 block stages in shared memory: even, 2 to 8.

    Even, because v3's aggregator and look-back warps take alternate
    rounds: with an even count, round ``k`` and round ``k - stages`` (the
    same stage's previous use) fall to the same warp, so each warp waits on
    every phase of its stages' mbarriers in order.  With an odd count a
    warp could wait on a phase two ahead of the one completing, which a
    parity wait reads as already complete.
    """
    tile_bytes = tile_size(in_dtype, out_dtype, loop_dtype, "pipelined") * \
        np.dtype(in_dtype).itemsize
    return max(2, min(8, _V3_SMEM // tile_bytes)) & ~1


def builtin_operator(name, loop_dtype):
    """C expression of ``add`` or ``multiply`` with numpy's results.

    Integer arithmetic goes through ``unsigned long long`` so overflow wraps
    like numpy's instead of being C undefined behaviour; bool ``add`` is a
    logical or and ``multiply`` a logical and, as numpy's bool loops.

    Parameters
    ----------
    name : {"add", "multiply"}
    loop_dtype : numpy.dtype

    Returns
    -------
    (expr, neutral) : tuple of str
    """
    dt = np.dtype(loop_dtype)
    if name == "add":
        if dt.kind == "b":
            return "a || b", "false"
        if dt.kind in "iu":
            return "(unsigned long long)a + (unsigned long long)b", "0"
        return "a + b", "0"
    if name == "multiply":
        if dt.kind == "b":
            return "a && b", "true"
        if dt.kind in "iu":
            return "(unsigned long long)a * (unsigned long long)b", "1"
        return "a * b", "1"
    raise ValueError("no built-in scan operator %r" % (name,))


def scan_source(kind, in_dtype, out_dtype, loop_dtype, scan_expr, neutral=None,
                exclusive=False, seg=False, aligned=True, preamble="",
                name="gpuarr_scan", impl=None, commutative=False):
    """Render one scan kernel (no GPU needed).

    Parameters
    ----------
    kind : {"lookback", "columns"}
    in_dtype, out_dtype : dtype-like
        The dtypes of input and output memory.
    loop_dtype : dtype-like
        The dtype the operator works in (float16 is held in float32 and
        rounded to float16 at each store).
    scan_expr : str
        C expression in ``a`` (the earlier operand) and ``b``.
    neutral : str, optional
        C expression of the neutral element; needed for exclusive scans.
    exclusive, seg, aligned : bool
        Exclusive scan; rows scanned independently; vector accesses.
    preamble : str
        Source placed before the kernel.
    name : str
        The kernel's name.
    impl : {"block-per-tile", "pipelined"}, optional
        The look-back kernel (default :data:`IMPL`).  ``v3`` takes one more
        argument, the tile count, and is launched with at most one block an
        SM (see :func:`run_scan`); it needs sm_90, a block of ``256 + 160``
        threads and :func:`v3_stages` tiles of dynamic shared memory, and
        is always rendered for 16-byte aligned arrays.
    commutative : bool
        ``scan_expr`` is also commutative (the built-in operators): v3's
        aggregators may then fold in any order.  Other kernels ignore it.

    Returns
    -------
    str
        CUDA C++ source; the kernel is ``extern "C"`` (compile with
        ``no_extern_c=True``).
    """
    in_dt, out_dt, loop_dt = (np.dtype(in_dtype), np.dtype(out_dtype),
                              np.dtype(loop_dtype))
    acc_dt = _acc_dtype(loop_dt)
    if exclusive and neutral is None:
        raise ValueError("an exclusive scan needs a neutral element")
    impl = _check_impl(impl)
    if impl == "pipelined":
        aligned = True   # v3 runs only on 16-byte aligned arrays
    vec, rows = layout(in_dt, out_dt, loop_dt, impl)
    return render(
        "scan.cu.mako", name=name, kind=kind, impl=impl,
        in_t=_dtypes.ctype(in_dt), out_t=_dtypes.ctype(out_dt),
        acc_t=_dtypes.ctype(acc_dt), in_dt=in_dt, out_dt=out_dt,
        loop_dt=loop_dt,
        scan_expr=scan_expr, neutral="" if neutral is None else neutral,
        exclusive=bool(exclusive), preamble=preamble,
        commutative=bool(commutative),
        block=_block(impl) if kind == "lookback" else _COL_BLOCK,
        vec=vec, rows=rows,
        aligned=bool(aligned), seg=bool(seg), packed=acc_dt.itemsize <= 4,
        stages=v3_stages(in_dt, out_dt, loop_dt),
        lookback=_LOOKBACK if acc_dt.itemsize <= 4 else _LOOKBACK // 2,
        min_blocks=_min_blocks(acc_dt))


# ---------------------------------------------------------------------------
# per-context state: kernels and the descriptor scratch buffers

_MAX_SCRATCH = 16    # streams with a cached scratch buffer, per context


def _new_state(ctx):
    """A context's state: (kernels and layouts by key, scratch buffers by
    stream)."""
    return ({}, collections.OrderedDict())


_state = _percontext.state(_new_state)


def clear_cache():
    """Forget compiled kernels and scratch buffers (rebuilt on demand)."""
    _state.clear()


def _kernel(kernels, key, kind, name, render_args, options, impl="block-per-tile",
            commutative=False):
    hit = kernels.get(key)
    if hit is not None:
        return hit
    src = scan_source(kind, *render_args, name=name, impl=impl,
                      commutative=commutative)
    chars = ("PPqqqqqq" if kind != "lookback" else
             "PPQQP" if impl == "block-per-tile" else "PPQQPI")
    fn, mod = compile_function(src, name, chars, options)
    if kind != "lookback" or impl == "block-per-tile":
        kernels[key] = (fn, mod, 0)
    elif impl == "pipelined":
        in_dt, out_dt, loop_dt = render_args[:3]
        smem = (tile_size(in_dt, out_dt, loop_dt, "pipelined") * in_dt.itemsize
                * v3_stages(in_dt, out_dt, loop_dt))
        fn.set_attribute(function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES,
                         smem)
        sms = _device_attr("MULTIPROCESSOR_COUNT", 132)
        kernels[key] = (fn, mod, sms, smem)
    return kernels[key]


def _device_attr(name, default):
    """A ``device_attribute`` of the current device (``default`` if the
    query fails)."""
    try:
        return _drv.Context.get_device().get_attribute(
            getattr(device_attribute, name))
    except Exception:
        return default


def _v3_ok(kernels, in_ptr, out_ptr):
    """v3 runs here: sm_90 or newer (TMA, mbarrier transaction counts) and
    both arrays 16-byte aligned; otherwise v1 runs instead."""
    cc = kernels.get("cc")
    if cc is None:
        cc = kernels["cc"] = _device_attr("COMPUTE_CAPABILITY_MAJOR", 0)
    return cc >= 9 and in_ptr % 16 == 0 and out_ptr % 16 == 0


def _scratch(scratches, stream, nbytes):
    """A device buffer of at least ``nbytes`` private to ``stream``.

    Launches on one stream run in order, so a buffer reused by the next
    scan on the same stream is free by then.  A new buffer is zeroed once
    (on ``stream``); after that every look-back kernel leaves the bytes it
    used zeroed again (its last block or warp clears them), so a scan needs
    no memset of its own.  The entry keeps the stream object alive, so its
    handle cannot be reused by another stream while cached.  A buffer
    replaced by a larger one, or dropped for another stream's past
    ``_MAX_SCRATCH``, is freed only once its stream has finished with it.
    """
    key = 0 if stream is None else int(getattr(stream, "handle", 0) or 0)
    ent = scratches.get(key)
    if ent is not None and ent[1] >= nbytes:
        scratches.move_to_end(key)
        return ent[0]
    if ent is not None:
        _percontext.retire_stream_buffer(ent)
    size = max(nbytes, 1 << 16)
    size = 1 << (size - 1).bit_length()
    buf = _drv.mem_alloc(size)
    _drv.memset_d32_async(buf, 0, size // 4, stream)
    scratches[key] = (buf, size, stream)
    scratches.move_to_end(key)
    _percontext.evict_stream_buffers(scratches, _MAX_SCRATCH, keep=key)
    return buf


def run_scan(in_ptr, in_dtype, out_ptr, out_dtype, n, scan_expr, loop_dtype,
             neutral=None, exclusive=False, row_len=None, preamble="",
             options=None, name="gpuarr_scan", stream=None, impl=None,
             commutative=False):
    """Scan ``n`` contiguous elements (one pass, decoupled look-back).

    Parameters
    ----------
    in_ptr, out_ptr : int
        Device addresses of the first input and output elements.  They may
        be equal (an in-place scan) when both dtypes have one item size;
        other overlaps are the caller's to avoid.
    in_dtype, out_dtype, loop_dtype : numpy.dtype
        Memory dtypes and the operator's dtype (see :func:`scan_source`).
    n : int
        Number of elements (``0`` launches nothing).
    scan_expr : str
        C expression in ``a`` (earlier) and ``b`` (later).
    neutral : str, optional
        Neutral element; required when ``exclusive``.
    exclusive : bool
    row_len : int, optional
        Scan rows of ``row_len`` elements independently (``n`` must be a
        multiple of it); None: one row.
    preamble : str
    options : list of str, optional
        Extra compiler options.
    name : str
        Kernel name.
    stream : gpuarr.driver.Stream, optional
    impl : {"block-per-tile", "pipelined"}, optional
        The look-back kernel (default :data:`IMPL`): ``v1`` launches a
        block per tile, ``v3`` ``min(tiles, SMs)`` persistent blocks with the
        input staged by TMA (sm_90 and 16-byte aligned arrays; v1 runs
        where these do not hold).
    commutative : bool
        ``scan_expr`` is commutative as well (see :func:`scan_source`).

    Raises
    ------
    ValueError
        For a ``row_len`` that does not divide ``n``, or more tiles than a
        grid can hold (over ``2**31 - 1`` tiles).
    """
    n = int(n)
    if n <= 0:
        return
    impl = _check_impl(impl)
    seg = row_len is not None and int(row_len) < n
    if row_len is not None:
        row_len = int(row_len)
        if row_len <= 0 or n % row_len:
            raise ValueError("row_len %d does not divide %d elements"
                             % (row_len, n))
    kernels, scratches = _state()
    if impl == "pipelined" and not _v3_ok(kernels, in_ptr, out_ptr):
        impl = "block-per-tile"
    # the layout of these dtypes, computed once (a repeated scan pays a
    # dictionary lookup, not the arithmetic of layout())
    lkey = ("layout", in_dtype, out_dtype, loop_dtype, impl)
    lay = kernels.get(lkey)
    if lay is None:
        in_dt, out_dt, loop_dt = (np.dtype(in_dtype), np.dtype(out_dtype),
                                  np.dtype(loop_dtype))
        vec, rows = layout(in_dt, out_dt, loop_dt, impl)
        lay = kernels[lkey] = (in_dt, out_dt, loop_dt,
                               _block(impl) * vec * rows,
                               vec * in_dt.itemsize, vec * out_dt.itemsize,
                               _acc_dtype(loop_dt).itemsize)
    in_dt, out_dt, loop_dt, tile, in_align, out_align, acc_isz = lay
    ntiles = -(-n // tile)
    if ntiles > _MAX_GRID:
        raise ValueError("%d elements are more than one scan can handle" % n)
    aligned = in_ptr % in_align == 0 and out_ptr % out_align == 0
    key = ("lookback", in_dt, out_dt, loop_dt, scan_expr, neutral,
           bool(exclusive), seg, aligned, preamble,
           tuple(options) if options else None, name, impl,
           bool(commutative) and impl == "pipelined")
    ent = kernels.get(key)
    if ent is None:
        ent = _kernel(kernels, key, "lookback", name,
                      (in_dt, out_dt, loop_dt, scan_expr, neutral, exclusive,
                       seg, aligned, preamble), options, impl,
                      bool(commutative))
    fn = ent[0]
    # the kernel's ga_scratch_bytes(ntiles)
    if acc_isz <= 4:
        nbytes = 16 + 8 * ntiles
    else:
        nbytes = ((16 + 4 * ntiles + 15) & ~15) + 2 * ntiles * acc_isz
    buf = _scratch(scratches, stream, nbytes)
    if impl == "block-per-tile":
        fn.prepared_async_call((ntiles, 1, 1), (_BLOCK, 1, 1), stream,
                               in_ptr, out_ptr, n, row_len if seg else n, buf)
    elif impl == "pipelined":
        grid = min(ntiles, ent[2])
        if _MAX_BLOCKS is not None:
            grid = max(1, min(grid, int(_MAX_BLOCKS)))
        fn.prepared_async_call((grid, 1, 1),
                               (_V3_BLOCK + 32 * _V3_ROLE_WARPS, 1, 1), stream,
                               in_ptr, out_ptr, n, row_len if seg else n, buf,
                               ntiles, shared_size=ent[3])


def run_column_scan(in_ptr, in_dtype, out_ptr, out_dtype, outer, length,
                    inner, in_strides, scan_expr, loop_dtype, neutral=None,
                    exclusive=False, preamble="", options=None,
                    name="gpuarr_scan_columns", stream=None):
    """Scan along the middle axis of an ``(outer, length, inner)`` layout.

    The output is C-contiguous; the input has element strides
    ``in_strides = (s_outer, s_len, s_inner)``.  One thread per column;
    best when ``outer * inner`` is large.  Parameters as for
    :func:`run_scan`.

    Parameters
    ----------
    in_ptr, out_ptr : int
        Device addresses of the input's first element and of the
        C-contiguous ``(outer, length, inner)`` output.  They must not
        overlap unless the layouts are the same (the caller's to check).
    in_dtype, out_dtype, loop_dtype : dtype-like
        Memory dtypes and the operator's dtype (see :func:`scan_source`).
    outer, length, inner : int
        The layout's sizes; the scan runs along ``length``, over
        ``outer * inner`` columns (none of them 0 launches nothing).
    in_strides : tuple of 3 int
        The input's strides in elements (not bytes) for the three axes.
    scan_expr : str
        C expression in ``a`` (earlier) and ``b`` (later).
    neutral : str, optional
        Neutral element; required when ``exclusive``.
    exclusive : bool
        An exclusive scan (``out[0] = neutral``) instead of an inclusive
        one.
    preamble : str
        Source placed before the kernel.
    options : list of str, optional
        Extra compiler options.
    name : str
        Kernel name.
    stream : gpuarr.driver.Stream, optional
        Stream to launch on (default stream when None).

    Returns
    -------
    None
        The output is written asynchronously on ``stream``.

    Raises
    ------
    ValueError
        For more columns than a grid of 256-thread blocks can hold
        (over ``(2**31 - 1) * 256``).
    """
    outer, length, inner = int(outer), int(length), int(inner)
    ncols = outer * inner
    if ncols == 0 or length == 0:
        return
    in_dt, out_dt, loop_dt = (np.dtype(in_dtype), np.dtype(out_dtype),
                              np.dtype(loop_dtype))
    grid = -(-ncols // _COL_BLOCK)
    if grid > _MAX_GRID:
        raise ValueError("%d columns are more than one scan can handle"
                         % ncols)
    kernels = _state()[0]
    key = ("columns", in_dt, out_dt, loop_dt, scan_expr, neutral,
           bool(exclusive), preamble, tuple(options) if options else None,
           name)
    fn = kernels.get(key)
    if fn is None:
        fn = _kernel(kernels, key, "columns", name,
                     (in_dt, out_dt, loop_dt, scan_expr, neutral, exclusive,
                      False, False, preamble), options)
    s0, s1, s2 = (int(s) for s in in_strides)
    fn[0].prepared_async_call((grid, 1, 1), (_COL_BLOCK, 1, 1), stream,
                              in_ptr, out_ptr, ncols, inner, length, s0, s1,
                              s2)


# ---------------------------------------------------------------------------
# PyCUDA's scan kernels


class _ScanKernelBase:
    _exclusive = False

    def __init__(self, dtype, scan_expr, neutral=None, name_prefix="scan",
                 options=None, preamble=""):
        self.dtype = _dtypes.check_supported(dtype)
        if not isinstance(scan_expr, str) or not scan_expr.strip():
            raise ValueError("scan_expr must be a non-empty C expression in "
                             "a and b")
        if not is_identifier(name_prefix):
            raise ValueError("name_prefix %r is not a valid C identifier"
                             % (name_prefix,))
        if neutral is not None:
            if isinstance(neutral, (bool, np.bool_)):
                neutral = "true" if neutral else "false"
            elif isinstance(neutral, (int, float, np.integer, np.floating)):
                neutral = repr(neutral.item() if isinstance(neutral, np.generic)
                               else neutral)
            elif not isinstance(neutral, str) or not neutral.strip():
                raise TypeError("neutral must be a C expression (str) or a "
                                "number, not %r" % (neutral,))
        elif self._exclusive:
            raise ValueError("%s needs a neutral element (neutral=...): it "
                             "is the first output" % type(self).__name__)
        if not isinstance(preamble, str):
            raise TypeError("preamble must be a str")
        if options is not None and (isinstance(options, str) or not all(
                isinstance(o, str) for o in options)):
            raise TypeError("options must be a list of str")
        self.scan_expr = scan_expr
        self.neutral = neutral
        self.name_prefix = name_prefix
        self.options = list(options) if options else None
        self.preamble = preamble
        self._name = "%s_%s" % (name_prefix,
                                "exclusive" if self._exclusive else "inclusive")

    def get_source(self, aligned=True):
        """The CUDA source of the kernel (for inspection)."""
        return scan_source("lookback", self.dtype, self.dtype, self.dtype,
                           self.scan_expr, self.neutral, self._exclusive,
                           False, aligned, self.preamble, self._name)

    @_placement.on_arrays_device
    def __call__(self, input_ary, output_ary=None, allocator=None,
                 stream=None):
        """Scan ``input_ary`` into ``output_ary`` and return ``output_ary``.

        Parameters
        ----------
        input_ary : GPUArray (or array-like with ``ptr``)
            C-contiguous, of the kernel's dtype; scanned in flat C order.
        output_ary : GPUArray, "new" or None, optional
            None (the default, as in PyCUDA): scan in place, into
            ``input_ary``.  ``"new"``: a new array like ``input_ary``.
            Otherwise a C-contiguous array of the same shape and dtype.
        allocator : callable, optional
            For ``"new"``; default ``input_ary.allocator``.
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray
            ``output_ary`` (``input_ary`` for an in-place scan).

        Raises
        ------
        TypeError
            For a dtype other than the kernel's, or a non-array argument.
        ValueError
            For different shapes, non-contiguous arrays or partially
            overlapping input and output.
        """
        check_device_array(input_ary, "input_ary")
        if input_ary.dtype != self.dtype:
            raise TypeError("input_ary has dtype %s where the kernel scans %s"
                            % (input_ary.dtype, self.dtype))
        if output_ary is None:
            output_ary = input_ary
        elif isinstance(output_ary, str):
            if output_ary != "new":
                raise ValueError("output_ary must be an array, None or "
                                 "'new', not %r" % (output_ary,))
            alloc = allocator or getattr(input_ary, "allocator", None)
            output_ary = type(input_ary)(input_ary.shape, input_ary.dtype,
                                         allocator=alloc)
        else:
            check_device_array(output_ary, "output_ary")
            if output_ary.dtype != self.dtype:
                raise TypeError("output_ary has dtype %s where the kernel "
                                "scans %s" % (output_ary.dtype, self.dtype))
        if tuple(input_ary.shape) != tuple(output_ary.shape):
            raise ValueError("input and output must have the same shape")
        if not (is_c_contiguous(input_ary) and is_c_contiguous(output_ary)):
            raise ValueError("scan kernels need C-contiguous arrays")
        n = math.prod(input_ary.shape)
        if n == 0:
            return output_ary
        nb = n * self.dtype.itemsize
        ip, op = input_ary.ptr, output_ary.ptr
        if ip != op and ip < op + nb and op < ip + nb:
            raise ValueError("input and output overlap partially")
        run_scan(ip, self.dtype, op, self.dtype, n, self.scan_expr,
                 self.dtype, neutral=self.neutral, exclusive=self._exclusive,
                 preamble=self.preamble, options=self.options,
                 name=self._name, stream=stream)
        return output_ary


class InclusiveScanKernel(_ScanKernelBase):
    """Inclusive prefix scan with any associative operator (PyCUDA's form).

    ``out[i] = x[0] op x[1] op ... op x[i]``.

    Parameters
    ----------
    dtype : dtype-like
        The dtype of input, output and the operator.  float16 is computed in
        float32 (``a`` and ``b`` are ``float``) and rounded at each store.
    scan_expr : str
        C expression combining ``a`` (the earlier, left operand) and ``b``
        (the later one), e.g. ``"a+b"`` or ``"max(a,b)"``.  Must be
        associative; it need not be commutative.
    neutral : str or number, optional
        The operator's neutral element.  Unused by inclusive scans (the
        kernel needs none); accepted for PyCUDA compatibility.
    name_prefix : str, optional
        Prefix of the kernel's name.
    options : list of str, optional
        Extra compiler options.
    preamble : str, optional
        Source placed before the kernel (helper functions for
        ``scan_expr``).

    Notes
    -----
    Call as ``knl(input_ary, output_ary=None, allocator=None, stream=None)``;
    like PyCUDA, the scan is in place unless ``output_ary`` is given (or
    ``"new"``), and the output array is returned.  One pass over the data
    (decoupled look-back), any size; see ``docs/performance/scan.md``.

    Examples
    --------
    >>> knl = InclusiveScanKernel(np.int32, "a+b")
    >>> a = gpuarr.to_gpu(np.arange(5, dtype=np.int32))
    >>> knl(a).get()
    array([ 0,  1,  3,  6, 10], dtype=int32)
    """

    _exclusive = False


class ExclusiveScanKernel(_ScanKernelBase):
    """Exclusive prefix scan (PyCUDA's form).

    ``out[0] = neutral`` and ``out[i] = x[0] op ... op x[i-1]``.

    Parameters are those of :class:`InclusiveScanKernel`, except that
    ``neutral`` is required (ValueError without it).

    Parameters
    ----------
    dtype : dtype-like
        The dtype of input, output and the operator (float16 computes in
        float32).
    scan_expr : str
        Associative C expression combining ``a`` (earlier) and ``b``
        (later), e.g. ``"a+b"``.
    neutral : str or number
        The operator's neutral element: the first output.  A number or
        bool is written into the source as a C literal.  Required, though
        the signature (PyCUDA's) gives it a default.
    name_prefix : str, optional
        Prefix of the kernel's name (a C identifier); the kernel is named
        ``<name_prefix>_exclusive``.
    options : list of str, optional
        Extra compiler options.
    preamble : str, optional
        Source placed before the kernel.

    Raises
    ------
    ValueError
        Without ``neutral``, for an empty ``scan_expr`` or a
        ``name_prefix`` that is not a C identifier.
    TypeError
        For a ``neutral``, ``preamble`` or ``options`` of the wrong type,
        or an unsupported dtype.

    Notes
    -----
    Called as :class:`InclusiveScanKernel` is: in place unless
    ``output_ary`` is given, returning the output array.

    Examples
    --------
    >>> knl = ExclusiveScanKernel(np.int32, "a+b", 0)
    >>> a = gpuarr.to_gpu(np.arange(5, dtype=np.int32))
    >>> knl(a).get()
    array([0, 0, 1, 3, 6], dtype=int32)
    """

    _exclusive = True
