"""Function forms of the array's shape methods and numpy's shape
manipulation functions (layer 5): ``reshape``, ``ravel``, ``transpose``,
``swapaxes``, ``squeeze``, ``expand_dims``, ``broadcast_to``, ``astype``.
All give views where numpy gives views.
"""

from . import _creation, _layout

__all__ = ["astype", "reshape", "ravel", "transpose", "swapaxes", "squeeze",
           "expand_dims", "broadcast_to"]


def astype(a, dtype, copy=True):
    """Function form of :meth:`GPUArray.astype`."""
    return a.astype(dtype, copy=copy)


def reshape(a, shape, order="C"):
    """Function form of :meth:`GPUArray.reshape`."""
    return a.reshape(shape, order=order)


def ravel(a, order="C"):
    """Function form of :meth:`GPUArray.ravel`."""
    return a.ravel(order=order)


def transpose(a, axes=None):
    """Function form of :meth:`GPUArray.transpose`."""
    return a.transpose() if axes is None else a.transpose(axes)


def swapaxes(a, axis1, axis2):
    """Function form of :meth:`GPUArray.swapaxes`."""
    return a.swapaxes(axis1, axis2)


def squeeze(a, axis=None):
    """Function form of :meth:`GPUArray.squeeze`."""
    return a.squeeze(axis)


def expand_dims(a, axis):
    """Insert length-1 axes at ``axis`` (numpy.expand_dims; a view).

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

    Raises
    ------
    ValueError
        If ``a`` cannot be broadcast to ``shape``.
    """
    a = _creation.asarray(a)
    shape = _layout.normalize_shape(shape)
    strides = _layout.broadcast_strides(a.shape, a.strides, shape)
    return a._view(shape, strides, 0)
