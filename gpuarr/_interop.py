"""Interop: the CUDA Array Interface and DLPack, both ways (layer 5,
above :mod:`gpuarr._array`).

Export: :func:`cuda_array_interface` (version 3) and :func:`to_dlpack`
(the unversioned DLPack capsule) back ``GPUArray.__cuda_array_interface__``
and ``GPUArray.__dlpack__``. Import: :func:`from_cuda_array_interface` and
:func:`from_dlpack` wrap another library's device memory without a copy,
keeping its owner alive.

DLPack is implemented with ctypes (no compiled code). The unversioned ABI
(DLPack 0.8, capsule name ``"dltensor"``)::

    DLDevice        {int32 device_type; int32 device_id}
    DLDataType      {uint8 code; uint8 bits; uint16 lanes}
    DLTensor        {void *data; DLDevice device; int32 ndim; DLDataType dtype;
                     int64 *shape; int64 *strides; uint64 byte_offset}
    DLManagedTensor {DLTensor dl_tensor; void *manager_ctx;
                     void (*deleter)(DLManagedTensor *)}

Protocol: the producer wraps a ``DLManagedTensor*`` in a capsule named
``"dltensor"``; a consumer renames the capsule ``"used_dltensor"`` and calls
``deleter`` when it no longer needs the memory. If the capsule dies still
named ``"dltensor"`` (never consumed), its destructor calls ``deleter``.
Strides are in elements; ``strides == NULL`` means C-contiguous.
"""


import ctypes
import itertools
import threading

import numpy as np

from . import _dtypes, _layout
from . import driver as _drv
from ._array import GPUArray, make

kDLCPU = 1
kDLCUDA = 2
kDLCUDAHost = 3
kDLCUDAManaged = 13

# DLDataTypeCode
kDLInt, kDLUInt, kDLFloat, kDLOpaqueHandle, kDLBfloat, kDLComplex, kDLBool = range(7)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", ctypes.c_void_p),
                            ("deleter", _DELETER)]

_api = ctypes.pythonapi
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                               _CAPSULE_DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# The capsule keeps the name pointer, so these buffers live forever.
_NAME = ctypes.create_string_buffer(b"dltensor")
_USED_NAME = ctypes.create_string_buffer(b"used_dltensor")
_NAME_P = ctypes.cast(_NAME, ctypes.c_char_p)
_USED_NAME_P = ctypes.cast(_USED_NAME, ctypes.c_char_p)

_CODES = {"b": kDLBool, "i": kDLInt, "u": kDLUInt, "f": kDLFloat, "c": kDLComplex}
_KINDS = {v: k for k, v in _CODES.items()}

# exported tensors alive in consumers: id -> (struct, shape, strides, array)
_LIVE = {}
_LIVE_LOCK = threading.Lock()
_IDS = itertools.count(1)


def _delete(managed):
    """Deleter stored in every exported DLManagedTensor: drop our references."""
    try:
        key = managed.contents.manager_ctx
        with _LIVE_LOCK:
            _LIVE.pop(key, None)
    except Exception:  # never raise into C
        pass


_DELETER_FN = _DELETER(_delete)


def _capsule_destructor(capsule):
    """Called when an exported capsule dies: delete it if never consumed."""
    try:
        if _api.PyCapsule_IsValid(capsule, _NAME_P):
            # still named "dltensor": nobody took ownership
            ptr = _capsule_pointer_raw(capsule)
            if ptr:
                managed = ctypes.cast(ptr, ctypes.POINTER(DLManagedTensor))
                managed.contents.deleter(managed)
    except Exception:
        pass


_get_ptr_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_char_p)(("PyCapsule_GetPointer",
                                                   ctypes.pythonapi))


def _capsule_pointer_raw(capsule_addr):
    return _get_ptr_raw(capsule_addr, _NAME_P)


_CAPSULE_DESTRUCTOR_FN = _CAPSULE_DESTRUCTOR(_capsule_destructor)


def dl_dtype(dtype):
    """``(code, bits, lanes)`` of a numpy dtype.

    Raises
    ------
    BufferError
        For dtypes DLPack cannot describe.
    """
    dtype = np.dtype(dtype)
    code = _CODES.get(dtype.kind)
    if code is None:
        raise BufferError("dtype %s cannot be exported through DLPack" % dtype)
    return code, dtype.itemsize * 8, 1


def np_dtype(code, bits, lanes):
    """The numpy dtype of a DLPack ``(code, bits, lanes)``.

    Raises
    ------
    BufferError
        For vector lanes, bfloat16 and other codes numpy lacks.
    """
    if lanes != 1:
        raise BufferError("DLPack tensors with %d lanes are not supported" % lanes)
    kind = _KINDS.get(code)
    if kind is None or bits % 8:
        raise BufferError("DLPack dtype code %d with %d bits is not supported"
                          % (code, bits))
    if kind == "b":
        if bits != 8:
            raise BufferError("DLPack bool of %d bits is not supported" % bits)
        return np.dtype(np.bool_)
    return np.dtype("%s%d" % (kind, bits // 8))


def device_id(ptr=None):
    """Ordinal of the current context's device (used for ``kDLCUDA`` ids)."""
    dev = _drv.Context.get_device()
    for attr in ("handle", "ordinal"):  # a CUdevice is the ordinal
        v = getattr(dev, attr, None)
        if v is not None:
            return int(v() if callable(v) else v)
    return int(dev)


def to_capsule(arr):
    """Export ``arr`` (a GPUArray) as a ``"dltensor"`` PyCapsule.

    The capsule keeps ``arr`` alive until the consumer calls the deleter (or
    the unconsumed capsule is collected).
    """
    ndim = arr.ndim
    code, bits, lanes = dl_dtype(arr.dtype)
    shape = (ctypes.c_int64 * max(ndim, 1))(*arr.shape)
    isz = arr.dtype.itemsize
    strides = (ctypes.c_int64 * max(ndim, 1))(*[s // isz for s in arr.strides])
    for s in arr.strides:
        if s % isz:
            raise BufferError("strides are not a multiple of the item size")
    managed = DLManagedTensor()
    t = managed.dl_tensor
    t.data = arr.ptr if arr.size else 0
    t.device.device_type = kDLCUDA
    t.device.device_id = device_id(arr.ptr) if arr.size else _safe_device_id()
    t.ndim = ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, lanes
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    key = next(_IDS)
    managed.manager_ctx = key
    managed.deleter = _DELETER_FN
    with _LIVE_LOCK:
        _LIVE[key] = (managed, shape, strides, arr)
    return _api.PyCapsule_New(ctypes.addressof(managed), _NAME_P,
                              _CAPSULE_DESTRUCTOR_FN)


def _safe_device_id():
    try:
        return device_id()
    except Exception:
        return 0


class _DLPackOwner:
    """Base of an imported GPUArray: calls the producer's deleter when dead."""

    __slots__ = ("_managed", "producer", "__weakref__")

    def __init__(self, managed, producer):
        self._managed = managed
        self.producer = producer

    def __del__(self):
        m = self._managed
        if m is not None:
            self._managed = None
            try:
                if m.contents.deleter:
                    m.contents.deleter(m)
            except Exception:
                pass


def from_capsule(capsule, producer=None):
    """Consume a ``"dltensor"`` capsule into a GPUArray without copying.

    Raises
    ------
    BufferError
        If the tensor is not in CUDA (or CUDA managed) memory or its dtype is
        not supported; ValueError if the capsule was already consumed.
    """
    if type(capsule).__name__ != "PyCapsule" or \
            not _api.PyCapsule_IsValid(id(capsule), _NAME_P):
        raise ValueError("expected a PyCapsule named 'dltensor' (a capsule "
                         "can be consumed only once)")
    addr = _api.PyCapsule_GetPointer(capsule, _NAME_P)
    managed = ctypes.cast(addr, ctypes.POINTER(DLManagedTensor))
    t = managed.contents.dl_tensor
    if t.device.device_type not in (kDLCUDA, kDLCUDAManaged):
        raise BufferError("DLPack tensor is on device type %d, not CUDA; "
                          "use numpy.from_dlpack and gpuarr.to_gpu"
                          % t.device.device_type)
    dtype = np_dtype(t.dtype.code, t.dtype.bits, t.dtype.lanes)
    try:
        dtype = _dtypes.canonical(dtype)
    except TypeError as exc:
        raise BufferError(str(exc)) from None
    ndim = t.ndim
    shape = tuple(int(t.shape[i]) for i in range(ndim))
    isz = dtype.itemsize
    if t.strides:
        strides = tuple(int(t.strides[i]) * isz for i in range(ndim))
    else:
        strides = _layout.c_strides(shape, isz)
    ptr = (t.data or 0) + t.byte_offset
    # take ownership: rename so the producer's destructor leaves it alone
    _api.PyCapsule_SetName(capsule, _USED_NAME_P)
    owner = _DLPackOwner(managed, producer)
    c, f = _layout.contiguity(shape, strides, isz)
    return make(shape, dtype, strides, ptr, ptr, owner, c, f)


def from_dlpack(x):
    """Import ``x`` (an object with ``__dlpack__``, or a capsule) zero-copy.

    The producer is asked for data ready on the legacy default stream
    (``stream=1``), where gpuarr enqueues its work.
    """
    if isinstance(x, GPUArray):
        return x
    if type(x).__name__ == "PyCapsule":
        return from_capsule(x)
    if not hasattr(x, "__dlpack__"):
        raise TypeError("from_dlpack needs an object with __dlpack__ (got %s)"
                        % type(x).__name__)
    if hasattr(x, "__dlpack_device__"):
        dev_type, _ = x.__dlpack_device__()
        if int(dev_type) not in (kDLCUDA, kDLCUDAManaged):
            raise BufferError("the producer's data is on DLPack device type "
                              "%d, not CUDA; use numpy.from_dlpack and "
                              "gpuarr.to_gpu" % int(dev_type))
    try:
        capsule = x.__dlpack__(stream=1)
    except TypeError:
        capsule = x.__dlpack__()
    return from_capsule(capsule, x)


# ---------------------------------------------------------------------------
# the CUDA Array Interface


def cuda_array_interface(a):
    """The ``__cuda_array_interface__`` (version 3) of GPUArray ``a``.

    ``strides`` is None for C-contiguous arrays; ``data`` is
    ``(ptr, False)`` (``(0, False)`` for size 0); ``stream`` is ``1``
    (the legacy default stream, where gpuarr enqueues its work).
    """
    return {
        "shape": a.shape,
        "typestr": a.dtype.str,
        "descr": [("", a.dtype.str)],
        "data": (a.ptr if a.size else 0, False),
        "strides": None if a._c else a.strides,
        "version": 3,
        "stream": 1,
    }


def from_cuda_array_interface(obj, cai):
    """Wrap ``obj``, whose ``__cuda_array_interface__`` is ``cai``, as a
    GPUArray without a copy (``obj`` becomes its ``base``).

    Raises
    ------
    ValueError
        For a version above 3, a mask, or stream 0 (not allowed by the
        interface).
    TypeError
        For an unsupported dtype.
    """
    version = cai.get("version", 0)
    if version > 3:
        raise ValueError("unsupported __cuda_array_interface__ version %r"
                         % (version,))
    if cai.get("mask") is not None:
        raise ValueError("masked __cuda_array_interface__ is not supported")
    dtype = _dtypes.canonical(np.dtype(cai["typestr"]))
    shape = tuple(int(n) for n in cai["shape"])
    strides = cai.get("strides")
    if strides is None:
        strides = _layout.c_strides(shape, dtype.itemsize)
    else:
        strides = tuple(int(s) for s in strides)
    ptr = int(cai["data"][0])
    stream = cai.get("stream")
    if stream is not None and stream != 1 and _layout.prod(shape):
        if stream == 0:
            raise ValueError("__cuda_array_interface__ stream 0 is not allowed")
        _drv.Context.synchronize()
    c, f = _layout.contiguity(shape, strides, dtype.itemsize)
    return make(shape, dtype, strides, ptr, ptr, obj, c, f)


# ---------------------------------------------------------------------------
# DLPack export of a GPUArray


def to_dlpack(a, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``a.__dlpack__(...)``: export GPUArray ``a`` as a DLPack capsule
    (the unversioned ``DLManagedTensor``).

    Parameters
    ----------
    stream : int or None
        The consumer's stream: None or 1 (legacy default stream) and -1
        (no synchronization) need nothing; any other stream gets a full
        context synchronization so the data is ready on it.
    max_version : tuple of int, optional
        Accepted; the unversioned (DLPack 0.8) struct is always returned.
    dl_device : tuple, optional
        Must be this array's ``__dlpack_device__()`` if given.
    copy : bool, optional
        True exports a fresh copy; False or None exports without copying.

    Raises
    ------
    BufferError
        If ``dl_device`` names another device.
    ValueError
        For stream 0, which DLPack leaves ambiguous.
    """
    if dl_device is not None and tuple(dl_device) != dlpack_device(a):
        raise BufferError("cannot export to device %r" % (dl_device,))
    if stream is not None and stream not in (-1, 1):
        if stream == 0:
            raise ValueError("stream 0 is ambiguous in DLPack; use 1 for "
                             "the legacy default stream")
        _drv.Context.synchronize()
    return to_capsule(a.copy() if copy else a)


def dlpack_device(a):
    """``(kDLCUDA, device_ordinal)`` of GPUArray ``a``, i.e. ``(2, id)``."""
    return (kDLCUDA, device_id(a.ptr))
