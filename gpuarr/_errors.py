"""Exception classes of gpuarr and the table that maps a ``CUresult`` to one.

Pure Python (layer 0): importable and testable with no driver present.
The public names are re-exported by :mod:`gpuarr.driver` under PyCUDA's
names (``Error``, ``LogicError``, ``LaunchError``, ``MemoryError``,
``RuntimeError``, ``CompileError``).
"""

import builtins

from ._enums import CURESULT

#: ``CUresult`` value -> ``CUDA_ERROR_*`` name.
RESULT_NAMES = {v: k for k, v in CURESULT.items()}


class Error(Exception):
    """Root of every error gpuarr raises about the CUDA driver or compiler.

    PyCUDA's ``pycuda.driver.Error``. Made by :func:`make_error` for a
    failing ``CUresult`` (the subclass chosen by :func:`error_class`);
    pickles with its attributes. Also raised without a ``code`` by
    gpuarr's own checks (a detached context, a missing driver).
    """

    def __init__(self, message, code=None, name=None, description=None,
                 call=None):
        super().__init__(message)
        self.code = code
        self.name = name
        self.description = description
        self.call = call

    def __reduce__(self):
        return (_rebuild, (type(self), str(self), self.__dict__.copy()))


def _rebuild(cls, message, state):
    obj = cls(message)
    obj.__dict__.update(state)
    return obj


class LogicError(Error):
    """A driver call was used wrongly (invalid value, handle or context)."""


class LaunchError(Error):
    """A kernel launch failed, or a kernel faulted while running.

    A fault inside a kernel (``CUDA_ERROR_ILLEGAL_ADDRESS`` and the like)
    leaves the context unusable; the process must be restarted.
    """


class MemoryError(Error, builtins.MemoryError):
    """The device (or pinned host memory) is out of memory.

    Also a subclass of the builtin :class:`MemoryError`.
    """


class RuntimeError(Error, builtins.RuntimeError):
    """Any other failure reported by the driver."""


class DriverNotFoundError(RuntimeError):
    """``libcuda.so.1`` could not be loaded: no NVIDIA driver is installed."""


class InvalidContextError(LogicError):
    """No context is current, or the context was destroyed."""


def no_context_error():
    """The one error of a call that needs a current context when none is
    (``CUDA_ERROR_INVALID_CONTEXT``, 201), saying how to make one current:
    made here for the driver, the per-context state and the compiler
    alike.  The caller raises it."""
    return InvalidContextError(
        "no CUDA context is current on this thread: import gpuarr.autoinit, "
        "or make one current with `with gpuarr.Device(n):` or "
        "Device(n).retain_primary_context().push()",
        code=201, name="CUDA_ERROR_INVALID_CONTEXT")


class NotSupportedError(RuntimeError):
    """The driver or device does not support the requested operation."""


class UnsupportedDtypeError(builtins.TypeError, builtins.NotImplementedError):
    """A dtype a routine does not support.

    Both a :class:`TypeError` (numpy's exception for a bad dtype) and a
    :class:`NotImplementedError` (what PyCUDA's cuRAND generators raise),
    so code written for either catches it.
    """


class CompileError(Error):
    """CUDA C failed to compile (PyCUDA's ``CompileError``).

    Raised by :mod:`gpuarr.compiler`; its ``code``, ``name``,
    ``description`` and ``call`` are None.

    Parameters
    ----------
    message : str
        The error message (``str(exc)``).
    log : str, optional
        The compiler's log; default empty.
    source : str, optional
        The source that was compiled.
    command_line : list of str, optional
        The nvcc command line, when nvcc was the compiler.

    Attributes
    ----------
    log : str
        The compiler's log (NVRTC program log or nvcc's stderr).
    source : str or None
        The source that was compiled, when known.
    command_line : list of str or None
        The nvcc command line, when nvcc was the compiler.
    stdout : str
        Always empty (PyCUDA's attribute, kept for code that reads it).
    stderr : str
        The same text as ``log`` (PyCUDA's name for the log).
    """

    def __init__(self, message, log="", source=None, command_line=None):
        super().__init__(message)
        self.log = log
        self.source = source
        self.command_line = command_line
        self.stdout = ""
        self.stderr = log


#: The constructor's parameters and the attributes shared by Error and its
#: driver subclasses, appended to each class's docstring below.
_ERROR_FIELDS = """

    Parameters
    ----------
    message : str
        The error message (``str(exc)``); for a failed driver call it names
        the call, the ``CUDA_ERROR_*`` name, the driver's description and
        any detail (see :func:`make_error`).
    code : int, optional
        The ``CUresult`` the driver returned; None (the default) for an
        error raised by gpuarr's own checks.
    name : str, optional
        The ``CUDA_ERROR_*`` name of ``code``.
    description : str, optional
        The driver's text for ``code`` (``cuGetErrorString``).
    call : str, optional
        The driver function that failed.

    Attributes
    ----------
    code : int or None
        The ``CUresult`` the driver returned, or None when the error did not
        come from a driver call.
    name : str or None
        The symbolic name of ``code``, such as ``"CUDA_ERROR_INVALID_VALUE"``.
    description : str or None
        The driver's own description of ``code`` (``cuGetErrorString``).
    call : str or None
        The driver function that failed, such as ``"cuMemAlloc_v2"``.
    """

for _cls in (Error, LogicError, LaunchError, MemoryError, RuntimeError,
             DriverNotFoundError, InvalidContextError, NotSupportedError):
    if _cls.__doc__:                    # None under python -OO
        _cls.__doc__ = _cls.__doc__.rstrip() + _ERROR_FIELDS
del _cls


_LAUNCH = {
    "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
    "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING",
    "CUDA_ERROR_ASSERT", "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_INVALID_PC",
    "CUDA_ERROR_LAUNCH_FAILED", "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
    "CUDA_ERROR_INVALID_CLUSTER_SIZE", "CUDA_ERROR_TENSOR_MEMORY_LEAK",
}
_CONTEXT = {
    "CUDA_ERROR_INVALID_CONTEXT", "CUDA_ERROR_CONTEXT_IS_DESTROYED",
    "CUDA_ERROR_CONTEXT_ALREADY_IN_USE",
}
_NOT_SUPPORTED = {
    "CUDA_ERROR_NOT_SUPPORTED", "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
    "CUDA_ERROR_UNSUPPORTED_LIMIT", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
    "CUDA_ERROR_NO_BINARY_FOR_GPU", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
}
_LOGIC = {
    "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_NOT_INITIALIZED",
    "CUDA_ERROR_DEINITIALIZED", "CUDA_ERROR_INVALID_DEVICE",
    "CUDA_ERROR_INVALID_IMAGE", "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
    "CUDA_ERROR_ARRAY_IS_MAPPED", "CUDA_ERROR_ALREADY_MAPPED",
    "CUDA_ERROR_ALREADY_ACQUIRED", "CUDA_ERROR_NOT_MAPPED",
    "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "CUDA_ERROR_NOT_MAPPED_AS_POINTER",
    "CUDA_ERROR_INVALID_PTX", "CUDA_ERROR_INVALID_SOURCE",
    "CUDA_ERROR_FILE_NOT_FOUND", "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND",
    "CUDA_ERROR_INVALID_HANDLE", "CUDA_ERROR_ILLEGAL_STATE",
    "CUDA_ERROR_NOT_FOUND", "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
    "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
    "CUDA_ERROR_TOO_MANY_PEERS", "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
    "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "CUDA_ERROR_NOT_PERMITTED",
    "CUDA_ERROR_INVALID_RESOURCE_TYPE",
    "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION",
    "CUDA_ERROR_FUNCTION_NOT_LOADED",
}


def error_class(code):
    """Return the exception class for a failing ``CUresult`` value.

    Parameters
    ----------
    code : int
        A ``CUresult`` other than ``CUDA_SUCCESS``.

    Returns
    -------
    type
        A subclass of :class:`Error`.
    """
    name = RESULT_NAMES.get(code)
    if name == "CUDA_ERROR_OUT_OF_MEMORY":
        return MemoryError
    if name in _LAUNCH:
        return LaunchError
    if name in _CONTEXT:
        return InvalidContextError
    if name in _NOT_SUPPORTED:
        return NotSupportedError
    if name in _LOGIC:
        return LogicError
    return RuntimeError


#: What each stream-capture ``CUresult`` means for the caller: appended to
#: the message of any call that fails with one (mem_alloc, a synchronous
#: copy, a synchronize ... during a capture), so the error says which call
#: broke the capture and what to do.
CAPTURE_HINTS = {
    900: "this call is not allowed while a stream is capturing (a synchronous "
         "copy, memset or allocation, a synchronize, or a GLOBAL-mode capture "
         "on another stream refusing an unsafe call): pass the capturing Stream "
         "and preallocated memory to the captured work, or capture in RELAXED "
         "mode",
    901: "the capture was invalidated by an operation a capturing stream does not "
         "allow (a synchronous call such as memcpy_htod or mem_alloc, a "
         "synchronize or query of the capturing stream, or work on the legacy "
         "default stream while a GLOBAL-mode capture is in progress); nothing was "
         "captured: begin the capture again",
    902: "two independent captures were merged by an event wait",
    903: "end_capture was called on a stream other than the one the capture began on",
    904: "work forked into another stream during the capture was not joined back "
         "(record an Event on that stream and wait_for_event on the capturing one)",
    905: "a captured event wait depends on work outside the capture",
    906: "the legacy default stream (stream=None) was used while a blocking stream "
         "was capturing: pass the capturing Stream to every call of the sequence",
    907: "an event recorded in a capture cannot be synchronized or queried",
    908: "a GLOBAL or THREAD_LOCAL capture must be ended on the thread that began it",
}


def make_error(code, call, description=None, detail=None):
    """Build (not raise) the exception for ``call`` having returned ``code``.

    Parameters
    ----------
    code : int
        The ``CUresult``.
    call : str
        The driver function that returned it.
    description : str, optional
        The driver's text for ``code`` (``cuGetErrorString``).
    detail : str, optional
        Extra context appended to the message (a JIT log, an argument).
    """
    name = RESULT_NAMES.get(code, "CUDA_ERROR_%d" % code)
    msg = "%s failed: %s" % (call, name)
    if description:
        msg += ": " + description
    hint = CAPTURE_HINTS.get(code)
    if hint and (not detail or hint not in detail):
        detail = detail + "\n" + hint if detail else hint
    if detail:
        msg += "\n" + detail
    return error_class(code)(msg, code=code, name=name,
                             description=description, call=call)
