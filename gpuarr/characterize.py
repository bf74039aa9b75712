"""What the device and the platform offer (PyCUDA's ``pycuda.characterize``;
layer 3).

:func:`sizeof` compiles and runs a one-thread kernel, as PyCUDA does, so it
reports the size the device compiler gives a type (a struct of the
``preamble``, a vector type, ``long double``...); the others read the
current context's device or the host.
"""

import struct

import numpy as np

from . import compiler, kernels, tools
from . import driver as _drv

__all__ = ["platform_bits", "has_stack", "has_double_support", "sizeof"]


def platform_bits():
    """The host's pointer width in bits (PyCUDA's ``platform_bits``).

    Returns
    -------
    int
        64 on every platform gpuarr supports.
    """
    return struct.calcsize("P") * 8


def _cc():
    return _drv.Context.get_device().compute_capability()


def has_stack():
    """Whether the current context's device has a call stack (compute
    capability 2.0 or newer: every device CUDA 12 supports).

    PyCUDA's ``has_stack()``; read from the device's compute capability
    (no kernel runs).

    Returns
    -------
    bool
        True for compute capability 2.0 or newer.

    Raises
    ------
    gpuarr.driver.InvalidContextError
        With no current context.
    """
    return _cc() >= (2, 0)


def has_double_support():
    """Whether the current context's device computes in double precision
    (compute capability 1.3 or newer: every device CUDA 12 supports).

    PyCUDA's ``has_double_support()``; read from the device's compute
    capability (no kernel runs).

    Returns
    -------
    bool
        True for compute capability 1.3 or newer.

    Raises
    ------
    gpuarr.driver.InvalidContextError
        With no current context.
    """
    return _cc() >= (1, 3)


def sizeof(type_name, preamble=""):
    """``sizeof(type_name)`` as the device compiler sees it, in bytes.

    Compiles (through :class:`gpuarr.compiler.SourceModule`, cached) and
    runs a one-thread kernel writing the size; the answer is remembered per
    context and arguments (PyCUDA's ``context_dependent_memoize``).

    Parameters
    ----------
    type_name : str
        A C/C++ type, e.g. ``"float3"``, ``"double2"``, ``"struct pair"``.
    preamble : str
        Source put before the kernel: the type's definition or includes.

    Returns
    -------
    int

    Raises
    ------
    TypeError
        When ``type_name`` or ``preamble`` is not a str.
    gpuarr.driver.CompileError
        When the type is unknown to the compiler.
    gpuarr.driver.InvalidContextError
        With no current context.
    """
    if not isinstance(type_name, str) or not type_name.strip():
        raise TypeError("type_name must be a non-empty str, not %r"
                        % (type_name,))
    if not isinstance(preamble, str):
        raise TypeError("preamble must be a str, not %r" % (preamble,))
    return _sizeof(type_name, preamble)


@tools.context_dependent_memoize
def _sizeof(type_name, preamble):
    source = kernels.render("sizeof.cu.mako", preamble=preamble,
                            type_name=type_name)
    mod = compiler.SourceModule(source, no_extern_c=True)
    out = _drv.mem_alloc(8)
    mod.get_function("write_size")(out, block=(1, 1, 1), grid=(1, 1))
    host = np.zeros((), np.uint64)
    _drv.memcpy_dtoh(host, out)
    return int(host)
