"""gpuarr: Pythonic access to NVIDIA GPUs through the CUDA driver API.

The flat namespace holds the array API (PyCUDA's ``gpuarray`` and ``cumath``
names, numpy's semantics)::

    import gpuarr.autoinit          # primary context of device 0
    import gpuarr as ga
    a = ga.to_gpu(numpy.arange(10.0))
    b = ga.sin(a) + 1
    b.get()

Importing ``gpuarr`` imports nothing else, not even numpy (only the tiny
registry of numpy dispatch, ``gpuarr._dispatch``, which imports nothing):
each name of the flat namespace and each submodule is imported at its first
use (PEP 562),
so ``import gpuarr`` costs almost nothing and a program pays only for what
it uses. The CUDA driver is loaded at the first call that needs it and Mako
at the first kernel that is rendered. ``import gpuarr.autoinit`` is never
implied: it makes a context current, so it stays an explicit import.
"""

__version__ = "0.1.0"

_NUMPY_TYPES = ("bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
                "uint32", "uint64", "float16", "float32", "float64",
                "complex64", "complex128")
_GPUARRAY = (
    "GPUArray", "UFuncTypeError", "to_gpu", "to_gpu_async", "empty", "zeros",
    "ones", "full", "arange", "linspace", "eye", "empty_like", "zeros_like",
    "ones_like", "full_like", "fill", "asarray", "from_dlpack",
    "broadcast_to", "reshape", "ravel", "transpose", "swapaxes", "squeeze",
    "expand_dims", "astype", "add", "subtract", "multiply", "divide",
    "true_divide", "floor_divide", "remainder", "mod", "power", "negative",
    "positive", "absolute", "abs", "invert", "bitwise_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "logical_not")
_JOINING = (
    "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
    "take", "multi_take", "multi_put")
# numpy's axis-rearranging views (not in PyCUDA's gpuarray)
_VIEWS = (
    "flip", "fliplr", "flipud", "rot90", "moveaxis", "rollaxis",
    "atleast_1d", "atleast_2d", "atleast_3d", "array_split", "split",
    "hsplit", "vsplit", "dsplit", "diagonal", "unstack")
# numpy's rearranging functions that make arrays (module, names)
_REARRANGE = (
    ("gpuarr._rearrange", ("tile", "repeat", "roll", "diag", "diagflat",
                           "tril", "triu", "trace", "meshgrid", "indices")),
    ("gpuarr._padding", ("pad", "copyto")))
_CUMATH = (
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh",
    "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1",
    "log", "log2", "log10", "log1p", "sqrt", "cbrt", "square", "reciprocal",
    "fabs", "sign", "floor", "ceil", "trunc", "rint", "fmod", "hypot",
    "minimum", "maximum", "fmin", "fmax", "clip", "where", "isnan", "isinf",
    "isfinite", "conj", "conjugate", "angle", "if_positive", "frexp",
    "ldexp", "modf", "copysign", "signbit", "nextafter", "spacing",
    "logaddexp", "logaddexp2", "heaviside", "deg2rad", "rad2deg", "radians",
    "degrees", "gcd", "lcm", "bitwise_count", "float_power", "divmod")
# numpy's selection functions (numpy's take, not PyCUDA's: that one stays
# gpuarr.gpuarray.take)
_SELECTION = (
    "nonzero", "flatnonzero", "argwhere", "take", "put", "take_along_axis",
    "put_along_axis", "compress", "extract", "place", "choose")
_SORTING = (
    "sort", "argsort", "partition", "argpartition", "searchsorted",
    "unique", "lexsort", "sort_complex")
# numpy's set routines, bins and order statistics (module, names)
_STATISTICS = (
    ("gpuarr._setops", ("isin", "intersect1d", "union1d", "setdiff1d",
                        "setxor1d",
                        "unique_values", "unique_counts", "unique_inverse",
                        "unique_all")),
    ("gpuarr._logic", ("isclose", "allclose", "array_equal", "array_equiv",
                       "isposinf", "isneginf", "iscomplex", "isreal",
                       "real_if_close", "common_type")),
    ("gpuarr._mathfuncs", ("around", "round", "fix", "nan_to_num", "diff",
                           "ediff1d", "cumulative_sum", "cumulative_prod",
                           "trapezoid", "cross", "sinc", "unwrap",
                           "polyval")),
    ("gpuarr._interp", ("interp",)),
    ("gpuarr._convolve", ("correlate", "convolve")),
    ("gpuarr._bits", ("packbits", "unpackbits")),
    ("gpuarr.linalg", ("matrix_transpose",)),
    ("gpuarr._layoutfuncs", ("ascontiguousarray", "asfortranarray",
                             "require", "asarray_chkfinite", "isfortran",
                             "shares_memory", "may_share_memory")),
    ("gpuarr._editing", ("append", "delete", "insert", "resize",
                         "trim_zeros", "block")),
    ("gpuarr._indexfuncs", ("broadcast_arrays", "unravel_index",
                            "ravel_multi_index", "ix_", "tri", "vander",
                            "identity", "logspace",
                            "tril_indices", "triu_indices",
                            "tril_indices_from", "triu_indices_from",
                            "diag_indices", "diag_indices_from",
                            "fill_diagonal", "select", "putmask")),
    ("gpuarr._histograms", ("bincount", "digitize", "histogram",
                            "histogram_bin_edges")),
    ("gpuarr._quantiles", ("quantile", "percentile", "median",
                           "nanquantile", "nanpercentile", "nanmedian")),
    ("gpuarr._matmul", ("matmul", "tensordot")),
    ("gpuarr._contract", ("einsum", "outer", "kron")),
    ("gpuarr._nanstats", ("nanmean", "nanvar", "nanstd", "nanprod",
                          "nanargmax", "nanargmin", "nancumsum",
                          "nancumprod")),
    ("gpuarr._covariance", ("average", "cov", "corrcoef")))
_REDUCTIONS = (
    "sum", "prod", "nansum", "mean", "var", "std", "max", "min", "amax",
    "amin", "nanmax", "nanmin", "ptp", "argmax", "argmin", "any", "all",
    "count_nonzero", "dot", "vdot", "inner")

#: name of the flat namespace -> (module, attribute there)
_NAMES = {}
for _mod, _names in (("numpy", _NUMPY_TYPES), ("gpuarr.gpuarray", _GPUARRAY),
                     ("gpuarr.gpuarray", _JOINING),
                     ("gpuarr._manipulation", _VIEWS),
                     *_REARRANGE,
                     ("gpuarr.cumath", _CUMATH),
                     ("gpuarr.reductions", _REDUCTIONS),
                     ("gpuarr._sorting", _SORTING),
                     *_STATISTICS,
                     ("gpuarr._selection", _SELECTION),
                     ("gpuarr.cumulative", ("cumsum", "cumprod")),
                     ("gpuarr.tools", ("DeviceMemoryPool",
                                       "PageLockedMemoryPool"))):
    for _n in _names:
        _NAMES[_n] = (_mod, _n)
_NAMES["bool"] = ("numpy", "bool_")         # numpy-style dtype alias
_NAMES["ndarray"] = ("gpuarr.gpuarray", "GPUArray")
_NAMES["show_config"] = ("gpuarr._diagnostics", "show_config")
_NAMES["fuse"] = ("gpuarr._fusion", "fuse")
_NAMES["array"] = ("gpuarr._creation", "array")
_NAMES["Device"] = ("gpuarr.driver", "Device")     # ``with gpuarr.Device(1):``
del _mod, _names, _n

#: submodules reachable as attributes (``gpuarr.cumath.sin``) without an
#: import statement; ``autoinit`` is not among them (it has side effects)
_SUBMODULES = frozenset((
    "driver", "compiler", "gpuarray", "cumath", "tools", "elementwise",
    "characterize",
    "reduction", "reductions", "scan", "cumulative", "linalg", "random",
    "curandom"))

__all__ = sorted(_NAMES) + sorted(_SUBMODULES)


def _load_numpy_functions():
    """Import the table of numpy functions gpuarr implements (layer 6),
    which the array class reaches only through gpuarr._dispatch."""
    from . import _dispatch_table  # noqa: F401 - fills the registry


# the registry imports nothing itself; its first lookup runs the loader
from . import _dispatch as _dispatch_registry  # noqa: E402
_dispatch_registry.add_loader(_load_numpy_functions)


def __getattr__(name):
    """Import what a name of the flat namespace needs at its first use."""
    import importlib
    if name in _SUBMODULES:
        return importlib.import_module("gpuarr." + name)
    try:
        module, attr = _NAMES[name]
    except KeyError:
        raise AttributeError("module 'gpuarr' has no attribute %r"
                             % (name,)) from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value     # the next access is a plain lookup
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
