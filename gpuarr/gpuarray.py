"""n-dimensional arrays in GPU memory: PyCUDA's ``pycuda.gpuarray`` names.

:class:`GPUArray` follows PyCUDA's ``pycuda.gpuarray.GPUArray`` names and
signatures; where PyCUDA and numpy disagree, numpy's semantics win (type
promotion by NEP 50, views from basic indexing and ``reshape``, broadcasting
in every operator, ``same_kind`` casting for in-place operators and ``out=``).

This module only gathers the array layer's public names under PyCUDA's
module name; the code lives in one module per concern (see
``docs/architecture.md``): :mod:`gpuarr._array` (the class),
:mod:`gpuarr._creation`, :mod:`gpuarr._transfer`, :mod:`gpuarr._ufunc`,
:mod:`gpuarr._indexing`, :mod:`gpuarr._manipulation`,
:mod:`gpuarr._interop`, :mod:`gpuarr._joining`; PyCUDA's reductions (``sum``, ``dot``, ``min``,
``subset_dot``, ..., with PyCUDA's argument order) are
:mod:`gpuarr._pyreduce`'s, whereas the flat namespace's ``gpuarr.sum``
and the array methods keep numpy's signatures.
"""

from ._array import GPUArray
from ._creation import (
    empty, zeros, ones, full, empty_like, zeros_like, ones_like, full_like,
    to_gpu, to_gpu_async, arange, linspace, eye, asarray, from_dlpack)
from ._manipulation import (
    astype, reshape, ravel, transpose, swapaxes, squeeze, expand_dims,
    broadcast_to)
from ._transfer import fill
from ._vectypes import vec
# joining and gathering
from ._joining import (
    concatenate, stack, hstack, vstack, dstack, column_stack, take,
    multi_take, multi_put)
from ._ufunc import (
    UFuncTypeError, add, subtract, multiply, divide, true_divide,
    floor_divide, remainder, mod, power, negative, positive, absolute, abs,
    invert, bitwise_not, bitwise_and, bitwise_or, bitwise_xor, left_shift,
    right_shift, equal, not_equal, less, less_equal, greater, greater_equal,
    logical_and, logical_or, logical_xor, logical_not)
# PyCUDA's reductions by PyCUDA's signatures, conditionals, splay
from ._pyreduce import (  # noqa: A004 - PyCUDA's names shadow builtins
    sum, dot, vdot, min, max, all, any, subset_sum, subset_dot, subset_min,
    subset_max)
from ._pymethods import splay
from ._ufunc import minimum, maximum, where, if_positive

__all__ = [
    "GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones", "full",
    "arange", "linspace", "eye", "empty_like", "zeros_like", "ones_like",
    "full_like", "fill", "asarray", "from_dlpack", "broadcast_to", "reshape",
    "ravel", "transpose", "swapaxes", "squeeze", "expand_dims", "astype",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide",
    "remainder", "mod", "power", "negative", "positive", "absolute", "abs",
    "invert", "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor",
    "left_shift", "right_shift", "equal", "not_equal", "less", "less_equal",
    "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
    "logical_not", "UFuncTypeError",
    "vec",
    # PyCUDA's reductions, conditionals, splay
    "sum", "dot", "vdot", "min", "max", "all", "any", "subset_sum",
    "subset_dot", "subset_min", "subset_max", "minimum", "maximum", "where",
    "if_positive", "splay",
    # joining and gathering
    "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack",
    "take", "multi_take", "multi_put",
]
