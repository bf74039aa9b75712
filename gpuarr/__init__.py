"""gpuarr: Pythonic access to NVIDIA GPUs through the CUDA driver API.

The flat namespace holds the array API (PyCUDA's ``gpuarray`` and ``cumath``
names, numpy's semantics)::

    import gpuarr.autoinit          # primary context of device 0
    import gpuarr as ga
    a = ga.to_gpu(numpy.arange(10.0))
    b = ga.sin(a) + 1
    b.get()

Importing ``gpuarr`` touches neither the CUDA driver nor Mako; both are
loaded at the first allocation or kernel launch.
"""

from numpy import (bool_, int8, int16, int32, int64, uint8, uint16, uint32,
                   uint64, float16, float32, float64, complex64, complex128)

from . import gpuarray, cumath, tools
from .gpuarray import (
    GPUArray, UFuncTypeError, to_gpu, to_gpu_async, empty, zeros, ones, full,
    arange, linspace, eye, empty_like, zeros_like, ones_like, full_like, fill,
    asarray, from_dlpack, broadcast_to, reshape, ravel, transpose, swapaxes,
    squeeze, expand_dims, astype,
    add, subtract, multiply, divide, true_divide, floor_divide, remainder, mod,
    power, negative, positive, absolute, abs, invert, bitwise_not, bitwise_and,
    bitwise_or, bitwise_xor, left_shift, right_shift, equal, not_equal, less,
    less_equal, greater, greater_equal, logical_and, logical_or, logical_xor,
    logical_not)
from .cumath import (
    sin, cos, tan, arcsin, arccos, arctan, arctan2, sinh, cosh, tanh, arcsinh,
    arccosh, arctanh, exp, exp2, expm1, log, log2, log10, log1p, sqrt, cbrt,
    square, reciprocal, fabs, sign, floor, ceil, trunc, rint, fmod, hypot,
    minimum, maximum, fmin, fmax, clip, where, isnan, isinf, isfinite, conj,
    conjugate, angle, if_positive)
from .tools import DeviceMemoryPool, PageLockedMemoryPool
from . import reductions, cumulative, linalg, random, curandom
from .reductions import (  # noqa: A004 - numpy's names shadow builtins here
    sum, prod, nansum, mean, var, std, max, min, amax, amin, nanmax, nanmin,
    ptp, argmax, argmin, any, all, count_nonzero, dot, vdot, inner)
from .cumulative import cumsum, cumprod

bool = bool_  # noqa: A001 - numpy-style dtype alias in the flat namespace
ndarray = GPUArray

__version__ = "0.1.0"
