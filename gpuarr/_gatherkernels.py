"""The kernel builder of axis-separable gathers (layer 4): ``pad``,
per-element ``repeat``, ``tril`` and ``triu`` of the array layer.

``gather.cu.mako`` writes every element of a C-contiguous output in one
launch.  Each output axis maps its coordinate to a source coordinate on
its own: a centre copied as it is (``x = c - lo``) and, around it, a table
of source coordinates or constant marks computed here with numpy
(:func:`pad_sources`, :func:`repeat_sources`).  This module plans the
launch without a device (:func:`gather_plan`: merging the plain axes,
the table, the trailing arguments) and describes the kernel as a
:class:`~gpuarr._kernelspec.KernelSpec` (:func:`gather_spec`), which the
CPU tests render and compile; the array layer compiles it once per
context through :func:`gpuarr._joinkernels.function` and launches it on
:func:`gpuarr._joinkernels.gather_grid`.

Like the other builders, nothing here imports the array layer.
"""

import numpy as np

from . import _layout
from ._joinkernels import BLOCK
from ._kernelspec import KernelSpec

__all__ = ["PAD_MODES", "Axis", "pad_sources", "repeat_sources",
           "plain_axes", "pad_axes", "repeat_axes", "gather_plan",
           "gather_spec", "constant_words", "TRIL", "TRIU"]

#: the padding modes of :func:`pad_sources` (numpy.pad's names)
PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")
#: ``tri`` codes of the kernel
TRIL, TRIU = 1, 2
_UNITS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int",
          8: "unsigned long long", 16: "ga_unit16"}
_I64 = np.dtype(np.int64)
# the largest output index of a 32-bit launch (a grid stride past it fits)
_INT_LIMIT = _layout.INT32_MAX - 2 ** 24


class Axis:
    """One output axis of a gather.

    Attributes
    ----------
    n : int
        The output's length.
    lo : int
        Where the centre starts (output coordinates ``lo .. lo + nc - 1``
        read source coordinates ``0 .. nc - 1``).
    nc : int
        The centre's length.
    stride : int
        The source's stride along the axis, in items (any sign).
    before, after : numpy.ndarray
        int64 source coordinates of the ``lo`` output coordinates before
        the centre and the ``n - lo - nc`` after it; an entry ``-1 - m``
        (negative) takes constant ``m`` instead.
    """

    __slots__ = ("n", "lo", "nc", "stride", "before", "after", "keep")

    def __init__(self, n, lo, nc, stride, before=None, after=None):
        self.n, self.lo, self.nc, self.stride = n, lo, nc, stride
        self.keep = False           # gather_plan: not to be merged
        self.before = _ints(before, lo)
        self.after = _ints(after, n - lo - nc)

    @property
    def plain(self):
        """Whether every output coordinate is its source coordinate."""
        return self.lo == 0 and self.nc == self.n

    def sources(self):
        """The source coordinate (or mark) of every output coordinate
        (numpy int64; what the kernel computes, for tests)."""
        return np.concatenate([self.before, np.arange(self.nc, dtype=_I64),
                               self.after])


def _ints(x, count):
    x = np.zeros(0, _I64) if x is None else np.asarray(x, _I64).reshape(-1)
    if x.size != count:
        raise ValueError("an axis table of %d entries where %d are needed"
                         % (x.size, count))
    return x


def pad_sources(mode, n, before, after, marks=(-1, -2)):
    """The source coordinates of the padding of one axis (numpy.pad's).

    Parameters
    ----------
    mode : str
        One of :data:`PAD_MODES`.
    n : int
        The axis' length in the source (at least 1 for modes other than
        ``"constant"``).
    before, after : int
        The padding widths (>= 0).
    marks : (int, int)
        The table entries of ``"constant"``'s two sides (negative).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        int64 source coordinates (or marks) of the ``before`` and the
        ``after`` padded positions, in order.

    Raises
    ------
    ValueError
        For an unknown mode, or an empty axis padded by another mode.
    """
    if mode not in PAD_MODES:
        raise ValueError("mode '%s' is not supported" % (mode,))
    if mode == "constant":
        return (np.full(before, marks[0], _I64), np.full(after, marks[1], _I64))
    if n < 1:
        raise ValueError("can't extend an empty axis using modes other "
                         "than 'constant' or 'empty'")
    # x: the position relative to the source's first element
    x = np.concatenate([np.arange(-before, 0, dtype=_I64),
                        np.arange(n, n + after, dtype=_I64)])
    if mode == "edge":
        x = np.clip(x, 0, n - 1)
    elif mode == "wrap":
        x = np.mod(x, n)
    elif n == 1:
        x = np.zeros_like(x)
    elif mode == "reflect":            # mirror about the edge elements
        p = 2 * (n - 1)
        x = np.mod(x, p)
        x = np.where(x < n, x, p - x)
    else:                              # symmetric: the edges repeat
        p = 2 * n
        x = np.mod(x, p)
        x = np.where(x < n, x, p - 1 - x)
    return x[:before], x[before:]


def repeat_sources(repeats):
    """The source coordinate of every output coordinate of a repeat.

    Parameters
    ----------
    repeats : numpy.ndarray
        Non-negative integers, one per source coordinate.

    Returns
    -------
    numpy.ndarray
        int64 of length ``repeats.sum()``: coordinate ``j`` repeated
        ``repeats[j]`` times.
    """
    return np.repeat(np.arange(len(repeats), dtype=_I64), repeats)


def plain_axes(shape, strides):
    """Axes copying a source of ``shape`` and ``strides`` (in items) as it
    is (tril/triu).

    Returns
    -------
    list of Axis
    """
    return [Axis(n, 0, n, s) for n, s in zip(shape, strides)]


def pad_axes(shape, strides, widths, mode):
    """The axes of numpy.pad of a source of ``shape`` and ``strides`` (in
    items).

    Parameters
    ----------
    shape, strides : sequence of int
    widths : sequence of (int, int)
        ``(before, after)`` per axis, >= 0.
    mode : str
        One of :data:`PAD_MODES`; ``"constant"``'s marks name constant
        ``2 * axis`` (before) and ``2 * axis + 1`` (after).

    Returns
    -------
    list of Axis

    Raises
    ------
    ValueError
        As :func:`pad_sources`.
    """
    axes = []
    for d, (n, s, (b, e)) in enumerate(zip(shape, strides, widths)):
        before = after = None
        if b or e:
            before, after = pad_sources(mode, n, b, e, (-1 - 2 * d, -2 - 2 * d))
        axes.append(Axis(n + b + e, b, n, s, before, after))
    return axes


def repeat_axes(shape, strides, axis, counts):
    """The axes of numpy.repeat by per-element ``counts`` along ``axis``.

    Returns
    -------
    list of Axis
    """
    axes = plain_axes(shape, strides)
    src = repeat_sources(counts)
    axes[axis] = Axis(src.size, 0, 0, strides[axis], after=src)
    return axes


def constant_words(values, itemsize):
    """The table words holding constants of ``itemsize`` bytes.

    Parameters
    ----------
    values : numpy.ndarray
        1-d, of the output's dtype.
    itemsize : int

    Returns
    -------
    numpy.ndarray
        int64: each value's bytes in one word (two for 16-byte items), the
        rest zero.
    """
    w = 2 if itemsize > 8 else 1
    raw = np.zeros((len(values), 8 * w), np.uint8)
    raw[:, :itemsize] = np.ascontiguousarray(values).view(np.uint8).reshape(
        len(values), itemsize)
    return raw.view(_I64).reshape(-1)


def gather_plan(axes, keep=0):
    """Merge the plain axes of a gather and lay out its table.

    Parameters
    ----------
    axes : sequence of Axis
        The output's axes in order.
    keep : int
        How many trailing axes stay as they are (2 for tril/triu, whose
        kernel reads the last two coordinates).

    Returns
    -------
    (list of Axis, numpy.ndarray, list of int)
        The merged axes (at least two: leading length-1 ones are added),
        the table (int64: every axis' ``before`` then ``after`` entries)
        and each merged axis' first table entry.
    """
    merged = []
    for k, ax in enumerate(axes):
        last = k >= len(axes) - keep
        if not last and ax.plain and ax.n == 1:
            continue                     # a length-1 plain axis: no effect
        if (merged and not last and ax.plain and merged[-1].plain
                and merged[-1].stride == ax.n * ax.stride
                and not merged[-1].keep):
            prev = merged[-1]
            prev.n, prev.nc, prev.stride = prev.n * ax.n, prev.n * ax.n, \
                ax.stride
            continue
        m = Axis(ax.n, ax.lo, ax.nc, ax.stride, ax.before, ax.after)
        m.keep = last
        merged.append(m)
    while len(merged) < 2:
        merged.insert(0, Axis(1, 0, 1, 0))
    bases, parts, at = [], [], 0
    for m in merged:
        bases.append(at)
        parts += [m.before, m.after]
        at += m.before.size + m.after.size
    table = np.concatenate(parts) if at else np.zeros(0, _I64)
    return merged, table, bases


def gather_spec(itemsize, axes, bases, size, tri=0, k=0, cbase=0):
    """The launch of one gather.

    Parameters
    ----------
    itemsize : int
        1, 2, 4, 8 or 16 (items move as raw units).
    axes : sequence of Axis
        :func:`gather_plan`'s merged axes (at least two).
    bases : sequence of int
        Their first table entries.
    size : int
        The output's number of elements (> 0).
    tri : int
        0, :data:`TRIL` or :data:`TRIU`.
    k : int
        The diagonal of tril/triu.
    cbase : int
        The table entry where the constants start.

    Returns
    -------
    KernelSpec
        Argument format: source, output and table addresses (P), then
        :attr:`KernelSpec.tail` (``tri``, ``k``, ``cbase``, ``size``, and
        per axis its length, ``lo``, ``nc``, stride and table base).  The
        caller launches it on :func:`gpuarr._joinkernels.gather_grid`.

    Raises
    ------
    ValueError
        For an item size with no unit, or fewer than two axes.
    """
    if itemsize not in _UNITS:
        raise ValueError("no gather kernel for items of %r bytes"
                         % (itemsize,))
    ndim = len(axes)
    if ndim < 2:
        raise ValueError("a gather needs at least two axes (gather_plan "
                         "adds them)")
    wide = size > _INT_LIMIT
    itype = "long long" if wide else "int"
    ic = "q" if wide else "i"
    spec = KernelSpec("gather.cu.mako")
    spec.path = "gather"
    spec.name = "gpuarr_gather"
    spec.kkey = ("gather", itemsize, ndim, itype)
    spec.render_kw = dict(name=spec.name, unit=_UNITS[itemsize],
                          words=2 if itemsize > 8 else 1, ndim=ndim,
                          itype=itype, block=BLOCK)
    spec.chars = "PPPiqq" + ic + (ic + "qqqq") * ndim
    tail = [int(tri), int(k), int(cbase), int(size)]
    for ax, b in zip(axes, bases):
        tail += [ax.n, ax.lo, ax.nc, ax.stride, b]
    spec.tail = tuple(int(x) for x in tail)
    spec.block = (BLOCK, 1, 1)
    spec.grid = None
    return spec
