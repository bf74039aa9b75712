"""NCCL's collectives found at run time (layer 3).

:mod:`gpuarr.nccl` (all-reduce and broadcast of GPUArrays across devices)
comes here; this module knows nothing of arrays: it takes device
addresses, element counts and NCCL's type and operation codes.  The
library is loaded with :mod:`ctypes` (a collective moves whole buffers;
a compiled binding would save nothing that shows).

Finding the library (first existing file wins): the ``nvidia-nccl-cu13``
wheel (``nvidia/nccl/lib/libnccl.so.2``; the CUDA 12 wheel,
``nvidia-nccl-cu12``, puts it at the same place), then the toolkit's
``lib64``, then the bare soname.  Missing, the first call raises
:class:`NcclNotFoundError` naming the wheel.

NCCL runs on the CUDA runtime, which works in each device's primary
context; a communicator is made, and its collectives queued, with the
device's primary context current (the caller pushes it), and the
collectives run on that context's legacy default stream unless a stream
is given.
"""

import ctypes

import numpy as np

from . import _toolchain
from ._docpieces import filler
from ._errors import RuntimeError as _GpuarrRuntimeError

__all__ = ["NcclNotFoundError", "NcclError", "LIBRARY_HINT", "RESULT_NAMES",
           "OPS", "UNIQUE_ID_BYTES", "candidates", "load", "reset",
           "version", "unique_id", "comm_init_rank", "comm_destroy",
           "comm_count", "comm_device", "all_reduce", "broadcast",
           "group_start", "group_end", "type_code"]

LIBRARY_HINT = ("install it with `pip install nvidia-nccl-cu13` (CUDA 13; "
                "`nvidia-nccl-cu12` for CUDA 12)")

#: ncclResult_t -> name (nccl.h)
RESULT_NAMES = {
    0: "ncclSuccess", 1: "ncclUnhandledCudaError", 2: "ncclSystemError",
    3: "ncclInternalError", 4: "ncclInvalidArgument", 5: "ncclInvalidUsage",
    6: "ncclRemoteError", 7: "ncclInProgress", 8: "ncclTimeout",
}

#: numpy's reduction names -> ncclRedOp_t
OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3, "avg": 4}

#: dtype -> ncclDataType_t (complex values move as pairs of reals)
_TYPES = {
    np.dtype(np.int8): 0, np.dtype(np.uint8): 1, np.dtype(np.int32): 2,
    np.dtype(np.uint32): 3, np.dtype(np.int64): 4, np.dtype(np.uint64): 5,
    np.dtype(np.float16): 6, np.dtype(np.float32): 7,
    np.dtype(np.float64): 8,
}
_COMPLEX = {np.dtype(np.complex64): np.dtype(np.float32),
            np.dtype(np.complex128): np.dtype(np.float64)}

UNIQUE_ID_BYTES = 128


class _UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * UNIQUE_ID_BYTES)]


_WHEEL_LIBS = (("nccl", "libnccl.so.2"),)
_SONAMES = ("libnccl.so.2", "libnccl.so")

_vp, _int, _sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
_SIGNATURES = {
    "ncclGetVersion": (ctypes.POINTER(_int),),
    "ncclGetUniqueId": (ctypes.POINTER(_UniqueId),),
    "ncclCommInitRank": (ctypes.POINTER(_vp), _int, _UniqueId, _int),
    "ncclCommDestroy": (_vp,),
    "ncclCommCount": (_vp, ctypes.POINTER(_int)),
    "ncclCommCuDevice": (_vp, ctypes.POINTER(_int)),
    "ncclAllReduce": (_vp, _vp, _sz, _int, _int, _vp, _vp),
    "ncclBroadcast": (_vp, _vp, _sz, _int, _int, _vp, _vp),
    "ncclGroupStart": (),
    "ncclGroupEnd": (),
}


_PIECES = {"ERROR_PARAMETERS": """Parameters
----------
message : str
    The error message (``str(exc)``).
code : int, optional
    The ``ncclResult_t`` (None when the library is missing).
name : str, optional
    Its name in nccl.h (``"ncclInvalidUsage"``).
description : str, optional
    Unused (None), as in gpuarr's other errors.
call : str, optional
    The NCCL function that failed."""}


@filler(_PIECES)
class NcclNotFoundError(_GpuarrRuntimeError):
    """NCCL's library was not found or would not load (a subclass of the
    builtin :class:`RuntimeError`); the message names the wheel.

    $ERROR_PARAMETERS
    """


@filler(_PIECES)
class NcclError(_GpuarrRuntimeError):
    """An NCCL call returned an error (``code``, ``name``, ``call``; the
    message carries NCCL's own string).

    $ERROR_PARAMETERS
    """


def reset():
    """Forget the library found (tests change the environment)."""
    _library.reset()


def candidates():
    """The paths where ``libnccl`` is looked for, in order (list of str;
    the bare-soname ``dlopen`` that follows is not listed)."""
    return _toolchain.library_candidates(_WHEEL_LIBS, _SONAMES)


def _search():
    return candidates(), _SONAMES


def _declare(lib, path):
    _toolchain.declare(lib, _SIGNATURES)
    lib.ncclGetErrorString.argtypes = (_int,)
    lib.ncclGetErrorString.restype = ctypes.c_char_p
    return lib


_library = _toolchain.RuntimeLibrary(
    "NCCL", "libnccl.so.2", "nvidia-nccl-cu13", _search, ctypes.CDLL,
    NcclNotFoundError, LIBRARY_HINT, setup=_declare)


def load():
    """The loaded ``libnccl`` (a :class:`ctypes.CDLL`), loaded once.

    Returns
    -------
    ctypes.CDLL

    Raises
    ------
    NcclNotFoundError
        When no library is found or none loads (the message names the
        package and says why a found one did not load).
    """
    return _library.load()


def _check(result, call):
    if result:
        name = RESULT_NAMES.get(result, "ncclResult_t %d" % result)
        text = load().ncclGetErrorString(result)
        raise NcclError("%s failed: %s (%s)" % (
            call, name, text.decode(errors="replace") if text else "?"),
            code=result, name=name, call=call)


def type_code(dtype, op):
    """``(ncclDataType_t, elements per item)`` for items of ``dtype``
    reduced by ``op`` (one of :data:`OPS`): complex items move as two
    reals, which only a sum or an average keeps meaning.

    Raises
    ------
    ValueError
        For an unknown ``op``.
    TypeError
        For a dtype NCCL has no type for (bool among them), or a complex
        one with an operation other than sum and avg.
    """
    if op not in OPS:
        raise ValueError("op must be one of %s, not %r"
                         % (", ".join(sorted(OPS)), op))
    dt = np.dtype(dtype)
    if dt in _COMPLEX:
        if op not in ("sum", "avg"):
            raise TypeError("NCCL reduces complex values by sum or avg "
                            "only, not %s" % op)
        return _TYPES[_COMPLEX[dt]], 2
    if dt not in _TYPES:
        raise TypeError("NCCL has no type for %s" % dt)
    return _TYPES[dt], 1


def version():
    """NCCL's version code (``ncclGetVersion``, e.g. 23206 for 2.32.6)."""
    v = ctypes.c_int()
    _check(load().ncclGetVersion(ctypes.byref(v)), "ncclGetVersion")
    return v.value


def unique_id():
    """A new communicator id (``ncclGetUniqueId``): 128 bytes to give
    every rank of the communicator."""
    uid = _UniqueId()
    _check(load().ncclGetUniqueId(ctypes.byref(uid)), "ncclGetUniqueId")
    return ctypes.string_at(ctypes.addressof(uid), UNIQUE_ID_BYTES)


def comm_init_rank(nranks, uid, rank):
    """``ncclCommInitRank`` on the current device: the new communicator's
    handle (int).  Blocks until every rank has called it, unless inside
    a group."""
    if len(uid) != UNIQUE_ID_BYTES:
        raise ValueError("a communicator id has %d bytes, not %d"
                         % (UNIQUE_ID_BYTES, len(uid)))
    u = _UniqueId()
    ctypes.memmove(ctypes.addressof(u), bytes(uid), UNIQUE_ID_BYTES)
    comm = ctypes.c_void_p()
    _check(load().ncclCommInitRank(ctypes.byref(comm), int(nranks), u,
                                   int(rank)), "ncclCommInitRank")
    return comm.value


def comm_destroy(comm):
    """``ncclCommDestroy``."""
    _check(load().ncclCommDestroy(ctypes.c_void_p(comm)), "ncclCommDestroy")


def comm_count(comm):
    """The communicator's number of ranks (``ncclCommCount``)."""
    n = ctypes.c_int()
    _check(load().ncclCommCount(ctypes.c_void_p(comm), ctypes.byref(n)),
           "ncclCommCount")
    return n.value


def comm_device(comm):
    """The device ordinal of the communicator's rank
    (``ncclCommCuDevice``)."""
    d = ctypes.c_int()
    _check(load().ncclCommCuDevice(ctypes.c_void_p(comm), ctypes.byref(d)),
           "ncclCommCuDevice")
    return d.value


def all_reduce(send, recv, count, type_code_, op_code, comm, stream=0):
    """``ncclAllReduce`` of ``count`` elements from address ``send`` into
    ``recv`` (the same address: in place) on ``stream`` (0: the current
    context's legacy default stream)."""
    _check(load().ncclAllReduce(
        ctypes.c_void_p(send), ctypes.c_void_p(recv), count, type_code_,
        op_code, ctypes.c_void_p(comm), ctypes.c_void_p(stream)),
        "ncclAllReduce")


def broadcast(send, recv, count, type_code_, root, comm, stream=0):
    """``ncclBroadcast`` of ``count`` elements of rank ``root``'s
    ``send`` into every rank's ``recv``."""
    _check(load().ncclBroadcast(
        ctypes.c_void_p(send), ctypes.c_void_p(recv), count, type_code_,
        root, ctypes.c_void_p(comm), ctypes.c_void_p(stream)),
        "ncclBroadcast")


def group_start():
    """``ncclGroupStart``: the calls until :func:`group_end` are one
    operation (one thread driving several devices)."""
    _check(load().ncclGroupStart(), "ncclGroupStart")


def group_end():
    """``ncclGroupEnd``."""
    _check(load().ncclGroupEnd(), "ncclGroupEnd")
