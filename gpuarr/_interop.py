"""Interop: the CUDA Array Interface and DLPack, both ways (layer 5,
above :mod:`gpuarr._array`).

Export: :func:`cuda_array_interface` (version 3) and :func:`to_dlpack`
(DLPack 1.0's versioned capsule when the consumer asks for it with
``max_version``, else the unversioned one) back
``GPUArray.__cuda_array_interface__`` and ``GPUArray.__dlpack__``.
Import: :func:`from_cuda_array_interface` and :func:`from_dlpack` wrap
another library's device memory without a copy, keeping its owner alive.

DLPack is implemented with ctypes (no compiled code). The structs::

    DLDevice        {int32 device_type; int32 device_id}
    DLDataType      {uint8 code; uint8 bits; uint16 lanes}
    DLTensor        {void *data; DLDevice device; int32 ndim; DLDataType dtype;
                     int64 *shape; int64 *strides; uint64 byte_offset}
    DLManagedTensor {DLTensor dl_tensor; void *manager_ctx;
                     void (*deleter)(DLManagedTensor *)}           (0.x)
    DLManagedTensorVersioned {DLPackVersion version {uint32 major, minor};
                     void *manager_ctx;
                     void (*deleter)(DLManagedTensorVersioned *);
                     uint64 flags; DLTensor dl_tensor}              (1.0)

Protocol: the producer wraps the struct's address in a capsule named
``"dltensor"`` (``"dltensor_versioned"`` for 1.0); a consumer renames the
capsule ``"used_dltensor"`` (``"used_dltensor_versioned"``) and calls
``deleter`` when it no longer needs the memory. If the capsule dies still
under its first name (never consumed), its destructor calls ``deleter``.
Strides are in elements; ``strides == NULL`` means C-contiguous. Flags
(1.0): bit 0 read-only, bit 1 the tensor is a copy made for the consumer.
"""


import atexit
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


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


_DELETER_V = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion),
                                     ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", _DELETER_V),
                                     ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]

#: the DLPack version of the versioned capsules gpuarr makes
DLPACK_VERSION = (1, 0)
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0
DLPACK_FLAG_BITMASK_IS_COPIED = 1 << 1

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
_VNAME = ctypes.create_string_buffer(b"dltensor_versioned")
_USED_VNAME = ctypes.create_string_buffer(b"used_dltensor_versioned")
_VNAME_P = ctypes.cast(_VNAME, ctypes.c_char_p)
_USED_VNAME_P = ctypes.cast(_USED_VNAME, ctypes.c_char_p)

_CODES = {"b": kDLBool, "i": kDLInt, "u": kDLUInt, "f": kDLFloat, "c": kDLComplex}
_KINDS = {v: k for k, v in _CODES.items()}

# exported tensors alive in consumers: id -> (struct, shape, strides, array)
_LIVE = {}
_LIVE_LOCK = threading.Lock()
_IDS = itertools.count(1)


# Set when the interpreter starts to exit (atexit runs before modules are
# torn down): from then on the callbacks below do nothing, leaving what is
# still exported to the process's end, since the Python objects they would
# touch may already be gone.
_EXITING = [False]
atexit.register(_EXITING.__setitem__, 0, True)


def _delete(managed, _exiting=_EXITING):
    """Deleter stored in every exported struct: drop our references."""
    if _exiting[0]:
        return
    try:
        key = managed.contents.manager_ctx
        with _LIVE_LOCK:
            _LIVE.pop(key, None)
    except Exception:  # never raise into C
        pass


_DELETER_FN = _DELETER(_delete)
_DELETER_V_FN = _DELETER_V(_delete)

_get_ptr_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_char_p)(("PyCapsule_GetPointer",
                                                   ctypes.pythonapi))


def _capsule_destructor(capsule, _exiting=_EXITING):
    """Called when an exported capsule dies: delete it if never consumed
    (still under its first name)."""
    if _exiting[0]:
        return
    try:
        for name, struct in ((_NAME_P, DLManagedTensor),
                             (_VNAME_P, DLManagedTensorVersioned)):
            if _api.PyCapsule_IsValid(capsule, name):
                ptr = _get_ptr_raw(capsule, name)
                if ptr:
                    managed = ctypes.cast(ptr, ctypes.POINTER(struct))
                    managed.contents.deleter(managed)
                return
    except Exception:
        pass


_CAPSULE_DESTRUCTOR_FN = _CAPSULE_DESTRUCTOR(_capsule_destructor)
# C holds these callbacks' addresses (in capsules and exported structs)
# beyond any Python reference: one reference more each, never given back,
# so that tearing the module down cannot free code a capsule will call
for _fn in (_DELETER_FN, _DELETER_V_FN, _CAPSULE_DESTRUCTOR_FN):
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(_fn))
del _fn


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
    """Ordinal of the device holding ``ptr`` (``cuPointerGetAttributes``'
    ``DEVICE_ORDINAL``), or of the current context's device when ``ptr``
    is None or 0 (an empty array has no memory)."""
    return dlpack_device_of(ptr)[1]


def dlpack_device_of(ptr):
    """``(device type, ordinal)`` of the memory at device address ``ptr``:
    ``kDLCUDAManaged`` for managed memory, else ``kDLCUDA``; the current
    context's device for ``ptr`` None or 0."""
    if ptr:
        pa = _drv.pointer_attribute
        got = _drv.pointer_get_attributes(
            int(ptr), [pa.DEVICE_ORDINAL, pa.IS_MANAGED])
        kind = kDLCUDAManaged if got.get(pa.IS_MANAGED) else kDLCUDA
        return kind, int(got[pa.DEVICE_ORDINAL])
    dev = _drv.Context.get_device()
    for attr in ("handle", "ordinal"):  # a CUdevice is the ordinal
        v = getattr(dev, attr, None)
        if v is not None:
            return kDLCUDA, int(v() if callable(v) else v)
    return kDLCUDA, int(dev)


def _fill_tensor(t, arr, device, shape, strides):
    code, bits, lanes = dl_dtype(arr.dtype)
    t.data = arr.ptr if arr.size else 0
    t.device.device_type, t.device.device_id = device
    t.ndim = arr.ndim
    t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, lanes
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0


def to_capsule(arr, versioned=False, copied=False):
    """Export ``arr`` (a GPUArray) as a DLPack PyCapsule.

    Parameters
    ----------
    arr : GPUArray
        Any shape and strides that are whole multiples of the item size.
    versioned : bool
        A DLPack 1.0 ``"dltensor_versioned"`` capsule
        (``DLManagedTensorVersioned``, version :data:`DLPACK_VERSION`)
        instead of the unversioned ``"dltensor"`` one.
    copied : bool
        Set the 1.0 flag saying the tensor is a copy made for this export.

    Returns
    -------
    PyCapsule
        Keeps ``arr`` alive until the consumer calls the deleter (or the
        unconsumed capsule is collected).

    Raises
    ------
    BufferError
        For strides that are not multiples of the item size, or a dtype
        DLPack cannot describe.
    """
    ndim = arr.ndim
    dl_dtype(arr.dtype)
    isz = arr.dtype.itemsize
    for s in arr.strides:
        if s % isz:
            raise BufferError("strides are not a multiple of the item size")
    shape = (ctypes.c_int64 * max(ndim, 1))(*arr.shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*[s // isz for s in arr.strides])
    device = dlpack_device_of(arr.ptr if arr.size else None)
    key = next(_IDS)
    if versioned:
        managed = DLManagedTensorVersioned()
        managed.version.major, managed.version.minor = DLPACK_VERSION
        managed.deleter = _DELETER_V_FN
        managed.flags = DLPACK_FLAG_BITMASK_IS_COPIED if copied else 0
        name = _VNAME_P
    else:
        managed = DLManagedTensor()
        managed.deleter = _DELETER_FN
        name = _NAME_P
    _fill_tensor(managed.dl_tensor, arr, device, shape, strides)
    managed.manager_ctx = key
    with _LIVE_LOCK:
        _LIVE[key] = (managed, shape, strides, arr)
    return _api.PyCapsule_New(ctypes.addressof(managed), name,
                              _CAPSULE_DESTRUCTOR_FN)


class _DLPackOwner:
    """Base of an imported GPUArray: calls the producer's deleter when dead
    (nothing once the interpreter is exiting: see ``_EXITING``)."""

    __slots__ = ("_managed", "producer", "__weakref__")

    def __init__(self, managed, producer):
        self._managed = managed
        self.producer = producer

    def __del__(self, _exiting=_EXITING):
        m = self._managed
        if m is None or _exiting[0]:
            return
        self._managed = None
        try:
            if m.contents.deleter:
                m.contents.deleter(m)
        except Exception:
            pass


def from_capsule(capsule, producer=None, copy=None):
    """Consume a DLPack capsule (``"dltensor"`` or DLPack 1.0's
    ``"dltensor_versioned"``) into a GPUArray.

    Parameters
    ----------
    capsule : PyCapsule
        Not yet consumed; renamed ``"used_..."`` here, as DLPack asks.
    producer : object, optional
        Kept alive by the result (its ``base``'s ``producer``).
    copy : bool or None
        None: wrap the memory without a copy, except for a tensor the
        producer marked read-only (1.0's flag), which is copied, since a
        GPUArray is always writable. True: always a copy. False: never; a
        read-only tensor then raises.

    Returns
    -------
    GPUArray
        The tensor's shape, strides and dtype; sharing its memory unless
        copied.

    Raises
    ------
    ValueError
        If ``capsule`` is not an unconsumed DLPack capsule.
    BufferError
        If the tensor is not in CUDA (or CUDA managed) memory, its dtype is
        not supported, its major version is above 1, or it is read-only and
        ``copy`` is False.
    """
    if type(capsule).__name__ != "PyCapsule":
        raise ValueError("expected a DLPack PyCapsule, not %s"
                         % type(capsule).__name__)
    if _api.PyCapsule_IsValid(id(capsule), _VNAME_P):
        addr = _api.PyCapsule_GetPointer(capsule, _VNAME_P)
        managed = ctypes.cast(addr, ctypes.POINTER(DLManagedTensorVersioned))
        if managed.contents.version.major > DLPACK_VERSION[0]:
            raise BufferError("DLPack version %d.%d is newer than gpuarr's %d.%d"
                              % ((managed.contents.version.major,
                                  managed.contents.version.minor)
                                 + DLPACK_VERSION))
        read_only = bool(managed.contents.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
        used = _USED_VNAME_P
    elif _api.PyCapsule_IsValid(id(capsule), _NAME_P):
        addr = _api.PyCapsule_GetPointer(capsule, _NAME_P)
        managed = ctypes.cast(addr, ctypes.POINTER(DLManagedTensor))
        read_only = False
        used = _USED_NAME_P
    else:
        raise ValueError("expected a PyCapsule named 'dltensor' or "
                         "'dltensor_versioned' (a capsule can be consumed "
                         "only once)")
    if read_only and copy is False:
        raise BufferError("the DLPack tensor is read-only and a GPUArray is "
                          "writable: it needs copy=None or True")
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
    if ptr and _layout.prod(shape):
        note_device(int(t.device.device_id))
    # take ownership: rename so the producer's destructor leaves it alone
    _api.PyCapsule_SetName(capsule, used)
    owner = _DLPackOwner(managed, producer)
    c, f = _layout.contiguity(shape, strides, isz)
    a = make(shape, dtype, strides, ptr, ptr, owner, c, f)
    return a.copy() if (copy or read_only) else a


def from_dlpack(x, copy=None):
    """Import ``x`` (an object with ``__dlpack__``, or a capsule).

    The producer is asked for a DLPack 1.0 capsule (``max_version=(1, 0)``;
    producers that do not know the keyword are asked again without it) of
    data ready on the legacy default stream (``stream=1``), where gpuarr
    enqueues its work.

    Parameters
    ----------
    x : object
        A GPUArray (returned as it is, or copied with ``copy=True``), a
        DLPack capsule, or a producer with ``__dlpack__``.
    copy : bool or None
        As :func:`from_capsule`'s.

    Returns
    -------
    GPUArray

    Raises
    ------
    TypeError
        If ``x`` has no ``__dlpack__``.
    BufferError
        If the producer's data is not in CUDA memory (see
        :func:`from_capsule` for the others).
    """
    if isinstance(x, GPUArray):
        return x.copy() if copy else x
    if type(x).__name__ == "PyCapsule":
        return from_capsule(x, copy=copy)
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
        capsule = x.__dlpack__(stream=1, max_version=DLPACK_VERSION)
    except TypeError:           # a producer older than DLPack 1.0
        try:
            capsule = x.__dlpack__(stream=1)
        except TypeError:
            capsule = x.__dlpack__()
    return from_capsule(capsule, x, copy)


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


class _ForeignStream:
    """A stream another library made, by its handle (what the driver's
    stream arguments accept)."""

    __slots__ = ("handle",)

    def __init__(self, handle):
        self.handle = handle


def _wait_for_stream(handle):
    """Block until the work queued so far on the stream ``handle`` (another
    library's, or 2: the per-thread default stream) is done, by an event
    recorded on it: other streams' work is not waited for."""
    ev = _drv.Event(_drv.event_flags.DISABLE_TIMING)
    ev.record(_ForeignStream(handle))
    ev.synchronize()


_DEVICES = []      # the device count, asked once


def _device_count():
    # 0 where the driver is missing or refuses (arrays wrapped around
    # addresses without a GPU, in the CPU tests): nothing to route then
    if not _DEVICES:
        try:
            _DEVICES.append(_drv.Device.count())
        except _drv.Error:
            _DEVICES.append(0)
    return _DEVICES[0]


def note_device(device_id):
    """Make sure the process knows device ``device_id`` holds arrays: its
    kept primary context is retained (so the driver's ``context_devices``
    counts it and operations on memory imported from another library are
    run on its device, :mod:`gpuarr._placement`).  Nothing is done on a
    machine with one device, or none."""
    n = _device_count()
    if n > 1 and 0 <= device_id < n \
            and device_id not in _drv.context_devices:
        _drv.Device(device_id).get_primary_context()


def from_cuda_array_interface(obj, cai):
    """Wrap ``obj``, whose ``__cuda_array_interface__`` is ``cai``, as a
    GPUArray without a copy (``obj`` becomes its ``base``).

    Raises
    ------
    ValueError
        For a version above 3, a mask, or stream 0 (not allowed by the
        interface). A stream other than 1 (the legacy default stream,
        which gpuarr's work follows anyway) is waited for on the host
        before the array is returned.
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
        _wait_for_stream(int(stream))
    if ptr and _layout.prod(shape) and _device_count() > 1:
        try:
            dev = dlpack_device_of(ptr)[1]
        except _drv.Error:          # not memory the driver knows
            dev = -1
        note_device(dev)
    c, f = _layout.contiguity(shape, strides, dtype.itemsize)
    return make(shape, dtype, strides, ptr, ptr, obj, c, f)


# ---------------------------------------------------------------------------
# DLPack export of a GPUArray


def to_dlpack(a, *, stream=None, max_version=None, dl_device=None, copy=None):
    """``a.__dlpack__(...)``: export GPUArray ``a`` as a DLPack capsule.

    Parameters
    ----------
    a : GPUArray
    stream : int or None
        The consumer's stream: None or 1 (legacy default stream) and -1
        (no synchronization) need nothing; any other stream gets a full
        context synchronization so the data is ready on it.
    max_version : tuple of int, optional
        The newest DLPack version the consumer understands: ``(1, x)`` or
        newer gets a DLPack 1.0 ``"dltensor_versioned"`` capsule; None or
        ``(0, x)`` the unversioned ``"dltensor"`` one (array API standard).
    dl_device : tuple, optional
        ``(device type, id)`` the consumer wants: this array's
        ``__dlpack_device__()``, or ``(1, 0)`` (kDLCPU), for which the
        data is copied to host memory and exported as numpy exports it
        (needs ``copy`` not False).
    copy : bool, optional
        True exports a fresh copy (flagged as such in a 1.0 capsule); None
        and False export without copying.

    Returns
    -------
    PyCapsule

    Raises
    ------
    BufferError
        If ``dl_device`` names another device (or the host with
        ``copy=False``).
    ValueError
        For stream 0, which DLPack leaves ambiguous.
    """
    versioned = max_version is not None and int(max_version[0]) >= 1
    if dl_device is not None:
        want = (int(dl_device[0]), int(dl_device[1]))
        if want == (kDLCPU, 0):
            if copy is False:
                raise BufferError("exporting to the host needs a copy "
                                  "(copy=False was given)")
            host = a.get()
            kw = {"max_version": max_version} if versioned else {}
            return host.__dlpack__(**kw)
        if want != dlpack_device(a):
            raise BufferError("cannot export to device %r" % (dl_device,))
    if stream is not None and stream not in (-1, 1):
        if stream == 0:
            raise ValueError("stream 0 is ambiguous in DLPack; use 1 for "
                             "the legacy default stream")
        _drv.Context.synchronize()
    if copy:
        return to_capsule(a.copy(), versioned, copied=True)
    return to_capsule(a, versioned)


def dlpack_device(a):
    """``(device type, ordinal)`` of GPUArray ``a``'s memory: ``(2, id)``
    (kDLCUDA), or ``(13, id)`` (kDLCUDAManaged) for managed memory; the id
    is the device that holds the pointer, which need not be the current
    context's."""
    return dlpack_device_of(a.ptr if a.size else None)
