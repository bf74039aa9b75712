"""numpy's indexing rules, without a device (layer 0).

:func:`parse` reads an index key against an array's shape and tells
whether it is basic (integers, slices, ``None``, ``Ellipsis``: a view) or
advanced (integer arrays, boolean arrays, boolean scalars, with integers
then counting as 0-d integer arrays).  For an advanced key it gives the
basic key of the view the advanced indices then select from (each
advanced index replaced by full slices, a boolean scalar by a new axis)
and, for each advanced index, the view axes it covers, so that the array
layer (:mod:`gpuarr._indexing`) only moves data.  :func:`result_axes`
applies numpy's rule for where the broadcast index dimensions go: in
place of the indexed axes when the advanced indices are next to each
other in the key, else first.

Index arrays are taken as they come: device arrays (anything with
``__cuda_array_interface__``) stay where they are; lists, tuples and
numpy arrays become numpy arrays here.  The errors are numpy's, with its
messages.
"""

import operator

import numpy as np

__all__ = ["Advanced", "Plan", "parse", "broadcast_index_shapes",
           "result_axes", "INVALID_INDEX"]

#: numpy's message for an index of no valid type
INVALID_INDEX = ("only integers, slices (`:`), ellipsis (`...`), "
                 "numpy.newaxis (`None`) and integer or boolean arrays are "
                 "valid indices")


class Advanced:
    """One advanced index of a key.

    Attributes
    ----------
    kind : {"index", "mask"}
        An integer index array (integers and boolean scalars become
        these), or a boolean array.
    value : numpy.ndarray or device array
        The index (host arrays are numpy arrays: integer dtype for
        "index", bool for "mask").
    view_axes : tuple of int
        The axes of the view it indexes (one for "index", the mask's
        ``ndim`` for "mask").
    axis : int
        The first of those axes as an axis of the indexed array (for
        numpy's error messages; a boolean scalar's new axis: -1).
    """

    __slots__ = ("kind", "value", "view_axes", "axis")

    def __init__(self, kind, value, view_axes, axis):
        self.kind = kind
        self.value = value
        self.view_axes = view_axes
        self.axis = axis

    def __repr__(self):
        return "Advanced(%r, shape=%r, view_axes=%r, axis=%r)" % (
            self.kind, tuple(self.value.shape), self.view_axes, self.axis)


class Plan:
    """An advanced key, read.

    Attributes
    ----------
    basic : tuple
        The basic key giving the view the advanced indices select from.
    advanced : list of Advanced
        In key order.
    adjacent : bool
        Whether the advanced indices are next to each other in the key
        (numpy then puts the broadcast index dimensions in their place).
    """

    __slots__ = ("basic", "advanced", "adjacent")

    def __init__(self, basic, advanced, adjacent):
        self.basic = basic
        self.advanced = advanced
        self.adjacent = adjacent


def _on_device(k):
    return hasattr(k, "__cuda_array_interface__")


def _classify(k):
    """``(tag, value)``: tag one of "none", "ellipsis", "slice", "int",
    "boolscalar", "index", "mask"."""
    if k is None:
        return "none", None
    if k is Ellipsis:
        return "ellipsis", None
    if type(k) is slice:
        return "slice", k
    if isinstance(k, (bool, np.bool_)):
        return "boolscalar", bool(k)
    if _on_device(k):
        dt = np.dtype(k.dtype)
        if dt.kind == "b":
            if len(k.shape) == 0:
                return "boolscalar", bool(k.get())
            return "mask", k
        if dt.kind not in "iu":
            raise IndexError(INVALID_INDEX)
        return "index", k
    if not isinstance(k, (np.ndarray, list, tuple)) and \
            not hasattr(k, "__array__"):
        try:
            return "int", operator.index(k)
        except TypeError:
            raise IndexError(INVALID_INDEX) from None
    arr = np.asarray(k)
    if arr.dtype.kind == "b":
        if arr.ndim == 0:
            return "boolscalar", bool(arr)
        return "mask", arr
    if arr.dtype.kind not in "iu":
        if arr.size == 0 and isinstance(k, (list, tuple)):
            return "index", arr.astype(np.intp)   # numpy: [] is an intp index
        raise IndexError(INVALID_INDEX)
    if arr.ndim == 0:
        return "int", int(arr)
    return "index", arr


def parse(shape, key):
    """Read ``key`` against an array of ``shape``.

    Parameters
    ----------
    shape : tuple of int
    key : object
        Anything ``ndarray.__getitem__`` takes.

    Returns
    -------
    tuple or Plan
        The key as a tuple when it is basic (the caller makes a view), a
        :class:`Plan` when it is advanced.

    Raises
    ------
    IndexError
        numpy's: too many indices, two ellipses, an index of an invalid
        type, a boolean array whose shape does not match the axes it
        indexes.
    """
    if type(key) is not tuple:
        key = (key,)
    tagged = [_classify(k) for k in key]
    consumed = 0
    ell = -1
    advanced = False
    for i, (tag, v) in enumerate(tagged):
        if tag == "ellipsis":
            if ell >= 0:
                raise IndexError("an index can only have a single "
                                 "ellipsis ('...')")
            ell = i
        elif tag == "mask":
            consumed += len(v.shape)
            advanced = True
        elif tag in ("index", "boolscalar"):
            consumed += tag == "index"
            advanced = True
        elif tag != "none":
            consumed += 1
    nd = len(shape)
    if consumed > nd:
        raise IndexError("too many indices for array: array is "
                         "%d-dimensional, but %d were indexed"
                         % (nd, consumed))
    if not advanced:
        return tuple(key)
    basic = []
    adv = []
    positions = []
    axis = 0
    for i, (tag, v) in enumerate(tagged):
        va = len(basic)
        if tag == "ellipsis":
            basic.extend([slice(None)] * (nd - consumed))
            axis += nd - consumed
        elif tag == "none":
            basic.append(None)
        elif tag == "slice":
            basic.append(v)
            axis += 1
        elif tag == "boolscalar":
            basic.append(None)
            adv.append(Advanced("index", np.zeros(int(v), np.intp), (va,),
                                -1))
            positions.append(i)
        elif tag == "mask":
            k = len(v.shape)
            for d in range(k):
                # numpy lets an axis of length 0 stand against any
                if shape[axis + d] != v.shape[d] and v.shape[d]:
                    raise IndexError(
                        "boolean index did not match indexed array along "
                        "axis %d; size of axis is %d but size of "
                        "corresponding boolean axis is %d"
                        % (axis + d, shape[axis + d], v.shape[d]))
            basic.extend([slice(None)] * k)
            adv.append(Advanced("mask", v, tuple(range(va, va + k)), axis))
            positions.append(i)
            axis += k
        else:       # "int" (0-d index) or "index"
            if tag == "int":
                # numpy checks integers at once, even when the broadcast
                # of the index arrays is empty
                n = shape[axis]
                if not -n <= v < n:
                    raise IndexError("index %d is out of bounds for axis %d "
                                     "with size %d" % (v, axis, n))
                v = np.array(v, np.intp)
            basic.append(slice(None))
            adv.append(Advanced("index", v, (va,), axis))
            positions.append(i)
            axis += 1
    adjacent = positions[-1] - positions[0] == len(positions) - 1
    return Plan(tuple(basic), adv, adjacent)


def _shape_text(shapes):
    out = ""
    for s in shapes:
        out += "(%s) " % (",".join(str(n) for n in s)
                          + ("," if len(s) == 1 else ""))
    return out


def broadcast_index_shapes(shapes):
    """numpy's broadcast of the index arrays' shapes.

    Raises
    ------
    IndexError
        numpy's "shape mismatch: indexing arrays could not be broadcast
        together with shapes ...".
    """
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be "
                         "broadcast together with shapes "
                         + _shape_text(shapes)) from None


def result_axes(view_ndim, plan):
    """Where the result's axes come from.

    Parameters
    ----------
    view_ndim : int
        Dimensions of the view (``len(view.shape)``).
    plan : Plan

    Returns
    -------
    (tuple of int, tuple of int)
        The view axes before the broadcast index dimensions and those
        after them, in order (numpy's rule: in place of the indexed axes
        when the advanced indices are adjacent in the key, else all
        after).
    """
    covered = set()
    for a in plan.advanced:
        covered.update(a.view_axes)
    rest = [ax for ax in range(view_ndim) if ax not in covered]
    if not plan.adjacent:
        return (), tuple(rest)
    first = min(covered)
    return (tuple(ax for ax in rest if ax < first),
            tuple(ax for ax in rest if ax > first))
