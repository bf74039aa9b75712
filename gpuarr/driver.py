"""The CUDA driver API, Pythonic (PyCUDA's ``pycuda.driver`` names).

Importing this module needs no GPU and no driver: ``libcuda.so.1`` is loaded
at the first call that needs it, and a missing driver raises
:class:`DriverNotFoundError` (a :class:`Error`) saying what to install.

Every driver call's ``CUresult`` is checked; failures raise a subclass of
:class:`Error` carrying ``code``, ``name`` (``CUDA_ERROR_*``), the driver's
``description`` and the ``call`` that failed:

- :class:`LogicError`: invalid values, handles, images (``InvalidContextError``
  when no context is current or it was detached);
- :class:`LaunchError`: launch failures and faults inside kernels;
- :class:`MemoryError`: out of memory (also a builtin ``MemoryError``);
- :class:`RuntimeError`: anything else (``NotSupportedError``,
  ``DriverNotFoundError``);
- :class:`CompileError`: CUDA C that failed to compile (from
  :mod:`gpuarr.compiler`), with the compiler's ``log``.
"""

from gpuarr._errors import (  # noqa: F401
    Error, LogicError, LaunchError, MemoryError, RuntimeError, CompileError,
    DriverNotFoundError, InvalidContextError, NotSupportedError)
from gpuarr._enums import (  # noqa: F401
    device_attribute, function_attribute, limit, func_cache, ctx_flags,
    stream_flags, event_flags, jit_option, jit_input_type, pointer_attribute,
    host_alloc_flags, mem_host_register_flags, mem_pool_attribute)
from gpuarr._driver import (  # noqa: F401
    init, get_version, get_driver_version,
    Device, Context, DeviceAllocation, HostAllocation, Stream, Event,
    MemoryPool,
    Module, Function, In, Out, InOut, ArgumentHandler, Linker,
    mem_alloc, mem_alloc_async, mem_get_info,
    memcpy_htod, memcpy_dtoh, memcpy_dtod,
    memcpy_htod_async, memcpy_dtoh_async, memcpy_dtod_async,
    memset_d8, memset_d16, memset_d32,
    memset_d8_async, memset_d16_async, memset_d32_async,
    pagelocked_empty, pagelocked_zeros, pagelocked_empty_like,
    pagelocked_zeros_like, register_host_memory,
    module_from_buffer, module_from_file, add_detach_hook)


def to_device(ary):
    """Copy a contiguous numpy array to new device memory; returns the
    :class:`DeviceAllocation` (PyCUDA's ``to_device``)."""
    alloc = mem_alloc(ary.nbytes)
    if ary.nbytes:
        memcpy_htod(alloc, ary)
    return alloc


def from_device(devptr, shape, dtype, order="C"):
    """Copy device memory at ``devptr`` into a new numpy array of ``shape``
    and ``dtype`` (PyCUDA's ``from_device``)."""
    import numpy as np
    result = np.empty(shape, dtype, order=order)
    if result.nbytes:
        memcpy_dtoh(result, devptr)
    return result


def from_device_like(devptr, other_ary):
    """:func:`from_device` with the shape and dtype of ``other_ary``."""
    return from_device(devptr, other_ary.shape, other_ary.dtype)
