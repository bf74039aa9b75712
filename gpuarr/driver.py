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

import numpy as _np

from gpuarr._errors import (  # noqa: F401
    Error, LogicError, LaunchError, MemoryError, RuntimeError, CompileError,
    DriverNotFoundError, InvalidContextError, NotSupportedError)
from gpuarr._enums import (  # noqa: F401
    device_attribute, function_attribute, limit, func_cache, ctx_flags,
    stream_flags, event_flags, jit_option, jit_input_type, pointer_attribute,
    host_alloc_flags, mem_host_register_flags, mem_pool_attribute,
    memory_type, mem_attach_flags, mem_advice, ipc_mem_flags)
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
    module_from_buffer, module_from_file, add_detach_hook, stream_handle,
    context_devices)
# memory kinds, IPC and peer access
from gpuarr._driver import (  # noqa: F401
    ManagedAllocation, managed_empty, managed_zeros, managed_empty_like,
    managed_zeros_like, mem_prefetch_async, mem_advise,
    pointer_get_attribute, pointer_get_attributes,
    mem_get_ipc_handle, IPCMemoryHandle)
# graphs and stream capture (issue 12, item 7)
from gpuarr._driver import (  # noqa: F401
    Graph, GraphNode, GraphExec, capture_in_progress)
from gpuarr._enums import (  # noqa: F401 -- graphs and stream capture
    capture_mode, capture_status, update_capture_dependencies_flags,
    graph_node_type, graph_exec_update_result, graph_instantiate_flags,
    graph_debug_dot_flags)
# pitched memory, 2-D/3-D copies, CUDA arrays, texture and surface objects
from gpuarr._driver import (  # noqa: F401
    mem_alloc_pitch, memset_d2d8, memset_d2d16, memset_d2d32,
    memset_d2d8_async, memset_d2d16_async, memset_d2d32_async,
    Memcpy2D, Memcpy3D, Memcpy3DPeer, memcpy_peer, memcpy_peer_async,
    ArrayDescriptor, ArrayDescriptor3D, Array,
    memcpy_htoa, memcpy_atoh, memcpy_dtoa, memcpy_atod,
    dtype_to_array_format, array_format_to_dtype,
    np_to_array, matrix_to_array, gpuarray_to_array,
    TextureObject, SurfaceObject, ResourceViewDescriptor)
from gpuarr._enums import (  # noqa: F401  (arrays and textures)
    array_format, array3d_flags, address_mode, filter_mode,
    resource_type, texture_read_mode, resource_view_format)


def to_device(ary):
    """Copy a contiguous host array to new device memory (PyCUDA's
    ``to_device``).

    :func:`mem_alloc` of ``ary.nbytes`` bytes, then :func:`memcpy_htod`
    (``cuMemAlloc``, ``cuMemcpyHtoD``); nothing is copied for an empty
    array.

    Parameters
    ----------
    ary : numpy.ndarray
        A C- or F-contiguous array (any buffer with ``nbytes``); its bytes
        are copied as they lie in memory.

    Returns
    -------
    DeviceAllocation
        ``ary.nbytes`` bytes holding a copy of ``ary``'s data (an
        allocation at address 0 for an empty ``ary``).

    Raises
    ------
    MemoryError
        When the device is out of memory.
    InvalidContextError
        When no context is current.
    ValueError
        When ``ary`` is not contiguous.
    """
    alloc = mem_alloc(ary.nbytes)
    if ary.nbytes:
        memcpy_htod(alloc, ary)
    return alloc


def from_device(devptr, shape, dtype, order="C"):
    """Copy device memory at ``devptr`` into a new numpy array of ``shape``
    and ``dtype`` (PyCUDA's ``from_device``).

    :func:`memcpy_dtoh` (``cuMemcpyDtoH``) of the new array's ``nbytes``
    bytes; nothing is copied for an empty shape.

    Parameters
    ----------
    devptr : DeviceAllocation or int
        The device address: a :class:`DeviceAllocation`, an int, or an
        object with ``gpudata`` or ``__cuda_array_interface__``.
    shape : int or tuple of int
        The new array's shape.
    dtype : dtype-like
        The new array's dtype.
    order : {'C', 'F'}, optional
        The new array's memory order (default 'C').

    Returns
    -------
    numpy.ndarray
        A new host array of ``shape`` and ``dtype``.

    Raises
    ------
    ValueError
        When the array's bytes exceed ``devptr``'s
        :class:`DeviceAllocation`.
    TypeError
        When ``devptr`` is not a device pointer.
    """
    import numpy as np
    result = np.empty(shape, dtype, order=order)
    if result.nbytes:
        memcpy_dtoh(result, devptr)
    return result


def from_device_like(devptr, other_ary):
    """:func:`from_device` with the shape and dtype of ``other_ary``
    (PyCUDA's ``from_device_like``).

    Parameters
    ----------
    devptr : DeviceAllocation or int
        The device address, as in :func:`from_device`.
    other_ary : numpy.ndarray or GPUArray
        Gives the shape and dtype (the result is C-ordered whatever its
        order).

    Returns
    -------
    numpy.ndarray
        A new C-ordered host array.

    Raises
    ------
    ValueError
        When the array's bytes exceed ``devptr``'s
        :class:`DeviceAllocation`.
    TypeError
        When ``devptr`` is not a device pointer.
    """
    return from_device(devptr, other_ary.shape, other_ary.dtype)


def mem_alloc_like(ary):
    """:func:`mem_alloc` of ``ary.nbytes`` bytes (PyCUDA's
    ``mem_alloc_like``): uninitialized device memory the size of ``ary``
    (a numpy array, a GPUArray, anything with ``nbytes``).

    Parameters
    ----------
    ary : numpy.ndarray or GPUArray
        Anything with ``nbytes``; only its size is used.

    Returns
    -------
    DeviceAllocation
        ``ary.nbytes`` bytes of uninitialized device memory; for
        ``ary.nbytes == 0``, an allocation at address 0, as from
        :func:`mem_alloc` (``cuMemAlloc`` is not called).

    Raises
    ------
    MemoryError
        When the device is out of memory.
    InvalidContextError
        When no context is current.
    """
    return mem_alloc(ary.nbytes)


def _aligned_shape(shape):
    np = _np
    if np.ndim(shape) == 0:
        shape = (shape,)
    out = []
    for n in shape:
        n = int(n) if isinstance(n, (int, np.integer)) else n
        if not isinstance(n, int):
            raise TypeError("shape entries must be integers, not %r" % (n,))
        if n < 0:
            raise ValueError("negative dimensions are not allowed")
        out.append(n)
    return tuple(out)


def aligned_empty(shape, dtype=_np.float32, order="C", alignment=4096):
    """An uninitialized numpy array whose data starts at a multiple of
    ``alignment`` bytes (PyCUDA's ``aligned_empty``).

    Ordinary (pageable) host memory, e.g. for :func:`register_host_memory`
    or ``O_DIRECT`` I/O; for page-locked memory see
    :func:`pagelocked_empty`.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : dtype-like, optional
        Default float32 (PyCUDA's has no default).
    order : {'C', 'F'}
    alignment : int
        A power of two (default 4096, a page).

    Returns
    -------
    numpy.ndarray
        Its ``base`` chain holds the (slightly larger) buffer it views.

    Raises
    ------
    ValueError
        For a negative dimension, an ``order`` other than 'C'/'F' or an
        ``alignment`` that is not a positive power of two.
    TypeError
        For a non-integer dimension or a dtype numpy does not know.
    """
    np = _np
    dt = np.dtype(dtype)
    shape = _aligned_shape(shape)
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F', not %r" % (order,))
    if (not isinstance(alignment, (int, np.integer)) or alignment < 1
            or int(alignment) & (int(alignment) - 1)):
        raise ValueError("alignment must be a positive power of two, not %r"
                         % (alignment,))
    alignment = int(alignment)
    nbytes = dt.itemsize
    for n in shape:
        nbytes *= n
    raw = np.empty(nbytes + alignment, np.uint8)
    start = -raw.ctypes.data % alignment
    return np.ndarray(shape, dt, buffer=raw.data, offset=start, order=order)


def aligned_zeros(shape, dtype=_np.float32, order="C", alignment=4096):
    """:func:`aligned_empty` filled with zeros (PyCUDA's
    ``aligned_zeros``).

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape.
    dtype : dtype-like, optional
        Default float32.
    order : {'C', 'F'}, optional
        Memory order (default 'C').
    alignment : int, optional
        The data's alignment in bytes, a power of two (default 4096).

    Returns
    -------
    numpy.ndarray
        Zeros, in ordinary (pageable) host memory.

    Raises
    ------
    ValueError
        For a negative dimension, an ``order`` other than 'C'/'F' or an
        ``alignment`` that is not a positive power of two.
    TypeError
        For a non-integer dimension or a dtype numpy does not know.
    """
    result = aligned_empty(shape, dtype, order, alignment)
    result.fill(0)
    return result


def aligned_empty_like(array, alignment=4096):
    """:func:`aligned_empty` with the shape, dtype and order of ``array``
    (PyCUDA's ``aligned_empty_like``).

    Parameters
    ----------
    array : numpy.ndarray
        A C- or F-contiguous array giving the shape, dtype and order.
    alignment : int, optional
        The data's alignment in bytes, a power of two (default 4096).

    Returns
    -------
    numpy.ndarray
        Uninitialized, in ordinary (pageable) host memory.

    Raises
    ------
    ValueError
        When ``array`` is neither C- nor F-contiguous ("could not detect
        array order", as PyCUDA says), or for an ``alignment`` that is not
        a positive power of two.
    """
    if array.flags.c_contiguous:
        order = "C"
    elif array.flags.f_contiguous:
        order = "F"
    else:
        raise ValueError("could not detect array order")
    return aligned_empty(array.shape, array.dtype, order, alignment)


def aligned_zeros_like(array, alignment=4096):
    """:func:`aligned_empty_like` filled with zeros (PyCUDA's
    ``aligned_zeros_like``).

    Parameters
    ----------
    array : numpy.ndarray
        A C- or F-contiguous array giving the shape, dtype and order.
    alignment : int, optional
        The data's alignment in bytes, a power of two (default 4096).

    Returns
    -------
    numpy.ndarray
        Zeros, in ordinary (pageable) host memory.

    Raises
    ------
    ValueError
        When ``array`` is neither C- nor F-contiguous, or for an
        ``alignment`` that is not a positive power of two.
    """
    result = aligned_empty_like(array, alignment)
    result.fill(0)
    return result
