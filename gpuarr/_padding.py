"""numpy.pad and numpy.copyto (layer 5): writing values into a new or an
existing array.

``pad`` is one launch of the gather kernel (:mod:`gpuarr._gatherkernels`
through :func:`gpuarr._rearrange.gather`): each axis' padded positions get
their source coordinates from :func:`gpuarr._gatherkernels.pad_sources`
(numpy's edge, wrap, reflect and symmetric rules) or a mark naming one of
the constants.  ``copyto`` without ``where`` is an assignment
(:func:`gpuarr._transfer.assign`), with ``where`` one pass of the
``where`` elementwise kernel writing ``dst`` in place; its casting
checks are numpy's, Python scalars weak (NEP 50).
"""

import typing

import numpy as np

from . import _placement
from . import _creation, _dtypes, _layout, _transfer
from . import _gatherkernels as _gk
from . import _rearrange as _re
from . import elementwise as _ew
from ._array import GPUArray

__all__ = ["pad", "copyto"]

_INTP = np.dtype(np.intp)
_BOOL = np.dtype(np.bool_)
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
# numpy.pad's modes and the keywords each takes
_PAD_KWARGS = {"empty": (), "edge": (), "wrap": (),
               "constant": ("constant_values",),
               "linear_ramp": ("end_values",), "maximum": ("stat_length",),
               "mean": ("stat_length",), "median": ("stat_length",),
               "minimum": ("stat_length",), "reflect": ("reflect_type",),
               "symmetric": ("reflect_type",)}
# kinds of a Python scalar and of dtypes, in numpy's "same_kind" order
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
# numpy's weak Python scalars (bool is a strong type to numpy)
_PY_KIND = {int: "i", float: "f", complex: "c"}


# ---------------------------------------------------------------------------
# pad

def _as_pairs(x, ndim, as_index=False):
    """numpy.pad's reading of ``pad_width`` and ``constant_values``: a
    ``(before, after)`` pair per axis."""
    x = np.array(x)
    if as_index:
        x = np.round(x).astype(_INTP, copy=False)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x[0] < 0:
                raise ValueError("index can't contain negative values")
            return ((x[0], x[0]),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0], x[1]),) * ndim
    if as_index and x.size and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return np.broadcast_to(x, (ndim, 2)).tolist()


def _pad_widths(pad_width, ndim):
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * ndim
        for axis, width in pad_width.items():
            match width:
                case int(both):
                    seq[axis] = both, both
                case tuple((int(before), int(after))):
                    seq[axis] = before, after
                case _ as invalid:
                    typing.assert_never(invalid)
        pad_width = seq
    pad_width = np.asarray(pad_width)
    if pad_width.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    return [(int(b), int(e)) for b, e in _as_pairs(pad_width, ndim, True)]


def pad(array, pad_width, mode="constant", **kwargs):
    """Pad an array (numpy.pad), in one gather launch.

    Parameters
    ----------
    array : GPUArray or array_like
        Any shape, dtype and layout.
    pad_width : int, sequence or dict
        numpy's forms: ``n``, ``(before, after)``, ``((b0, a0), (b1, a1),
        ...)``, ``((b, a),)``, or ``{axis: n or (before, after)}``; integers
        >= 0.
    mode : str
        ``'constant'`` (``constant_values``: numpy's forms, cast as numpy's
        assignment casts), ``'edge'``, ``'reflect'``, ``'symmetric'``,
        ``'wrap'``, ``'empty'`` (values left undefined; zeros here).
    **kwargs
        ``constant_values`` (constant), ``reflect_type`` ('even' only).

    Returns
    -------
    GPUArray
        A new C-contiguous array of ``array``'s dtype, each axis longer by
        its two widths.  A corner takes the constant of the last padded
        axis it lies in, as numpy's.

    Raises
    ------
    TypeError
        For non-integer widths.
    ValueError
        For negative widths, an unknown mode or keyword, or an empty axis
        padded by a mode other than 'constant' and 'empty'.
    NotImplementedError
        For numpy's other modes (statistics, 'linear_ramp', callables) and
        ``reflect_type='odd'``.
    """
    a = _creation.asarray(array)
    nd = a.ndim
    widths = _pad_widths(pad_width, nd)
    if callable(mode):
        raise NotImplementedError("gpuarr.pad does not take a callable mode")
    try:
        extra = set(kwargs) - set(_PAD_KWARGS[mode])
    except KeyError:
        raise ValueError("mode '%s' is not supported" % (mode,)) from None
    if extra:
        raise ValueError("unsupported keyword arguments for mode '%s': %s"
                         % (mode, extra))
    if mode in ("linear_ramp", "maximum", "mean", "median", "minimum"):
        raise NotImplementedError("gpuarr.pad has no mode '%s'" % mode)
    if kwargs.get("reflect_type", "even") == "odd":
        raise NotImplementedError("gpuarr.pad has no reflect_type 'odd'")
    consts = None
    if mode in ("constant", "empty"):
        values = _as_pairs(kwargs.get("constant_values", 0), nd)
        consts = np.empty(2 * nd, a.dtype)
        for d, pair in enumerate(values):
            for side, v in enumerate(pair):
                tmp = np.empty(1, a.dtype)
                tmp[...] = v                  # numpy's assignment casts
                consts[2 * d + side] = tmp[0]
        mode = "constant"
    elif a.size == 0:
        for d, w in enumerate(widths):
            if a.shape[d] == 0 and any(w):
                raise ValueError("can't extend empty axis %d using modes "
                                 "other than 'constant' or 'empty'" % d)
    a, est = _re.item_strides(a)
    axes = _gk.pad_axes(a.shape, est, widths, mode)
    shape = [ax.n for ax in axes]
    if a.size == 0 and mode != "constant":
        return _creation.empty_c(tuple(shape), a.dtype)
    return _re.gather(a, shape, axes, consts=consts)


# ---------------------------------------------------------------------------
# copyto

def _weak_check(value, dt, casting):
    kind = _PY_KIND[type(value)]
    if casting != "unsafe" and _KIND_RANK[kind] > _KIND_RANK[dt.kind]:
        raise TypeError("Cannot cast scalar from %r to %r according to the "
                        "rule %r" % (np.dtype(type(value)), dt, casting))
    if kind == "i":
        _dtypes.check_scalar(value, dt)     # numpy's OverflowError


def _mask(where, shape):
    """``where`` as a device bool array broadcast to ``shape``, or True /
    False for a mask of one value."""
    if where is None:
        return False
    if isinstance(where, GPUArray) or hasattr(where,
                                              "__cuda_array_interface__"):
        m = _creation.asarray(where)
    else:
        m = np.asarray(where)
    if not np.can_cast(m.dtype, _BOOL, "safe"):
        raise TypeError("Cannot cast array data from %r to %r according to "
                        "the rule 'safe'" % (m.dtype, _BOOL))
    try:
        mshape = _layout.value_shape(m.shape, shape)
    except ValueError:
        raise ValueError("could not broadcast where mask from shape %s into "
                         "shape %s" % (_layout.shape_str(m.shape),
                                       _layout.shape_str(shape))) from None
    if isinstance(m, np.ndarray):
        if m.ndim == 0:
            return bool(m)
        m = _creation.to_gpu(np.ascontiguousarray(m.reshape(mshape)))
    elif m.shape != mshape:
        m = m.reshape(mshape)
    return _re.strided(m, shape, _layout.broadcast_strides(mshape, m.strides,
                                                        shape))


def copyto(dst, src, casting="same_kind", where=True):
    """Copy values into ``dst``, broadcasting (numpy.copyto).

    Parameters
    ----------
    dst : GPUArray
        Any layout; written in place.
    src : GPUArray, array_like or scalar
        Broadcast to ``dst.shape``; Python scalars are weak (NEP 50: only
        their kind is checked, and their value against ``dst.dtype``).
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}
        numpy's rule for casting ``src``'s dtype to ``dst``'s.
    where : bool or array_like of bool, optional
        Broadcast to ``dst.shape``: only elements where it is True are
        written (one pass of the ``where`` kernel).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        For a ``dst`` that is not a GPUArray, a cast ``casting`` forbids,
        or a ``where`` that is not bool.
    ValueError
        For an unknown ``casting``, or ``src`` or ``where`` that do not
        broadcast to ``dst``.
    OverflowError
        For a Python integer out of ``dst.dtype``'s range.
    """
    if not isinstance(dst, GPUArray):
        raise TypeError("copyto() argument 1 must be a GPUArray, not %s"
                        % type(dst).__name__)
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', "
                         "'same_kind', or 'unsafe'")
    dt = dst.dtype
    if type(src) in _PY_KIND:
        _weak_check(src, dt, casting)
        value = src
    else:
        if isinstance(src, GPUArray) or hasattr(src,
                                                "__cuda_array_interface__"):
            value = _creation.asarray(src)
        else:
            value = np.asarray(src)
        if not np.can_cast(value.dtype, dt, casting):
            raise TypeError("Cannot cast %s from %r to %r according to the "
                            "rule %r" % ("scalar" if value.ndim == 0
                                         else "array data", value.dtype, dt,
                                         casting))
        _layout.value_shape(value.shape, dst.shape)
    mask = True if where is True else _mask(where, dst.shape)
    if mask is False or not dst.size:
        return None
    if mask is True:
        _transfer.assign(dst, value)
        return None
    if not isinstance(value, GPUArray):
        value = np.asarray(value)
        if value.ndim == 0:
            # numpy's cast (unsafe casting of a Python scalar included:
            # complex to float, NaN or 1e20 to an integer)
            value = value.astype(dt)[()]
        else:
            value = _creation.to_gpu(np.ascontiguousarray(value))
    if isinstance(value, GPUArray):
        vshape = _layout.value_shape(value.shape, dst.shape)
        value = _re.strided(value.reshape(vshape), dst.shape,
                         _layout.broadcast_strides(vshape, value.reshape(
                             vshape).strides, dst.shape))
        if _layout.overlaps(value, dst) and not (
                value.ptr == dst.ptr and value.strides == dst.strides):
            value = value.copy()
    if _layout.overlaps(mask, dst) and not (
            mask.ptr == dst.ptr and mask.strides == dst.strides):
        mask = mask.copy()
    _ew.run_elementwise("where", [dst], [mask, value, dst],
                        loop_dtypes=(_BOOL, dt, dt))
    return None


# run on the arrays' device (issue 16)
_placement.route(globals(), copies={"copyto": 1})
