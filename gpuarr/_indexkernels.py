"""Kernel builders of advanced indexing (layer 4).

The kernels of ``index.cu.mako``, each described without a device by a
:class:`~gpuarr._kernelspec.KernelSpec` (the CPU tests render and compile
them), compiled once per context (through
:func:`gpuarr._joinkernels.function`, whose per-context table they share)
and launched by the array layer (:mod:`gpuarr._indexing`,
:mod:`gpuarr._selection`):

- boolean masks: :func:`count_spec` counts the true elements of each tile
  of a C-contiguous bool mask, a scan of the counts (``cumsum``) gives
  each tile's first position, and :func:`select_spec` walks the tiles
  again, placing each selected element (gather, scatter, coordinates as
  ``nonzero`` gives them, or element offsets);
- integer arrays: :func:`offsets_spec` turns up to :data:`MAX_ARRAYS`
  broadcast index arrays into one element offset per index position,
  checking bounds; :func:`move_spec` gathers or scatters
  ``out[pre, b, post]`` through either one index array read directly or
  those offsets.

Values move as raw units of their item size; offsets and strides are in
elements.  Like the other builders, these take plain numbers and dtypes
and never import the array layer.
"""

import numpy as np

from . import _dtypes
from . import _joinkernels as _jk
from ._kernelspec import KernelSpec

__all__ = ["BLOCK", "TILE", "MAX_ARRAYS", "NO_BAD", "count_spec",
           "select_spec", "offsets_spec", "move_spec", "at_spec", "AT_OPS",
           "tiles", "grid", "move_grid", "MOVE_STREAM",
           "MOVE_BLOCKS_PER_SM", "function"]

#: threads per block of every kernel here
BLOCK = 256
#: mask elements (bytes) per tile of the count and select kernels
TILE = BLOCK * 16
#: index arrays one offsets kernel combines
MAX_ARRAYS = 32
#: the "no bad index" value of a flag word (all ones)
NO_BAD = _jk.NO_BAD
#: whether gathers and scatters (:func:`move_spec`) load their index array
#: or offsets, and gathers store their output, with the streaming
#: (evict-first) hints, as takes do (:data:`gpuarr._joinkernels.TAKE_STREAM`)
MOVE_STREAM = True
#: blocks per multiprocessor of a gather or scatter launch at most (0: a
#: block per ``4 * BLOCK`` elements, no cap)
MOVE_BLOCKS_PER_SM = 0

_UNITS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
          8: "unsigned long long", 16: "ga_unit16"}
_MODES = ("raise", "wrap", "clip")
_ACTIONS = ("gather", "scatter", "coords", "offsets")

function = _jk.function


def _unit(itemsize):
    try:
        return _UNITS[itemsize]
    except KeyError:
        raise ValueError("no indexing kernel for items of %r bytes"
                         % (itemsize,)) from None


def _mode(mode):
    if mode not in _MODES:
        raise ValueError("clipmode must be one of 'clip', 'raise', or "
                         "'wrap' (got %r)" % (mode,))
    return mode


def _index_ctype(dt):
    dt = np.dtype(dt)
    if dt.kind not in "biu":
        raise TypeError("indices of dtype %s are not integers" % dt)
    return _dtypes.ctype(dt)


def _spec(kind, kkey, chars, **kw):
    spec = KernelSpec("index.cu.mako")
    spec.path = kind
    spec.kkey = ("index", kind) + kkey
    spec.name = "gpuarr_index_" + kind
    spec.render_kw = dict(name=spec.name, kind=kind, block=BLOCK, action="",
                          unit="", nd=0, idx_ts=(), mode="raise", adv="",
                          idx_t="", npre=0, npost=0, wide=False,
                          check_only=False, stream=False)
    spec.render_kw.update(kw)
    spec.chars = chars
    spec.block = (BLOCK, 1, 1)
    spec.grid = None
    spec.tail = ()
    return spec


def tiles(n):
    """The number of tiles (and blocks) of a count or select launch over
    a mask of ``n`` elements."""
    return -(-n // TILE)


def count_spec():
    """The kernel counting the true elements of each tile of a mask.

    Returns
    -------
    KernelSpec
        Arguments: the mask (P, C-contiguous bool, 16-byte aligned), its
        size (q), the counts (P, one int64 per tile).  Grid:
        ``(tiles(n), 1, 1)``.
    """
    return _spec("count", (), "PqP")


def select_spec(action, itemsize, nd):
    """The kernel placing the selected elements of a mask.

    Parameters
    ----------
    action : {"gather", "scatter", "coords", "offsets"}
        What each selected element ``e`` at result position ``pos`` does
        (see the template's header).
    itemsize : int
        Item size of the moved values (gather, scatter; else ignored).
    nd : int
        Dimensions of the mask (coords: its own; else merged with the
        indexed view's strides).

    Returns
    -------
    KernelSpec
        Arguments: mask (P), size (q), the inclusive scan of the tile
        counts (P), then gather: source, result (P, P); scatter:
        destination, values (P, P), value step (q); coords: output (P),
        position step (q), ``nd`` dimension steps (q); offsets: output
        (P); then per dimension its size and element stride (q, q).
    """
    if action not in _ACTIONS:
        raise ValueError("unknown select action %r" % (action,))
    moves = action in ("gather", "scatter")
    unit = _unit(itemsize) if moves else ""
    chars = "PqP" + {"gather": "PP", "scatter": "PPq",
                     "coords": "Pq" + "q" * nd, "offsets": "P"}[action]
    chars += "qq" * nd
    return _spec("select", (action, itemsize if moves else 0, nd), chars,
                 action=action, unit=unit, nd=nd)


def offsets_spec(index_dtypes, mode="raise", check_only=False):
    """The kernel combining index arrays into element offsets.

    Parameters
    ----------
    index_dtypes : sequence of numpy.dtype
        One per index array (bool or integer), at most :data:`MAX_ARRAYS`.
    mode : {"raise", "wrap", "clip"}
    check_only : bool
        Only look for a bad index (the offsets pointer is not written; a
        later kernel reads the index itself).

    Returns
    -------
    KernelSpec
        Arguments: the number of positions (q), the flag word (P), the
        offsets (P, int64), then per index array its pointer (P), the
        size of its axis (q) and that axis's element stride (q).
    """
    dts = tuple(np.dtype(d) for d in index_dtypes)
    if not 0 < len(dts) <= MAX_ARRAYS:
        raise ValueError("an offsets kernel combines 1 to %d index arrays"
                         % MAX_ARRAYS)
    cts = tuple(_index_ctype(d) for d in dts)
    return _spec("offsets", (dts, _mode(mode), bool(check_only)),
                 "qPP" + "Pqq" * len(dts), idx_ts=cts, mode=mode,
                 check_only=bool(check_only))


def move_spec(kind, itemsize, npre, npost, wide, index_dtype=None,
              mode="raise"):
    """The kernel gathering or scattering ``[pre, b, post]`` elements.

    Parameters
    ----------
    kind : {"gather", "scatter"}
    itemsize : int
        1, 2, 4, 8 or 16.
    npre, npost : int
        Dimensions before and after the indexed position (merged).
    wide : bool
        64-bit position arithmetic (for 2**31 elements or more).
    index_dtype : numpy.dtype or None
        None: positions take precomputed offsets; else the dtype of the
        one index array read directly (bounds checked by ``mode``).
    mode : {"raise", "wrap", "clip"}

    Returns
    -------
    KernelSpec
        Arguments: total elements (q), source (P), destination (P), index
        positions ``nb`` (q), then the index array (P), its axis size (q),
        axis stride (q) and flag word (P) -- or the offsets (P) -- then
        per pre and per post dimension its size and stride (q, q).  Specs
        are kept per argument set and setting.

    Raises
    ------
    ValueError
        For an unknown kind, item size or mode.
    TypeError
        For an index dtype that is not bool or integer.
    """
    return _jk.kept(_MOVE_SPECS, _move_spec, kind, itemsize, npre, npost,
                    bool(wide), index_dtype, mode, bool(MOVE_STREAM))


#: move_spec's results by its arguments and MOVE_STREAM (built once a
#: kind of call, as take_spec's are)
_MOVE_SPECS = {}


def _move_spec(kind, itemsize, npre, npost, wide, index_dtype, mode,
               stream):
    if kind not in ("gather", "scatter"):
        raise ValueError("kind must be 'gather' or 'scatter', not %r"
                         % (kind,))
    unit = _unit(itemsize)
    if index_dtype is None:
        adv, ct, kdt = "offsets", "", None
        chars = "qPPqP"
    else:
        kdt = np.dtype(index_dtype)
        adv, ct = "direct", _index_ctype(kdt)
        chars = "qPPqPqqP"
        _mode(mode)
    chars += "qq" * (npre + npost)
    return _spec(kind, (itemsize, npre, npost, wide, kdt, mode, stream),
                 chars, unit=unit, adv=adv, idx_t=ct, mode=mode, npre=npre,
                 npost=npost, wide=wide, stream=stream)


#: the operations of :func:`at_spec` (numpy's subtract.at adds the
#: negated values)
AT_OPS = ("add", "multiply", "maximum", "minimum")


def at_spec(dtype, op, npre, npost, wide, index_dtype=None, checked=False):
    """The unbuffered scatter of numpy's ``ufunc.at`` (``index_at.cu.mako``).

    Parameters
    ----------
    dtype : numpy.dtype
        The destination's (values are cast to it first).
    op : str
        One of :data:`AT_OPS`.
    npre, npost : int
        Merged dimensions before and after the index position.
    wide : bool
        64-bit position arithmetic.
    index_dtype : numpy.dtype or None
        None: positions take precomputed offsets; else the dtype of the one
        index array read directly (negative indices count from the end),
        already checked by an offsets kernel with ``check_only`` unless
        ``checked``.
    checked : bool
        With ``index_dtype``: the kernel checks each index itself, skips a
        bad one and keeps the first bad position in a flag word (an extra
        argument), as :func:`offsets_spec`'s check does; the caller scatters
        into a scratch copy of the destination, to keep numpy's "nothing
        written" on an IndexError.

    Returns
    -------
    KernelSpec
        Arguments: total elements (q), values (P, C-contiguous over
        ``(pre, b, post)``), destination (P), index positions (q), then the
        offsets (P) -- or the index array (P), its axis size (q) and axis
        element stride (q), and with ``checked`` the flag word (P) -- then
        per pre and post dimension its size and element stride.

    Raises
    ------
    NotImplementedError
        For complex128 with an op other than add (no 16-byte atomic).
    ValueError
        For an unknown op, or a 1-byte dtype (no atomics that small:
        :func:`gpuarr._indexing.ufunc_at` updates a 4-byte copy).
    """
    dt = np.dtype(dtype)
    if op not in AT_OPS:
        raise ValueError("no unbuffered scatter for %r" % (op,))
    if dt.itemsize == 1:
        raise ValueError("no unbuffered scatter into 1-byte items (update "
                         "a 4-byte copy)")
    if dt.itemsize == 16 and op != "add":
        raise NotImplementedError(
            "%s.at on complex128 is not supported (it needs a 16-byte "
            "atomic)" % op)
    spec = KernelSpec("index_at.cu.mako")
    spec.path = "at"
    idt = None if index_dtype is None else np.dtype(index_dtype)
    checked = bool(checked) and idt is not None
    spec.kkey = ("index", "at", dt, op, npre, npost, bool(wide), idt,
                 checked)
    spec.name = "gpuarr_index_at"
    spec.render_kw = dict(name=spec.name, dt=dt, op=op, npre=npre,
                          npost=npost, wide=bool(wide), block=BLOCK,
                          idx_t="" if idt is None else _index_ctype(idt),
                          checked=checked)
    spec.chars = ("qPPqP" + ("" if idt is None else "qq")
                  + ("P" if checked else "") + "qq" * (npre + npost))
    spec.block = (BLOCK, 1, 1)
    spec.grid = None
    spec.tail = ()
    return spec


def grid(n):
    """The grid of an offsets or ``ufunc.at`` launch over ``n`` positions:
    :func:`gpuarr._joinkernels.gather_grid`'s."""
    return _jk.gather_grid(n)


def move_grid(n):
    """The grid of a :func:`move_spec` launch over ``n`` elements (four a
    thread and step): a block per ``4 * BLOCK`` elements, at most
    :data:`MOVE_BLOCKS_PER_SM` a multiprocessor (0: no such cap)."""
    return _jk.capped_grid(-(-n // (4 * BLOCK)), MOVE_BLOCKS_PER_SM)
