"""Kernel builders of sorting and searching (layer 4).

Every kernel is rendered from ``sort.cu.mako`` (the dense unique's from
``unique_dense.cu.mako``) and described without a
device by a :class:`~gpuarr._kernelspec.KernelSpec` (the CPU tests render
and compile each of them); :func:`function` compiles one once per context.

``radix_specs``
    The two kernels of the LSD radix sort (8-bit digits): the global
    histogram of every pass (``hist``, read back once so that passes whose
    digit is the same for every key are skipped), then one launch per
    pass (``onesweep``: a stable scatter whose tiles find the digit counts
    of the tiles before them by a decoupled look-back), keys alone or with
    int64 values.  Rows of ``L``
    elements sort independently by sorting on (row, key): the row of a
    carried flat index is the most significant digit group.
``wsort_spec``
    A bitonic sort of (key << 32 | position) words in one warp's
    registers, a warp per row, for rows of at most :data:`WARP_SORT_MAX`
    elements of keys of at most 32 bits (this includes small 1-d arrays).
``block_spec``
    A bitonic sort of (key, position) pairs in one block's shared memory,
    one block per row, for the other rows of at most
    :func:`block_capacity` elements.
``finish_spec``, ``mask_spec``, ``compact_spec``, ``search_spec``
    Flat indices to positions in their rows (argsort of rows), unique's run
    starts and compaction, searchsorted's binary search.
``dense_specs``
    unique of integers spanning a small range without a sort: a bitmap
    of the range (``unique_dense.cu.mako``), its words' popcounts summed,
    every set bit written at its rank.

The order of every kernel is numpy's (``kind='stable'``): see the
template's header for the key made from each dtype's bits.  Like the other
builders, nothing here imports the array layer.
"""

import numpy as np

from . import _dtypes, _percontext
from ._enums import device_attribute
from ._kernelspec import KernelSpec

__all__ = ["BLOCK", "elem_kind", "key_passes", "items", "tile",
           "block_capacity", "key_size", "radix_specs", "block_spec",
           "block_launch", "warp_sort_ok", "wsort_spec", "wsort_launch",
           "wsort_swizzle", "wsort_word_bytes", "WARP_SORT_MAX", "ROW_SORT",
           "finish_spec", "mask_spec", "compact_spec", "search_spec",
           "run_items", "run_specs", "run_tiles",
           "dense_ok", "dense_specs", "DENSE_MIN", "DENSE_SPAN",
           "DENSE_SAMPLE",
           "DENSE_LIMIT",
           "function", "grid", "multiprocessors", "ntiles", "row_passes",
           "STATUS32_LIMIT", "VALUES32_LIMIT", "status_bytes",
           "radix_passes", "radix_plan"]

#: threads per block of the radix, histogram and elementwise kernels
BLOCK = 256
#: radix sorts of at most this many elements use 32-bit status words (a
#: count in 30 bits under a 2-bit flag); larger ones 64-bit words
STATUS32_LIMIT = 2 ** 30 - 1
_BLOCK_MAX_THREADS = 512


def elem_kind(dtype):
    """``(tkind, bits)`` of a supported dtype: the template's kind letter
    (``"b"``, ``"i"``, ``"u"``, ``"f"``, ``"c"``) and the bits of a scalar
    or of one part of a complex value.

    Raises
    ------
    TypeError
        For a dtype gpuarr does not support.
    """
    dt = _dtypes.check_supported(dtype)
    if dt.kind == "c":
        return "c", dt.itemsize * 4
    return dt.kind, dt.itemsize * 8


def key_passes(dtype):
    """Radix passes of a key of ``dtype``: its bytes (bool: 1; complex:
    both parts' bytes and one for the NaN class)."""
    tk, bits = elem_kind(dtype)
    if tk == "c":
        return 2 * (bits // 8) + 1
    return 1 if tk == "b" else bits // 8


def row_passes(rows):
    """Radix passes sorting by a row number below ``rows``: its bytes."""
    r = max(int(rows) - 1, 0)
    return (r.bit_length() + 7) // 8


#: how the onesweep pass ranks a tile: "early_half" (each warp's digit
#: counts first, by shared atomics; the tile's counts published and the
#: warps' starts known before the ranking, which places each element by
#: its digit leader's atomic: CUB's onesweep order; a digit's peers by
#: four ballots for its low bits and one __match_any_sync for its high
#: four), "early" (the same, eight ballots), "early_match" (the same, one
#: match), "ballot" (the ranking first, each round reading and writing
#: the warp's count between two warp barriers; eight ballots) or "match"
#: (the same with one match).  H100, benchmarks/sweep_sort.py, one process
#: each (twenty-second session, calls 2 and 3): sort 2**28 f32 ballot 8.47
#: ms (28 items, two blocks an SM), early 6.90, early_half 6.66,
#: early_match 9.43 (24 items, three blocks); argsort 2**26 f32 ballot
#: 3.48, early 2.92-2.96, early_half 2.97, early_match 3.18; CuPy 7.19 and
#: 3.63.  The ballots' logic fills the ALU pipe (ncu: 82%), MATCH runs
#: elsewhere but slowly: half and half balances them
RANK = "early_half"


def items(dtype, kv=False):
    """Elements per thread of a radix tile (tile = 256 * items): 24 for
    keys of 2 to 4 bytes alone (with three blocks an SM; see :data:`RANK`
    for the sweep: 22 items 6.72 ms, 18 at four blocks 7.05, 28 at two
    7.24, against 24's 6.66-6.79), 16 for 1-byte keys alone (with 20,
    ptxas spills for them at three blocks an SM) and for other keys of up
    to 8 bytes or with values, 8 for 16-byte elements (so that the staged
    tile fits the 48 KB of static shared memory)."""
    isz = np.dtype(dtype).itemsize
    if isz > 8:
        return 8
    return 24 if 1 < isz <= 4 and not kv else 16


def blocks(dtype, kv=False):
    """Blocks an SM the onesweep pass's registers are bounded for: three
    for keys of up to 4 bytes alone (80 registers a thread, no spills with
    the early counts), else two."""
    return 3 if np.dtype(dtype).itemsize <= 4 and not kv else 2


def tile(dtype, kv=False):
    """Elements of a radix tile."""
    return BLOCK * items(dtype, kv)


def ntiles(n, dtype, kv=False):
    """Radix tiles over ``n`` elements."""
    t = tile(dtype, kv)
    return -(-n // t)


def block_capacity(dtype):
    """The longest row the one-block sort takes: 2048 elements, 1024 for
    complex dtypes (whose keys are larger)."""
    return 1024 if np.dtype(dtype).kind == "c" else 2048


def key_size(dtype):
    """Bytes of the block sort's key of ``dtype`` (``sizeof(ga_key)``)."""
    tk, bits = elem_kind(dtype)
    w = 8 if bits == 64 else 4
    if tk == "c":
        return 3 * 8 if w == 8 else 3 * 4
    return w


def _spec(kernel, dtype, chars, **extra):
    tk, bits = elem_kind(dtype)
    spec = KernelSpec("sort.cu.mako")
    spec.path = kernel
    spec.name = "gpuarr_sort_%s" % kernel
    kv = extra.get("kv", False)
    kw = dict(name=spec.name, kernel=kernel, tkind=tk, bits=bits, kv=False,
              off_t="unsigned int", items=items(dtype, kv), rank=RANK,
              blocks=blocks(dtype, kv), np2=0, warps=0, wbits=0,
              swz=(0, 0, 0), vin_t="long long", vout_t="long long")
    kw.update(extra)
    spec.render_kw = kw
    spec.kkey = (kernel, tk, bits, kw["kv"], kw["off_t"], kw["items"],
                 kw["rank"], kw["blocks"], kw["vin_t"], kw["vout_t"])
    spec.chars = chars
    spec.block = (BLOCK, 1, 1)
    spec.grid = None
    spec.tail = ()
    return spec


#: radix sorts of at most this many elements carry uint32 values (flat
#: indices) through their passes, widened to int64 by the last one
VALUES32_LIMIT = 2 ** 32


def radix_specs(dtype, kv, wide, narrow=False):
    """The radix sort's kernels for keys of ``dtype``.

    Parameters
    ----------
    dtype : numpy.dtype
        The keys' dtype (moved as raw bits).
    kv : bool
        Whether values travel with the keys (argsort, rows).
    wide : bool
        64-bit status words (``n > STATUS32_LIMIT``).
    narrow : bool
        The values are uint32 between passes (``n <=``
        :data:`VALUES32_LIMIT`), else int64.

    Returns
    -------
    dict
        ``"hist"`` (arguments: keys, n, L, row passes, histogram of
        ``(key_passes + row passes) * 256`` uint64 zeroed first),
        ``"onesweep"`` (keys in, keys out, values in or 0 (then the
        flat indices), values out or 0, the pass's 256 counts of the
        histogram, the pass's status words (zeroed), the next pass's
        status words (zeroed here), a uint32 tile counter (zeroed), n,
        pass, L; grid :func:`ntiles`) and ``"onesweep_last"``, the same
        pass writing int64 values (the same kernel unless ``narrow``):
        each a KernelSpec with grid None.
    """
    off = "unsigned long long" if wide else "unsigned int"
    vt = "unsigned int" if kv and narrow else "long long"

    def onesweep(vout_t):
        return _spec("onesweep", dtype, "PPPPPPPPqiQ", off_t=off, kv=kv,
                     vin_t=vt, vout_t=vout_t)
    mid = onesweep(vt)
    return {
        "hist": _spec("hist", dtype, "PqQiP"),
        "onesweep": mid,
        "onesweep_last": mid if vt == "long long" else onesweep("long long"),
    }


def radix_passes(hist, n, kp, rp):
    """The passes a radix sort runs, from its global histogram ``hist``
    (``(kp + rp, 256)`` counts of ``n`` elements: ``kp`` key digits, then
    ``rp`` row digits): those whose digit is not the same for every
    element; none when no key digit varies (the elements are in order,
    and so are the rows)."""
    run = [p for p in range(kp) if hist[p].max() < n]
    if run:
        run += [kp + q for q in range(rp) if hist[kp + q].max() < n]
    return run


def radix_plan(m, kv, narrow, positions=True):
    """The buffers of a radix sort's ``m`` passes, by name: for each pass
    ``(kernel, keys in, keys out, values in, values out)``, the kernel a
    key of :func:`radix_specs`, the buffers ``"src"`` (the input),
    ``"kfinal"`` and ``"ktmp"`` (keys: the passes alternate between them
    so that the last ends in ``kfinal``), ``"vfinal"`` (int64 values:
    the last pass's, and every other pass's unless ``narrow``), ``"vtmp0"``
    and ``"vtmp1"`` (uint32 values between passes when ``narrow``, else
    ``"vtmp0"`` alone, int64), or None (no values, or the first pass's
    values in: the flat indices).  ``positions`` False (rows sorted for
    their keys alone, values carried only for the row digits): a
    ``narrow`` sort's last pass writes no values (8 bytes an element
    saved)."""
    plan = []
    kin, vin = "src", None
    for i in range(m):
        into_final = (m - 1 - i) % 2 == 0
        kout = "kfinal" if into_final else "ktmp"
        vout = None
        if kv and narrow and i == m - 1:
            vout = "vfinal" if positions else None
        elif kv and narrow:
            vout = "vtmp%d" % (i % 2)
        elif kv:
            vout = "vfinal" if into_final else "vtmp0"
        plan.append(("onesweep_last" if i == m - 1 else "onesweep",
                     kin, kout, vin, vout))
        kin, vin = kout, vout
    return plan


def status_bytes(n, dtype, kv=False):
    """Bytes of one pass's status words of a radix sort of ``n``
    elements: 256 words a tile, 4 bytes each (8 past
    :data:`STATUS32_LIMIT`)."""
    return ntiles(n, dtype, kv) * 256 * (8 if n > STATUS32_LIMIT else 4)


def block_spec(dtype):
    """The one-block bitonic sort of rows (arguments: source, sorted
    values out or 0, positions out or 0, rows, L, np2; dynamic shared
    memory :func:`block_launch` gives)."""
    return _spec("block", dtype, "PPPqii")


def block_launch(dtype, rows, L):
    """``(grid, block, shared bytes, np2)`` of a :func:`block_spec` launch
    over ``rows`` rows of ``L <= block_capacity(dtype)`` elements: ``np2``
    the power of two at least ``L`` and 8 (the kernel's runs of 8), a
    thread a run (at least a warp), the pairs in shared memory with a word
    skipped every 32."""
    np2 = _pow2_at_least(L, 8)
    threads = max(32, min(_BLOCK_MAX_THREADS, np2 // 8))
    shared = (np2 + np2 // 32) * (key_size(dtype) + 4)
    return ((max(1, min(rows, 2 ** 31 - 1)), 1, 1), (threads, 1, 1), shared,
            np2)


#: the longest row the warp sort takes (32 registers of 64 bits a lane)
WARP_SORT_MAX = 1024
#: which kernel sorts rows it may take: "warp" (:func:`wsort_spec`) or
#: "block" (:func:`block_spec`, the one before it; kept for comparison in
#: benchmarks/sweep_sort.py)
ROW_SORT = "warp"


def warp_sort_ok(dtype, L):
    """Whether :func:`wsort_spec` sorts rows of ``L`` elements of
    ``dtype``: keys of at most 32 bits (not complex), ``L <=``
    :data:`WARP_SORT_MAX`, and :data:`ROW_SORT` ``"warp"``."""
    tk, bits = elem_kind(dtype)
    return (ROW_SORT == "warp" and tk != "c" and bits <= 32
            and L <= WARP_SORT_MAX)


def _pow2_at_least(L, least):
    """The smallest power of two that is at least ``L`` and ``least``."""
    return max(least, 1 << max(int(L) - 1, 0).bit_length())


def _wsort_np2(L):
    return _pow2_at_least(L, 32)


def _wsort_warps(np2):
    return max(1, min(8, 2048 // np2))


def wsort_word_bytes(dtype):
    """Bytes of the warp sort's word (key and position): 4 for keys of at
    most 16 bits (``key << 16 | position``), else 8 (``key << 32 |
    position``)."""
    return 4 if elem_kind(dtype)[1] <= 16 else 8


def wsort_swizzle(np2, word_bytes):
    """``(wlog, shift, mask)`` of the warp sort's shared-memory swizzle for
    rows of capacity ``np2`` and words of ``word_bytes``: with ``W = 2 **
    wlog`` words a 128-byte bank row, element ``i``'s word is at ``(i &
    ~(W - 1)) | ((i & (W - 1)) ^ (((i >> wlog) >> shift) & mask))``, so
    that the words a warp reads or writes in either layout (lane ``l`` at
    element ``l * (np2 // 32) + e`` or at ``32 * m + l``) fall in distinct
    banks: 32 of 4-byte words, or 16 pairs a half-warp of 8-byte ones
    (served a half-warp at a time)."""
    r = np2 // 32
    if word_bytes == 4:
        return 5, 0, r - 1
    return 4, max(0, (r // 16).bit_length() - 1), min(r, 16) - 1


def wsort_spec(dtype, L):
    """The warp-per-row bitonic sort of rows of ``L`` elements (see
    :func:`warp_sort_ok`), rendered for the power of two ``np2 >= L`` (at
    least 32): the same arguments as :func:`block_spec`; launch by
    :func:`wsort_launch`."""
    np2 = _wsort_np2(L)
    wb = wsort_word_bytes(dtype)
    wlog, shift, mask = wsort_swizzle(np2, wb)
    spec = _spec("wsort", dtype, "PPPqii", np2=np2, warps=_wsort_warps(np2),
                 wbits=8 * wb, swz=(wlog, shift, mask))
    spec.kkey += (np2,)
    return spec


def wsort_launch(dtype, rows, L, max_blocks=2 ** 31 - 1):
    """``(grid, block, shared bytes, np2)`` of a :func:`wsort_spec` launch
    over ``rows`` rows of ``L`` elements: a warp a row (the warps stride
    over the rows when there are more than ``max_blocks`` blocks' worth),
    blocks of ``max(1, min(8, 2048 // np2))`` warps, a word
    (:func:`wsort_word_bytes`) and a raw element of shared memory an
    element of capacity."""
    np2 = _wsort_np2(L)
    w = _wsort_warps(np2)
    shared = w * np2 * (wsort_word_bytes(dtype) + np.dtype(dtype).itemsize)
    return ((max(1, min(-(-rows // w), max_blocks)), 1, 1), (32 * w, 1, 1),
            shared, np2)


def finish_spec():
    """``out[e] = (vin[e] or e) % L`` over int64 (arguments: vin or 0, out,
    n, L)."""
    return _spec("finish", np.uint64, "PPqQ")


def mask_spec(dtype):
    """unique's run starts (arguments: sorted values, uint8 flags out, n,
    equal_nan)."""
    return _spec("mask", dtype, "PPqi")


def compact_spec(dtype, wide=False):
    """unique's compaction (arguments: sorted values, permutation, the
    flags' inclusive sum (int32, or int64 when ``wide``), n, then unique
    values, index, inverse, starts, ends, each an address or 0)."""
    return _spec("compact", dtype, "PPPqPPPPP",
                 off_t="long long" if wide else "int")


def run_items(dtype):
    """Elements a thread of unique's run kernels (:func:`run_specs`)
    takes: 64 bytes' worth, at most 32 (a bit each in a 32-bit word)."""
    return min(32, 64 // np.dtype(dtype).itemsize)


def run_specs(dtype):
    """unique's two passes over the sorted values when only the values
    are asked for, by name: ``"runcount"`` (sorted values, n, equal_nan,
    int64 count of run starts a tile out) and ``"runselect"`` (sorted
    values, n, equal_nan, the counts' inclusive sum, unique values out).
    A tile is :data:`BLOCK` threads of :func:`run_items` elements, one
    block a tile (:func:`run_tiles`); the sorted values' address must be
    a multiple of 16 bytes."""
    k = run_items(dtype)
    return {"runcount": _spec("runcount", dtype, "PqiP", items=k),
            "runselect": _spec("runselect", dtype, "PqiPP", items=k)}


def run_tiles(dtype, n):
    """Blocks (tiles) of :func:`run_specs`' kernels over ``n`` elements."""
    return -(-n // (BLOCK * run_items(dtype)))


#: unique takes the bitmap path (:func:`dense_specs`) for integers and
#: bools of at least this many elements whose keys span at most
#: :data:`DENSE_SPAN` times as many values as there are elements
DENSE_MIN = 1 << 15
DENSE_SPAN = 2
#: values of a strided sample whose span is read before the exact range
#: (a sample spanning too much already rules the bitmap path out)
DENSE_SAMPLE = 1024
#: the dense path counts in 32 bits: fewer elements than this
DENSE_LIMIT = 2 ** 32


def dense_ok(dtype, n):
    """Whether :func:`dense_specs` applies to ``n`` elements of ``dtype``
    (before their range is known): bool or integer, ``DENSE_MIN <= n <
    DENSE_LIMIT``."""
    return (np.dtype(dtype).kind in "biu"
            and DENSE_MIN <= n < DENSE_LIMIT)


def dense_specs(dtype, wide=False):
    """The kernels of unique by a bitmap over the keys' range
    (``unique_dense.cu.mako``), by name:

    ``"minmax"``
        (values, n, two uint64 words: the least and greatest key; the
        caller sets them to all ones and 0 first).
    ``"mark"``
        (values, n, least key, bitmap or 0, uint32 counts or 0): the
        bitmap of ``R`` bits, or the counts of ``R`` words, zeroed first.
    ``"words"``
        (bitmap, counts or 0, number of 32-bit words, R, int32 popcount a
        word out): from the counts also the bitmap; over ``words * 32``
        threads.
    ``"emit"``
        (bitmap, inclusive sum of the popcounts (int32, or int64 when
        ``wide``), R, least key, unique values out, counts or 0, int64
        counts out or 0): over ``R`` threads.
    ``"inverse"``
        (values, n, least key, bitmap, the sum, int64 ranks out).

    The key of an element is its bits, the sign bit flipped for signed
    integers: numpy's order as an unsigned number.
    """
    dt = np.dtype(dtype)
    if dt.kind not in "biu":
        raise TypeError("no dense unique for %s" % dt)
    bits = 8 * dt.itemsize
    signed = dt.kind == "i"
    off_t = "long long" if wide else "int"
    chars = {"minmax": "PqP", "mark": "PqQPP", "words": "PPqQP",
             "emit": "PPQQPPP", "inverse": "PqQPPP"}
    specs = {}
    for kernel, ch in chars.items():
        spec = KernelSpec("unique_dense.cu.mako")
        spec.path = "dense_" + kernel
        spec.name = "gpuarr_unique_%s" % kernel
        spec.render_kw = dict(name=spec.name, kernel=kernel, bits=bits,
                              signed=signed, off_t=off_t)
        spec.kkey = ("dense", kernel, bits, signed, off_t)
        spec.chars = ch
        spec.block = (BLOCK, 1, 1)
        spec.grid = None
        spec.tail = ()
        specs[kernel] = spec
    return specs


def search_spec(dtype):
    """searchsorted (arguments: sorted array, sorter or 0, its size,
    values, their number, int64 out, right)."""
    return _spec("search", dtype, "PPqPqPi")


class _State:
    __slots__ = ("kernels", "nsm")

    def __init__(self, nsm):
        self.kernels = {}
        self.nsm = nsm


def _new_state(ctx):
    dev = ctx.get_device()
    return _State(int(dev.get_attribute(
        device_attribute.MULTIPROCESSOR_COUNT)))


_state = _percontext.state(_new_state)


def function(spec):
    """The current context's compiled kernel of ``spec`` (built on first
    use and kept with its module, keyed by ``spec.kkey``).

    Returns
    -------
    gpuarr.driver.Function
    """
    kernels = _state().kernels
    ent = kernels.get(spec.kkey)
    if ent is None:
        ent = kernels[spec.kkey] = spec.build()
    return ent[0]


def multiprocessors():
    """The current device's multiprocessor count."""
    return _state().nsm


def grid(n, per_sm=8):
    """A grid-stride launch's grid over ``n`` items: enough blocks of
    :data:`BLOCK` threads, at most ``per_sm`` per multiprocessor."""
    return (max(1, min(-(-n // BLOCK), _state().nsm * per_sm)), 1, 1)
