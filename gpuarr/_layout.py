"""Shape and stride arithmetic, numpy's rules (layer 0).

Pure Python: everything here works on tuples of ints (shapes, byte or
element strides) or on array-likes that have ``.ptr``, ``.shape``,
``.strides`` and ``.dtype``, so all of it is checked in CI against numpy.
This is the one home of these rules for every layer: the kernel builders
merge dimensions and choose index widths with it, the array layer makes
views, broadcasts and reshapes with it.
"""

import operator

import numpy as np

__all__ = [
    "INT32_MAX", "Flags", "normalize_shape", "prod", "c_strides", "f_strides",
    "contiguity", "extent", "overlaps", "broadcast_shapes",
    "broadcast_strides", "nocopy_reshape_strides", "normalize_axis",
    "resolve_newshape", "shape_str", "value_shape", "merge_dims",
    "needs_64bit", "Layout", "check_vector_product",
]

INT32_MAX = 2 ** 31 - 1


def normalize_shape(shape):
    """``shape`` (an int or a sequence of ints) as a tuple of ints.

    Raises
    ------
    TypeError
        For anything that is not an int or a sequence of ints.
    ValueError
        For a negative dimension.
    """
    try:
        n = operator.index(shape)
    except TypeError:
        try:
            shape = tuple(operator.index(s) for s in shape)
        except TypeError:
            raise TypeError("shape must be an int or a sequence of ints, got %r"
                            % (shape,)) from None
    else:
        shape = (n,)
    for n in shape:
        if n < 0:
            raise ValueError("negative dimensions are not allowed")
    return shape


def prod(shape):
    """The number of elements of ``shape`` (1 for ``()``)."""
    size = 1
    for n in shape:
        size *= n
    return size


def c_strides(shape, itemsize):
    """numpy's C-order strides of a new array of ``shape``.

    All zero when the size is 0, as ``numpy.empty((0, 3)).strides``.
    """
    nd = len(shape)
    strides = [0] * nd
    s = itemsize
    for i in range(nd - 1, -1, -1):
        n = shape[i]
        if n == 0:
            return (0,) * nd
        strides[i] = s
        s *= n
    return tuple(strides)


def f_strides(shape, itemsize):
    """numpy's Fortran-order strides of a new array (all zero for size 0)."""
    return c_strides(tuple(shape)[::-1], itemsize)[::-1]


def contiguity(shape, strides, itemsize):
    """``(c_contiguous, f_contiguous)`` by numpy's rules.

    The strides of length-1 axes do not matter; an empty array is both.
    """
    if 0 in shape:
        return True, True
    c = True
    s = itemsize
    for i in range(len(shape) - 1, -1, -1):
        n = shape[i]
        if n != 1:
            if strides[i] != s:
                c = False
                break
            s *= n
    f = True
    s = itemsize
    for i in range(len(shape)):
        n = shape[i]
        if n != 1:
            if strides[i] != s:
                f = False
                break
            s *= n
    return c, f


class Flags:
    """numpy-like flags of an array's layout (``c_contiguous``,
    ``f_contiguous``, ``forc``, ``fnc``, ``owndata``; ``flags["C"]`` works
    too; ``numpy.isfortran`` reads ``fnc``).
    ``owndata`` is False for a view or for memory wrapped from another
    library, as numpy's (Dask copies a small selection out of a chunk that
    does not own its data)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, c, f, owndata=True):
        self.c_contiguous = c
        self.f_contiguous = f
        self.owndata = owndata

    @property
    def forc(self):
        return self.c_contiguous or self.f_contiguous

    @property
    def fnc(self):
        return self.f_contiguous and not self.c_contiguous

    @property
    def contiguous(self):
        return self.c_contiguous

    def __getitem__(self, key):
        key = key.upper()
        if key in ("C_CONTIGUOUS", "C", "CONTIGUOUS"):
            return self.c_contiguous
        if key in ("F_CONTIGUOUS", "F", "FORTRAN"):
            return self.f_contiguous
        if key == "FORC":
            return self.forc
        if key == "FNC":
            return self.fnc
        if key in ("OWNDATA", "O"):
            return self.owndata
        raise KeyError(key)

    def __repr__(self):
        return ("  C_CONTIGUOUS : %s\n  F_CONTIGUOUS : %s\n"
                "  OWNDATA : %s" % (self.c_contiguous, self.f_contiguous,
                                    self.owndata))


def extent(shape, strides, itemsize):
    """The byte range ``[lo, hi)`` relative to element ``[0, ..., 0]``
    that an array touches (``(0, 0)`` when it is empty)."""
    lo = hi = 0
    for n, s in zip(shape, strides):
        if n == 0:
            return 0, 0
        if s > 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi + itemsize


def overlaps(a, b):
    """Whether the byte ranges of array-likes ``a`` and ``b`` intersect
    (never for an empty one)."""
    alo, ahi = extent(a.shape, a.strides, a.dtype.itemsize)
    blo, bhi = extent(b.shape, b.strides, b.dtype.itemsize)
    if alo == ahi or blo == bhi:
        return False
    return a.ptr + alo < b.ptr + bhi and b.ptr + blo < a.ptr + ahi


def _paren(shape):
    return str(tuple(shape)).replace(" ", "")


def broadcast_shapes(*shapes, operands=False):
    """The shape ``shapes`` broadcast to, by numpy's rules.

    Parameters
    ----------
    *shapes : tuple of int
    operands : bool
        Which of numpy's messages a mismatch raises: ``False`` that of
        ``numpy.broadcast_shapes``, ``True`` that of an operation on arrays
        ("operands could not be broadcast together with shapes ...").

    Returns
    -------
    tuple of int

    Raises
    ------
    ValueError
        When two shapes do not broadcast.
    """
    if len(shapes) == 1:
        return tuple(shapes[0])
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for k, s in enumerate(shapes):
        off = ndim - len(s)
        for ax, n in enumerate(s):
            cur = out[off + ax]
            if n == cur or n == 1:
                continue
            if cur == 1:
                out[off + ax] = n
                continue
            if operands:
                raise ValueError(
                    "operands could not be broadcast together with shapes "
                    + " ".join(_paren(t) for t in shapes))
            # the first shape that set ``cur``, to report the pair
            first = next(j for j, t in enumerate(shapes)
                         if len(t) >= ndim - off - ax
                         and t[len(t) - (ndim - off - ax)] == cur)
            raise ValueError(
                "shape mismatch: objects cannot be broadcast to a single "
                "shape.  Mismatch is between arg %d with shape %s and arg %d "
                "with shape %s." % (first, tuple(shapes[first]), k, tuple(s)))
    return tuple(out)


def _inner(shape):
    return _paren(shape)[1:-1]


def broadcast_strides(shape, strides, to_shape):
    """Strides of an array of ``shape``/``strides`` broadcast to ``to_shape``.

    Broadcast axes get stride 0, as in ``numpy.broadcast_to(a, to_shape)``
    (length-1 axes too).

    Raises
    ------
    ValueError
        Like numpy's, when the shapes are incompatible.
    """
    shape = tuple(shape)
    to_shape = tuple(to_shape)
    if shape == to_shape:
        return tuple(strides)
    nd = len(to_shape)
    if len(shape) > nd:
        raise ValueError("input operand has more dimensions than allowed by "
                         "the axis remapping")
    off = nd - len(shape)
    out = [0] * nd
    for ax in range(len(shape)):
        n = shape[ax]
        if n == to_shape[off + ax]:
            out[off + ax] = strides[ax] if n != 1 else 0
        elif n == 1:
            out[off + ax] = 0
        else:
            raise ValueError(
                "operands could not be broadcast together with remapped "
                "shapes [original->remapped]: (%s)  and requested shape (%s)"
                % (_inner(shape), _inner(to_shape)))
    return tuple(out)


def nocopy_reshape_strides(shape, strides, newshape, itemsize, f_order):
    """Strides for viewing ``shape``/``strides`` as ``newshape``, or None.

    numpy's "attempt no-copy reshape": drop the length-1 axes, split old
    and new axes into groups of equal element count, and accept if the old
    axes inside each group step through memory like one contiguous axis (in
    C or F order). Length-1 axes of ``newshape`` left over at the end get
    the neighbouring stride, as numpy gives them.
    """
    old = [(n, s) for n, s in zip(shape, strides) if n != 1]
    nn, on = len(newshape), len(old)
    newstrides = [0] * nn
    oi = ni = 0
    while ni < nn and oi < on:
        npr = newshape[ni]
        opr = old[oi][0]
        nj, oj = ni + 1, oi + 1
        while npr != opr:
            if npr < opr:
                npr *= newshape[nj]
                nj += 1
            else:
                opr *= old[oj][0]
                oj += 1
        for k in range(oi, oj - 1):
            if f_order:
                if old[k + 1][1] != old[k][0] * old[k][1]:
                    return None
            elif old[k][1] != old[k + 1][0] * old[k + 1][1]:
                return None
        if f_order:
            newstrides[ni] = old[oi][1]
            for k in range(ni + 1, nj):
                newstrides[k] = newstrides[k - 1] * newshape[k - 1]
        else:
            newstrides[nj - 1] = old[oj - 1][1]
            for k in range(nj - 1, ni, -1):
                newstrides[k - 1] = newstrides[k] * newshape[k]
        ni, oi = nj, oj
    last = newstrides[ni - 1] if ni >= 1 else itemsize
    if f_order and ni >= 1:
        last *= newshape[ni - 1]
    for k in range(ni, nn):
        newstrides[k] = last
    return tuple(newstrides)


def normalize_axis(axis, ndim):
    """``axis`` in ``range(ndim)`` (negative counts from the end).

    Raises
    ------
    TypeError
        For a non-integer axis.
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    try:
        ax = operator.index(axis)
    except TypeError:
        raise TypeError("'%s' object cannot be interpreted as an integer"
                        % type(axis).__name__) from None
    if not -ndim <= ax < ndim:
        raise np.exceptions.AxisError(ax, ndim)
    return ax % ndim if ndim else ax


def resolve_newshape(size, newshape):
    """``newshape`` with its unknown (negative) entry filled in for an
    array of ``size`` elements.

    Raises
    ------
    ValueError
        As numpy's reshape: two unknown entries, or sizes that differ.
    """
    unknown = -1
    known = 1
    for i, n in enumerate(newshape):
        if n < 0:  # numpy takes any negative entry as "unknown"
            if unknown >= 0:
                raise ValueError("can only specify one unknown dimension")
            unknown = i
        else:
            known *= n
    if unknown >= 0:
        if known == 0 or size % known:
            raise ValueError("cannot reshape array of size %d into shape %s"
                             % (size, shape_str(newshape)))
        newshape = list(newshape)
        newshape[unknown] = size // known
        newshape = tuple(newshape)
    elif known != size:
        raise ValueError("cannot reshape array of size %d into shape %s"
                         % (size, shape_str(newshape)))
    return newshape


def shape_str(shape):
    """A shape as numpy's messages print it: ``(3,4)``, ``(7,)``, ``()``."""
    shape = tuple(shape)
    return "(%s%s)" % (",".join(str(n) for n in shape), "," if len(shape) == 1 else "")


def value_shape(shape, dst_shape):
    """The shape a value of ``shape`` takes when assigned into ``dst_shape``
    (numpy drops extra leading length-1 axes), checked to broadcast there.

    Raises
    ------
    ValueError
        numpy's "could not broadcast input array from shape ..." message.
    """
    shape = tuple(shape)
    while len(shape) > len(dst_shape) and shape[0] == 1:
        shape = shape[1:]
    if shape != tuple(dst_shape):
        try:
            broadcast_strides(shape, (0,) * len(shape), dst_shape)
        except ValueError:
            raise ValueError("could not broadcast input array from shape %s "
                             "into shape %s" % (shape_str(shape),
                                                shape_str(dst_shape))) from None
    return shape


def merge_dims(shape, strides_list):
    """Merge dimensions that are contiguous with each other for all operands.

    Size-1 axes are dropped; axis ``k`` and the following axis ``k+1`` are
    merged when, for every operand, ``stride[k] == stride[k+1] *
    shape[k+1]``.  The merged description addresses exactly the same
    elements, in the same (C) order of the linear index.

    Parameters
    ----------
    shape : tuple of int
    strides_list : sequence of tuple of int
        One strides tuple (any unit) per operand, each of ``len(shape)``.

    Returns
    -------
    (shape, strides_list) : tuple of int, tuple of tuple of int
        The merged shape and per-operand strides.  For an array of size 0
        the shape is ``(0,)``; for size 1 it is ``()``.
    """
    nops = len(strides_list)
    dims = []
    for ax, n in enumerate(shape):
        if n == 0:
            return (0,), tuple((0,) for _ in range(nops))
        if n != 1:
            dims.append(ax)
    if not dims:
        return (), tuple(() for _ in range(nops))
    out_shape = [shape[dims[-1]]]
    out_strides = [[s[dims[-1]]] for s in strides_list]
    for ax in reversed(dims[:-1]):
        n = shape[ax]
        inner_n = out_shape[0]
        mergeable = True
        for k in range(nops):
            if strides_list[k][ax] != out_strides[k][0] * inner_n:
                mergeable = False
                break
        if mergeable:
            out_shape[0] = n * inner_n
        else:
            out_shape.insert(0, n)
            for k in range(nops):
                out_strides[k].insert(0, strides_list[k][ax])
    return tuple(out_shape), tuple(tuple(s) for s in out_strides)


def needs_64bit(shape, strides_list, margin=0):
    """Whether a kernel over ``shape`` needs 64-bit indices.

    True when the number of elements, or any byte offset an operand
    reaches (``sum(|stride| * (n - 1))``), could exceed ``2**31 - 1``
    (less ``margin``, room a kernel needs past the end for its chunking).

    Parameters
    ----------
    shape : tuple of int
    strides_list : sequence of tuple of int
        Byte strides per operand.
    margin : int, optional
    """
    limit = INT32_MAX - margin
    size = 1
    for n in shape:
        size *= n
    if size > limit:
        return True
    for st in strides_list:
        off = 0
        for n, s in zip(shape, st):
            off += abs(s) * (n - 1)
        if off > limit:
            return True
    return False


class Layout:
    """An array's layout without the array: what the kernel builders read
    (``ptr``, ``dtype``, ``shape``, ``strides`` in bytes), for an array
    not allocated yet or a view not worth making a GPUArray of."""

    __slots__ = ("ptr", "dtype", "shape", "strides")

    def __init__(self, ptr, dtype, shape, strides):
        self.ptr = ptr
        self.dtype = dtype
        self.shape = shape
        self.strides = strides


def check_vector_product(ashape, bshape):
    """numpy's check of ``dot(a, b)`` / ``inner(a, b)`` with a 1-d ``b``:
    ``a``'s last axis must match ``b``'s length.

    Raises
    ------
    ValueError
        numpy's "shapes ... not aligned" message.
    """
    if ashape[-1] != bshape[0]:
        raise ValueError("shapes %s and %s not aligned: %d (dim %d) != %d "
                         "(dim 0)" % (shape_str(ashape), shape_str(bshape),
                                      ashape[-1],
                                      len(ashape) - 1, bshape[0]))
