"""The numpy functions gpuarr implements for GPUArrays (layer 6; NEP 18).

One line per function: ``implements("<name below numpy>", gpuarr_function,
numpy_param="gpuarr_param", ...)``.  :mod:`gpuarr._dispatch` binds each
call by numpy's signature and passes it on by keyword, so an implementation
only needs numpy's parameter names (or a rename here).  The flat namespace
makes :mod:`gpuarr._dispatch` import this module at the first numpy
function called on a GPUArray; ``tests/test_dispatch_cpu.py`` checks every
line against numpy's signature.

A new module adds its functions here, one line each (and its import)::

    implements("linalg.solve", _solve.solve)

The few adapters below give numpy's signature to what gpuarr has under
another shape (attributes, ``clip``'s ``min=``/``max=`` spellings).
"""

import numpy as np

from . import _creation, _dtypes, _joining, _manipulation, _transfer, _ufunc
from . import _histograms, _padding, _quantiles, _rearrange, _selection
from . import _contract, _covariance, _matmul, _nanstats, _setops, _sorting
from . import _bits, _convolve, _editing, _indexfuncs, _interp
from . import _layoutfuncs
from . import _logic
from . import _mathfuncs
from . import cumath, cumulative, linalg, reductions
from ._array import GPUArray
from . import _dispatch
from ._dispatch import implements

__all__ = ["shape", "ndim", "size", "real", "imag", "copy", "result_type",
           "can_cast", "iscomplexobj", "isrealobj", "clip"]

_NoValue = object()


# ---------------------------------------------------------------------------
# adapters: numpy's signature over what gpuarr has

def shape(a):
    """numpy.shape: ``a.shape``."""
    return a.shape


def ndim(a):
    """numpy.ndim: ``a.ndim``."""
    return len(a.shape)


def size(a, axis=None):
    """numpy.size: ``a.size``, or the product of the lengths of ``axis``
    (an int or, as numpy 2.4, a tuple; numpy's AxisError out of range)."""
    if axis is None:
        return a.size
    n = 1
    for k in np.lib.array_utils.normalize_axis_tuple(axis, len(a.shape)):
        n *= a.shape[k]
    return n


def real(val):
    """numpy.real: the real part (a view for complex arrays)."""
    return val.real


def imag(val):
    """numpy.imag: the imaginary part (a view for complex arrays)."""
    return val.imag


def copy(a, order="K", subok=False):
    """numpy.copy: a copy in device memory (``order`` as numpy's)."""
    return _transfer.copy(_creation.asarray(a), order)


def _dtype_of(x):
    return x.dtype if isinstance(x, GPUArray) else x


def result_type(*arrays_and_dtypes):
    """numpy.result_type with GPUArrays standing for their dtypes (Python
    scalars stay weak, NEP 50)."""
    return np.result_type(*[_dtype_of(x) for x in arrays_and_dtypes])


def can_cast(from_, to, casting="safe"):
    """numpy.can_cast with a GPUArray standing for its dtype."""
    return np.can_cast(_dtype_of(from_), _dtype_of(to), casting)


def iscomplexobj(x):
    """numpy.iscomplexobj: whether the dtype is complex."""
    return _dtypes.canonical(x.dtype).kind == "c"


def isrealobj(x):
    """numpy.isrealobj: whether the dtype is not complex."""
    return not iscomplexobj(x)


def clip(a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue,
         max=_NoValue, **kwargs):
    """numpy.clip's signature over :func:`gpuarr.cumath.clip` (numpy 2.1's
    ``min=``/``max=`` spellings; ``out`` may be numpy's 1-tuple).

    Raises
    ------
    TypeError
        For a bound given twice.
    NotImplementedError
        For ufunc keywords other than ``out``.
    """
    if kwargs:
        raise NotImplementedError("gpuarr's numpy.clip does not support %s"
                                  % sorted(kwargs))
    if min is not _NoValue:
        if a_min is not _NoValue:
            raise TypeError("clip: a_min and min given")
        a_min = min
    if max is not _NoValue:
        if a_max is not _NoValue:
            raise TypeError("clip: a_max and max given")
        a_max = max
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    return cumath.clip(a, None if a_min is _NoValue else a_min,
                       None if a_max is _NoValue else a_max, out)


# ---------------------------------------------------------------------------
# the table

for _name in ("sum", "prod", "nansum", "mean", "var", "std", "max", "min",
              "amax", "amin", "nanmax", "nanmin", "ptp", "argmax", "argmin",
              "any", "all", "count_nonzero", "dot", "vdot", "inner"):
    implements(_name, getattr(reductions, _name))
implements("cumsum", cumulative.cumsum)
implements("cumprod", cumulative.cumprod)
implements("concatenate", _joining.concatenate)
implements("stack", _joining.stack)
implements("hstack", _joining.hstack, tup="arrays")
implements("vstack", _joining.vstack, tup="arrays")
implements("dstack", _joining.dstack, tup="arrays")
implements("column_stack", _joining.column_stack, tup="arrays")
for _name in ("ravel", "transpose", "swapaxes", "squeeze",
              "expand_dims", "flip", "fliplr", "flipud", "rot90", "moveaxis",
              "rollaxis", "atleast_1d", "atleast_2d", "atleast_3d",
              "array_split", "split", "hsplit", "vsplit", "dsplit",
              "diagonal", "unstack"):
    implements(_name, getattr(_manipulation, _name))
# numpy 2.0-2.1 name reshape's shape ``newshape`` (2.2-2.3 take both)
implements("reshape", _manipulation.reshape,
           **({"newshape": "shape"} if "newshape" in
              _dispatch.numpy_signature(np.reshape).parameters else {}))
implements("broadcast_to", _manipulation.broadcast_to, array="a")
implements("astype", _manipulation.astype, x="a")
for _name in ("nonzero", "flatnonzero", "argwhere", "take", "put",
              "take_along_axis", "put_along_axis", "compress", "extract",
              "place", "choose"):
    implements(_name, getattr(_selection, _name))
for _name in ("sort", "argsort", "partition", "argpartition",
              "searchsorted", "unique", "lexsort", "sort_complex"):
    implements(_name, getattr(_sorting, _name))
for _mod, _names in ((_nanstats, _nanstats.__all__),
                     (_covariance, _covariance.__all__),
                     (_setops, _setops.__all__),
                     (_histograms, _histograms.__all__),
                     (_quantiles, _quantiles.__all__),
                     (_logic, _logic.__all__),
                     (_mathfuncs, _mathfuncs.__all__),
                     (_editing, _editing.__all__),
                     (_interp, _interp.__all__),
                     (_convolve, _convolve.__all__),
                     (_bits, _bits.__all__),
                     # numpy.isfortran reads a GPUArray's flags.fnc
                     # itself; numpy.asarray_chkfinite dispatches
                     # nothing (it converts at once); ascontiguousarray,
                     # asfortranarray and require dispatch on like=
                     (_layoutfuncs, [n for n in _layoutfuncs.__all__
                                     if n not in ("isfortran",
                                                  "asarray_chkfinite")]),
                     # tri, tril_indices, triu_indices and diag_indices
                     # take no array: gpuarr's namespace only
                     (_indexfuncs, [n for n in _indexfuncs.__all__ if n not in
                                    ("tri", "identity", "logspace",
                                     "tril_indices",
                                     "triu_indices", "diag_indices")])):
    for _name in _names:
        implements(_name, getattr(_mod, _name))
for _name in ("tile", "repeat", "roll", "diag", "diagflat", "tril", "triu",
              "trace", "meshgrid", "indices"):
    implements(_name, getattr(_rearrange, _name))
implements("pad", _padding.pad)
implements("copyto", _padding.copyto)
implements("where", _ufunc.where)
implements("clip", clip)
implements("angle", cumath.angle)
implements("linalg.norm", linalg.norm)
implements("tensordot", _matmul.tensordot)
implements("linalg.tensordot", _matmul.tensordot, x1="a", x2="b")
implements("linalg.matmul", _matmul.matmul)
for _name in ("einsum", "outer", "kron"):
    implements(_name, getattr(_contract, _name))
implements("linalg.outer", _contract.outer, x1="a", x2="b")
implements("linalg.multi_dot", _contract.multi_dot)
implements("linalg.matrix_power", _contract.matrix_power)
for _name in ("solve", "inv", "det", "slogdet", "cholesky", "qr", "svd",
              "eigh", "eigvalsh", "lstsq", "pinv", "matrix_rank", "cond"):
    implements("linalg." + _name, getattr(linalg, _name))
for _name in ("vector_norm", "matrix_norm", "svdvals", "diagonal", "trace",
              "matrix_transpose", "cross", "vecdot", "tensorinv",
              "tensorsolve"):
    implements("linalg." + _name, getattr(linalg, _name))
implements("matrix_transpose", linalg.matrix_transpose)
implements("empty_like", _creation.empty_like, prototype="a")
# numpy.array(x, like=a) and friends with a GPUArray ``a`` (NEP 35)
implements("array", _creation.array, object="obj")
for _name in ("asarray", "asanyarray"):
    implements(_name, _creation.asarray, a="obj")
for _name in ("empty", "zeros", "ones", "full"):
    implements(_name, getattr(_creation, _name))
implements("arange", _creation.arange, start_or_stop="start")
for _name in ("zeros_like", "ones_like", "full_like"):
    implements(_name, getattr(_creation, _name))
for _fn in (shape, ndim, size, real, imag, copy, result_type, can_cast,
            iscomplexobj, isrealobj):
    implements(_fn.__name__, _fn)
del _name, _fn, _mod, _names
