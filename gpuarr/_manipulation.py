"""Function forms of the array's shape methods and numpy's shape
manipulation functions (layer 5): ``reshape``, ``ravel``, ``transpose``,
``swapaxes``, ``squeeze``, ``expand_dims``, ``broadcast_to``, ``astype``,
and the views numpy makes by rearranging axes: ``flip``, ``fliplr``,
``flipud``, ``rot90``, ``moveaxis``, ``rollaxis``, ``atleast_1d/2d/3d``,
``split``, ``array_split``, ``hsplit``, ``vsplit``, ``dsplit``,
``diagonal``.  All give views where numpy gives views.
"""

import operator

import numpy as np

from . import _placement
from . import _creation, _layout

__all__ = ["astype", "reshape", "ravel", "transpose", "swapaxes", "squeeze",
           "expand_dims", "broadcast_to", "flip", "fliplr", "flipud", "rot90",
           "moveaxis", "rollaxis", "atleast_1d", "atleast_2d", "atleast_3d",
           "array_split", "split", "hsplit", "vsplit", "dsplit", "diagonal",
           "unstack"]


def astype(a, dtype, copy=True):
    """Function form of :meth:`GPUArray.astype` (numpy 2's ``numpy.astype``).

    Parameters
    ----------
    a : GPUArray
        The array to cast.
    dtype : dtype-like
        The target dtype, any gpuarr supports; the values convert as
        numpy's unsafe cast does (float to int truncates, ...).
    copy : bool, optional
        True (default): always a new array.  False: ``a`` itself when it
        already has ``dtype``, else a new array.

    Returns
    -------
    GPUArray
        Of ``a``'s shape and ``dtype``; F order for an F- but not
        C-contiguous ``a``, else C order.

    Raises
    ------
    TypeError
        If ``dtype`` is unsupported (object, strings, datetimes, ...).
    """
    return a.astype(dtype, copy=copy)


def reshape(a, shape, order="C"):
    """Function form of :meth:`GPUArray.reshape` (numpy.reshape).

    Parameters
    ----------
    a : GPUArray
        The array to reshape.
    shape : int or tuple of ints
        The new shape, of ``a.size`` elements; one entry may be -1 (inferred).
    order : {'C', 'F', 'A'}, optional
        The index order elements are read and placed in (numpy's).

    Returns
    -------
    GPUArray
        A view when the strides allow it (numpy's no-copy rule), else a copy.

    Raises
    ------
    ValueError
        If the sizes do not match or more than one -1 is given.
    """
    return a.reshape(shape, order=order)


def ravel(a, order="C"):
    """Function form of :meth:`GPUArray.ravel` (numpy.ravel).

    Parameters
    ----------
    a : GPUArray
        The array to flatten.
    order : {'C', 'F', 'A', 'K'}, optional
        The index order (numpy's); ``'K'`` reads F order for an F- but not
        C-contiguous ``a``, C order otherwise.

    Returns
    -------
    GPUArray
        1-D of ``a.size`` elements: a view when possible, else a copy.

    Raises
    ------
    ValueError
        For an unknown ``order``.
    """
    return a.ravel(order=order)


def transpose(a, axes=None):
    """Function form of :meth:`GPUArray.transpose` (numpy.transpose; a view).

    Parameters
    ----------
    a : GPUArray
        The array whose axes are permuted.
    axes : tuple or list of ints, optional
        A permutation of ``range(a.ndim)`` (negative axes count from the
        end); default the axes reversed.

    Returns
    -------
    GPUArray
        A view of ``a`` with axis ``i`` of the result being axis
        ``axes[i]`` of ``a``.

    Raises
    ------
    ValueError
        If ``axes`` is not a permutation of the axes.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    return a.transpose() if axes is None else a.transpose(axes)


def swapaxes(a, axis1, axis2):
    """Function form of :meth:`GPUArray.swapaxes` (numpy.swapaxes; a view).

    Parameters
    ----------
    a : GPUArray
        The array.
    axis1, axis2 : int
        The axes interchanged (negative ones count from the end).

    Returns
    -------
    GPUArray
        A view of ``a`` with the two axes interchanged.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    return a.swapaxes(axis1, axis2)


def squeeze(a, axis=None):
    """Function form of :meth:`GPUArray.squeeze` (numpy.squeeze; a view).

    Parameters
    ----------
    a : GPUArray
        The array.
    axis : None, int or tuple of ints, optional
        The length-1 axes removed; None (default) removes every length-1
        axis.

    Returns
    -------
    GPUArray
        A view of ``a`` without those axes.

    Raises
    ------
    ValueError
        If a selected axis does not have length 1, or is repeated.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    return a.squeeze(axis)


def expand_dims(a, axis):
    """Insert length-1 axes at ``axis`` (numpy.expand_dims; a view).

    Parameters
    ----------
    a : GPUArray
        The array.
    axis : int or tuple of ints
        Positions of the new axes in the result (negative ones count from
        the result's end).

    Returns
    -------
    GPUArray
        A view of ``a`` with ``a.ndim + len(axis)`` axes.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range of the result.
    ValueError
        For repeated axes.
    """
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = a.ndim + len(axes)
    norm = [_layout.normalize_axis(x, nd) for x in axes]
    if len(set(norm)) != len(norm):
        raise ValueError("repeated axis")
    it = iter(a.shape)
    shape = tuple(1 if i in norm else next(it) for i in range(nd))
    return a.reshape(shape)


def broadcast_to(a, shape):
    """A read-only-in-spirit view of ``a`` broadcast to ``shape`` (numpy's).

    Unlike numpy's, the view is writable; writing to it writes the shared
    elements (stride 0) several times.

    Parameters
    ----------
    a : GPUArray or array_like
        The array; anything else goes through :func:`gpuarr.asarray`.
    shape : int or tuple of ints
        The target shape, into which ``a.shape`` broadcasts by numpy's rules.

    Returns
    -------
    GPUArray
        A view of ``shape`` (stride 0 along the broadcast axes), ``a``'s
        dtype.

    Raises
    ------
    ValueError
        If ``a`` cannot be broadcast to ``shape``.
    """
    a = _creation.asarray(a)
    shape = _layout.normalize_shape(shape)
    strides = _layout.broadcast_strides(a.shape, a.strides, shape)
    return a._view(shape, strides, 0)


# ---------------------------------------------------------------------------
# views numpy makes by rearranging axes: flips, rotations, moved axes,
# splits, diagonals (no data moves; the strides and the start change)

def _axes_tuple(axis, ndim):
    """numpy's normalize_axis_tuple: ``axis`` (int or sequence) as a tuple
    of distinct axes in ``range(ndim)``."""
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    norm = tuple(_layout.normalize_axis(x, ndim) for x in axes)
    if len(set(norm)) != len(norm):
        raise ValueError("repeated axis")
    return norm


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (numpy.flip; a view).

    Parameters
    ----------
    m : GPUArray
    axis : None, int or tuple of int
        The axes to reverse; None reverses all of them.

    Returns
    -------
    GPUArray
        A view of ``m`` with negated strides on those axes.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For a repeated axis.
    """
    axes = range(m.ndim) if axis is None else _axes_tuple(axis, m.ndim)
    key = [slice(None)] * m.ndim
    for ax in axes:
        key[ax] = slice(None, None, -1)
    return m[tuple(key)]


def fliplr(m):
    """Reverse the columns (axis 1) of an array of at least 2 dimensions
    (numpy.fliplr; a view).

    Parameters
    ----------
    m : GPUArray
        Any dtype and layout, at least 2-d.

    Returns
    -------
    GPUArray
        A view, axis 1's stride negated.

    Raises
    ------
    ValueError
        For fewer than 2 dimensions.
    """
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m):
    """Reverse the rows (axis 0) of an array of at least 1 dimension
    (numpy.flipud; a view).

    Parameters
    ----------
    m : GPUArray
        Any dtype and layout, at least 1-d.

    Returns
    -------
    GPUArray
        A view, axis 0's stride negated.

    Raises
    ------
    ValueError
        For a 0-d array.
    """
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``, from the
    first axis towards the second (numpy.rot90; a view).

    Parameters
    ----------
    m : GPUArray
        At least 2-d.
    k : int
        Quarter turns (any integer, taken modulo 4).
    axes : (int, int)
        The plane of the rotation.

    Returns
    -------
    GPUArray
        A view; the two axes' lengths swap for odd ``k``.

    Raises
    ------
    ValueError
        For ``axes`` not two different axes in range (numpy's messages).
    """
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    nd = m.ndim
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == nd:
        raise ValueError("Axes must be different.")
    if not (-nd <= axes[0] < nd and -nd <= axes[1] < nd):
        raise ValueError("Axes={} out of range for array of ndim={}."
                         .format(axes, nd))
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    perm = list(range(nd))
    a0, a1 = axes[0] % nd, axes[1] % nd
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return flip(m, axes[1]).transpose(perm)
    return flip(m.transpose(perm), axes[1])


def moveaxis(a, source, destination):
    """Move axes to new positions, the others keeping their order
    (numpy.moveaxis; a view).

    Parameters
    ----------
    a : GPUArray
    source, destination : int or sequence of int
        Where the axes are, and where they go (as many of each).

    Returns
    -------
    GPUArray
        A view with the axes permuted.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    ValueError
        For repeated axes, or ``source`` and ``destination`` of different
        lengths.
    """
    # numpy's messages name the argument ("source: axis 3 is out of ...")
    src = np.lib.array_utils.normalize_axis_tuple(source, a.ndim, "source")
    dst = np.lib.array_utils.normalize_axis_tuple(destination, a.ndim,
                                                  "destination")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have "
                         "the same number of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def rollaxis(a, axis, start=0):
    """Roll ``axis`` backwards until it lies before position ``start``
    (numpy.rollaxis; a view; :func:`moveaxis` is the clearer spelling).

    Parameters
    ----------
    a : GPUArray
    axis : int
    start : int
        In ``range(-ndim, ndim + 1)``.

    Returns
    -------
    GPUArray
        A view with the axes permuted.

    Raises
    ------
    numpy.exceptions.AxisError
        For ``axis`` out of range, or ``start`` outside
        ``range(-ndim, ndim + 1)``.
    """
    n = a.ndim
    axis = _layout.normalize_axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(
            "'start' arg requires %d <= start < %d, but %d was passed in"
            % (-n, n + 1, start))
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    order = list(range(n))
    order.remove(axis)
    order.insert(start, axis)
    return a.transpose(order)


def atleast_1d(*arys):
    """Each array with at least 1 dimension, 0-d as ``(1,)``
    (numpy.atleast_1d; views).

    Parameters
    ----------
    *arys : GPUArray or array_like
        Host arrays are copied to the device first.

    Returns
    -------
    GPUArray or tuple of GPUArray
        One array for one argument, else a tuple; same dtypes.
    """
    return _atleast_all(arys, 1)


def atleast_2d(*arys):
    """Each array with at least 2 dimensions, ``(n,)`` as ``(1, n)`` and
    0-d as ``(1, 1)`` (numpy.atleast_2d; views).

    Parameters
    ----------
    *arys : GPUArray or array_like

    Returns
    -------
    GPUArray or tuple of GPUArray
        One array for one argument, else a tuple; same dtypes.
    """
    return _atleast_all(arys, 2)


def atleast_3d(*arys):
    """Each array with at least 3 dimensions, ``(n,)`` as ``(1, n, 1)``,
    ``(m, n)`` as ``(m, n, 1)`` and 0-d as ``(1, 1, 1)``
    (numpy.atleast_3d; views).

    Parameters
    ----------
    *arys : GPUArray or array_like

    Returns
    -------
    GPUArray or tuple of GPUArray
        One array for one argument, else a tuple; same dtypes.
    """
    return _atleast_all(arys, 3)


def _atleast_all(arys, nd):
    res = tuple(atleast(_creation.asarray(a), nd) for a in arys)
    return res[0] if len(res) == 1 else res


def with_shape(a, shape):
    """A view of ``a`` with length-1 axes added to reach ``shape``
    (``shape`` without its 1s equals ``a.shape`` without its 1s, in
    order); the strides of the new axes are never used."""
    it = iter(zip(a.shape, a.strides))
    strides = []
    pending = list(a.shape)
    for n in shape:
        if pending and n == pending[0]:
            strides.append(next(it)[1])
            pending.pop(0)
        else:
            strides.append(a.dtype.itemsize)
    return a._view(tuple(shape), tuple(strides), 0)


def atleast(a, nd):
    """numpy's atleast_1d/2d/3d of one array (a view)."""
    if a.ndim >= nd:
        return a
    if nd == 1 or a.ndim == 0:
        return with_shape(a, (1,) * nd)
    if nd == 2:                       # (n,) -> (1, n)
        return with_shape(a, (1,) + a.shape)
    if a.ndim == 1:                   # (n,) -> (1, n, 1)
        return with_shape(a, (1,) + a.shape + (1,))
    return with_shape(a, a.shape + (1,))   # (m, n) -> (m, n, 1)


def array_split(ary, indices_or_sections, axis=0):
    """Split into views along ``axis`` (numpy.array_split): into ``N``
    parts of sizes differing by at most one (the longer first), or at the
    given indices.

    Parameters
    ----------
    ary : GPUArray
    indices_or_sections : int or sequence of int
        A number of parts (> 0), or the sorted split points (clipped to
        the axis, as slices are: out-of-range points give empty parts).
    axis : int

    Returns
    -------
    list of GPUArray
        Views of ``ary``.

    Raises
    ------
    ValueError
        For a number of parts <= 0.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    ax = _layout.normalize_axis(axis, ary.ndim)
    total = ary.shape[ax]
    try:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [total]
    except TypeError:
        parts = operator.index(indices_or_sections)
        if parts <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extra = divmod(total, parts)
        sizes = [each + 1] * extra + [each] * (parts - extra)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    head = (slice(None),) * ax
    return [ary[head + (slice(lo, hi),)] for lo, hi in zip(bounds, bounds[1:])]


def split(ary, indices_or_sections, axis=0):
    """Split into views along ``axis`` (numpy.split): as
    :func:`array_split`, but a number of parts must divide the axis.

    Parameters
    ----------
    ary, indices_or_sections, axis
        As for :func:`array_split`.

    Returns
    -------
    list of GPUArray
        Views of ``ary``.

    Raises
    ------
    ValueError
        For a number of parts that does not divide the axis' length.
    """
    try:
        len(indices_or_sections)
    except TypeError:
        n = operator.index(indices_or_sections)
        ax = _layout.normalize_axis(axis, ary.ndim)
        if n > 0 and ary.shape[ax] % n:
            raise ValueError("array split does not result in an equal "
                             "division") from None
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """:func:`split` along axis 1 (axis 0 for 1-d arrays) (numpy.hsplit).

    Parameters
    ----------
    ary : GPUArray
        At least 1-d.
    indices_or_sections : int or sequence of int

    Returns
    -------
    list of GPUArray

    Raises
    ------
    ValueError
        For a 0-d array.
    """
    return _split_at_least(ary, indices_or_sections, 1,
                           1 if ary.ndim > 1 else 0, "hsplit")


def _split_at_least(ary, indices_or_sections, nd, axis, name):
    """:func:`split` along ``axis`` of an array of at least ``nd``
    dimensions (numpy's error, naming ``name``, otherwise)."""
    if ary.ndim < nd:
        raise ValueError("%s only works on arrays of %d or more dimensions"
                         % (name, nd))
    return split(ary, indices_or_sections, axis)


def vsplit(ary, indices_or_sections):
    """:func:`split` along axis 0 of an array of 2 or more dimensions
    (numpy.vsplit).

    Parameters
    ----------
    ary : GPUArray
        At least 2-d.
    indices_or_sections : int or sequence of int

    Returns
    -------
    list of GPUArray

    Raises
    ------
    ValueError
        For fewer than 2 dimensions.
    """
    return _split_at_least(ary, indices_or_sections, 2, 0, "vsplit")


def dsplit(ary, indices_or_sections):
    """:func:`split` along axis 2 of an array of 3 or more dimensions
    (numpy.dsplit).

    Parameters
    ----------
    ary : GPUArray
        At least 3-d.
    indices_or_sections : int or sequence of int

    Returns
    -------
    list of GPUArray

    Raises
    ------
    ValueError
        For fewer than 3 dimensions.
    """
    return _split_at_least(ary, indices_or_sections, 3, 2, "dsplit")


def unstack(x, *, axis=0):
    """The sub-arrays along an axis, as views (numpy.unstack, the inverse
    of ``stack``).

    Parameters
    ----------
    x : GPUArray
        At least 1-d.
    axis : int

    Returns
    -------
    tuple of GPUArray
        ``x.shape[axis]`` views of ``x``'s shape without ``axis``.

    Raises
    ------
    ValueError
        For a 0-d ``x`` (numpy's message).
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    x = _creation.asarray(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    moved = moveaxis(x, axis, 0)
    return tuple(moved[k] for k in range(moved.shape[0]))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of the 2-d subarrays in the plane of ``axis1`` and
    ``axis2`` (numpy.diagonal; a view, writable where numpy's is
    read-only).

    Parameters
    ----------
    a : GPUArray
        At least 2-d, any dtype and layout.
    offset : int
        Above the main diagonal when positive, below when negative.
    axis1, axis2 : int
        The plane's two axes (different).

    Returns
    -------
    GPUArray
        The other axes in order, then the diagonal's: element ``i`` is
        ``a[..., i, i + offset]`` (``offset`` < 0: ``a[..., i - offset,
        i]``).

    Raises
    ------
    ValueError
        For fewer than 2 dimensions, or ``axis1 == axis2``.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1 = _layout.normalize_axis(axis1, a.ndim)
    ax2 = _layout.normalize_axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    offset = operator.index(offset)
    n1, n2 = a.shape[ax1], a.shape[ax2]
    s1, s2 = a.strides[ax1], a.strides[ax2]
    if offset >= 0:
        n, start = min(n1, n2 - offset), offset * s2
    else:
        n, start = min(n1 + offset, n2), -offset * s1
    if n <= 0:
        n, start = 0, 0
    keep = [d for d in range(a.ndim) if d not in (ax1, ax2)]
    shape = tuple(a.shape[d] for d in keep) + (n,)
    strides = tuple(a.strides[d] for d in keep) + (s1 + s2,)
    return a._view(shape, strides, start)


# run on the arrays' device (issue 16)
_placement.route(globals())
