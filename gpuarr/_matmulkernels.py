"""The kernel builder of integer and bool matrix products (layer 4).

numpy multiplies integer matrices exactly, wrapping modulo the result
type, which cuBLAS does not offer (its integer GEMM takes int8 inputs
only, with int32 results); ``matmul.cu.mako`` is gpuarr's own kernel for
every integer and bool dtype, batched with any element strides.  This
module describes its launch as a :class:`~gpuarr._kernelspec.KernelSpec`
without a device (the CPU tests render and compile it); the array layer
(:mod:`gpuarr._matmul`) compiles it once per context through
:func:`gpuarr._joinkernels.function`.
"""

import numpy as np

from . import _dtypes
from ._kernelspec import KernelSpec

__all__ = ["INT_DTYPES", "int_gemm_spec", "GRID_LIMIT"]

#: the dtypes of :func:`int_gemm_spec`
INT_DTYPES = tuple(np.dtype(t) for t in (
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
    np.int64, np.uint64))
#: the largest grid extent used in y and z (x: as many tiles as needed, up
#: to the same bound; blocks stride over the rest)
GRID_LIMIT = 65535


def int_gemm_spec(dtype, m, n, k, batch, a_strides, b_strides, c_strides):
    """The launch of ``C = A @ B`` for integer or bool matrices.

    Parameters
    ----------
    dtype : numpy.dtype
        One of :data:`INT_DTYPES`; every operand has it.
    m, n, k : int
        ``A`` is m x k, ``B`` k x n, ``C`` m x n (m, n >= 1).
    batch : int
        Products (>= 1).
    a_strides, b_strides, c_strides : (int, int, int)
        (batch, row, column) strides of each operand, in elements.

    Returns
    -------
    KernelSpec
        Argument format ``"PPP" + 13 "q"``: the three device addresses,
        then :attr:`KernelSpec.tail` (m, n, k, batch and the nine
        strides).

    Raises
    ------
    TypeError
        For a dtype not in :data:`INT_DTYPES`.
    """
    dtype = np.dtype(dtype)
    if dtype not in INT_DTYPES:
        raise TypeError("no integer matrix-product kernel for %s" % dtype)
    logic = dtype.kind == "b"
    acc = ("unsigned long long" if dtype.itemsize == 8 else "unsigned int")
    spec = KernelSpec("matmul.cu.mako")
    spec.name = "ga_int_gemm"
    spec.kkey = ("int_gemm", dtype.str)
    spec.render_kw = dict(name=spec.name, ctype=_dtypes.ctype(dtype), acc=acc,
                          logic=logic)
    spec.chars = "PPP" + "q" * 13
    spec.block = (16, 16, 1)
    spec.grid = (min(-(-n // 16), GRID_LIMIT), min(-(-m // 16), GRID_LIMIT),
                 min(batch, GRID_LIMIT))
    spec.tail = (m, n, k, batch) + tuple(a_strides) + tuple(b_strides) \
        + tuple(c_strides)
    spec.path = "int"
    return spec
