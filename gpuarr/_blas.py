"""cuBLAS found at run time, one handle per context, and its GEMM (layer 3).

The matrix products of the array layer (:mod:`gpuarr._matmul`) come here
for every float and complex dtype; this module knows nothing of arrays:
it takes device addresses, leading dimensions and batch strides in
elements, in cuBLAS's column-major terms.

Finding the library (first existing file wins; :func:`candidates`): the
``nvidia-cublas`` wheel (``nvidia/cu13/lib/libcublas.so.13`` for CUDA 13,
``nvidia/cublas/lib/libcublas.so.12`` for CUDA 12), then the toolkit
(``$CUDA_PATH``, ``$CUDA_HOME``, ``/usr/local/cuda``: ``lib64``), then the
bare soname through the dynamic loader.  It is opened on the first matrix
product, not at import; when it is missing that product raises
:class:`CublasNotFoundError` naming the wheel.

Per context (:func:`handle`): one ``cublasHandle_t``, made on first use
and destroyed in its own context when the context is detached, and one
32 MiB workspace per stream from the context's default pool (cuBLAS's
``cublasSetWorkspace``; ``cublasSetStream`` resets the workspace, so both
are set together when a call's stream differs from the last one's).
Calls on one handle are serialized by a lock: a handle is not safe to use
from two threads at once.

Precision: float32 products compute in float32 (``CUBLAS_COMPUTE_32F``,
no TF32) unless :func:`allow_tf32` opts in (``CUBLAS_COMPUTE_32F_FAST_TF32``);
float16 products accumulate in float32, as PyTorch's; float64 and complex128
in float64.
"""

import collections
import contextvars
import threading

import numpy as np

from . import _cublas
from . import _percontext
from . import driver as _drv
from . import _toolchain
from . import tools as _tools
from ._errors import RuntimeError as _GpuarrRuntimeError

__all__ = ["CublasNotFoundError", "CublasError", "candidates", "load",
           "handle", "gemm", "allow_tf32", "tf32_allowed", "version",
           "GEMM_DTYPES", "STATUS_NAMES", "LIBRARY_HINT", "OP_N", "OP_T",
           "OP_C", "WORKSPACE_BYTES", "reset"]

LIBRARY_HINT = ("install it with `pip install nvidia-cublas` (CUDA 13; "
                "`nvidia-cublas-cu12` for CUDA 12), or the CUDA toolkit")

#: cublasOperation_t
OP_N, OP_T, OP_C = 0, 1, 2

#: cublasStatus_t -> name (cublas_api.h)
STATUS_NAMES = {
    0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED",
    3: "CUBLAS_STATUS_ALLOC_FAILED", 7: "CUBLAS_STATUS_INVALID_VALUE",
    8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
    13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR",
    15: "CUBLAS_STATUS_NOT_SUPPORTED", 16: "CUBLAS_STATUS_LICENSE_ERROR",
}

# cudaDataType (library_types.h) and cublasComputeType_t (cublas_api.h)
_R_16F, _R_32F, _R_64F, _C_32F, _C_64F = 2, 0, 1, 4, 5
_COMPUTE_32F, _COMPUTE_32F_FAST_TF32, _COMPUTE_64F = 68, 77, 70

#: dtype -> (cudaDataType, compute type, scalar dtype of alpha and beta)
GEMM_DTYPES = {
    np.dtype(np.float16): (_R_16F, _COMPUTE_32F, np.dtype(np.float32)),
    np.dtype(np.float32): (_R_32F, _COMPUTE_32F, np.dtype(np.float32)),
    np.dtype(np.float64): (_R_64F, _COMPUTE_64F, np.dtype(np.float64)),
    np.dtype(np.complex64): (_C_32F, _COMPUTE_32F, np.dtype(np.complex64)),
    np.dtype(np.complex128): (_C_64F, _COMPUTE_64F, np.dtype(np.complex128)),
}
# (alpha, beta) = (1, 0) as bytes of each scalar dtype
_ONE_ZERO = {dt: (np.ones((), s).tobytes(), np.zeros((), s).tobytes())
             for dt, (_, _, s) in GEMM_DTYPES.items()}

#: bytes of each stream's workspace (NVIDIA's advice for Hopper: 32 MiB)
WORKSPACE_BYTES = 32 << 20
_MAX_STREAM_WS = 8

_WHEEL_LIBS = (("cu13", "libcublas.so.13"), ("cublas", "libcublas.so.12"))
_SONAMES = ("libcublas.so.13", "libcublas.so.12", "libcublas.so")

_tf32 = contextvars.ContextVar("gpuarr_allow_tf32", default=False)


class CublasNotFoundError(_GpuarrRuntimeError):
    """cuBLAS's library was not found or would not load (a subclass of the
    builtin :class:`RuntimeError`); the message names the wheel."""


class CublasError(_GpuarrRuntimeError):
    """A cuBLAS call returned an error status.

    Attributes
    ----------
    code : int
        The ``cublasStatus_t``.
    name : str
        Its name (``CUBLAS_STATUS_INVALID_VALUE``, ...).
    call : str
        The cuBLAS function.
    """


def reset():
    """Forget the paths looked at (tests change the environment); a loaded
    library stays mapped."""
    _library.reset()


def candidates():
    """The paths where ``libcublas`` is looked for, in order.

    Returns
    -------
    list of str
        Full paths; the bare-soname ``dlopen`` that follows is not listed.
    """
    return _toolchain.library_candidates(_WHEEL_LIBS, _SONAMES)


def _search():
    return candidates(), _SONAMES


_library = _toolchain.RuntimeLibrary(
    "cuBLAS", "libcublas.so.13", "nvidia-cublas", _search,
    _cublas.open_library, CublasNotFoundError, LIBRARY_HINT,
    setup=lambda opened, path: path)


def load():
    """Open ``libcublas`` once; return the path (or soname) opened.

    Returns
    -------
    str

    Raises
    ------
    CublasNotFoundError
        When no library is found or none loads (the message names the
        package and says why a found one did not load).
    """
    return _library.load()


def check(status, call):
    """Raise :class:`CublasError` for a status other than success."""
    if status:
        name = STATUS_NAMES.get(status, "cublasStatus_t %d" % status)
        raise CublasError("%s failed: %s" % (call, name), code=status,
                          name=name, call=call)


class _Handle:
    """A context's cuBLAS handle, its per-stream workspaces and its lock."""

    __slots__ = ("ctx", "ptr", "lock", "stream", "ws", "__weakref__")

    def __init__(self, ctx):
        load()
        st, ptr = _cublas.create()
        check(st, "cublasCreate_v2")
        self.ctx = ctx
        self.ptr = ptr
        self.lock = threading.Lock()
        self.stream = None          # the stream key last set (None: none)
        self.ws = collections.OrderedDict()

    def use(self, stream):
        """Point the handle at ``stream`` (None: the legacy default
        stream) and that stream's workspace; call with the lock held."""
        key = _drv.stream_handle(stream)     # any library's stream, None: 0
        if key == self.stream:
            return
        ent = self.ws.get(key)
        if ent is None:
            blk = _tools.default_pool().allocate(WORKSPACE_BYTES)
            ent = self.ws[key] = (blk, stream)
            _percontext.evict_stream_buffers(self.ws, _MAX_STREAM_WS + 1,
                                             keep=0)
        else:
            self.ws.move_to_end(key)
        self.stream = None
        check(_cublas.set_stream(self.ptr, key), "cublasSetStream_v2")
        check(_cublas.set_workspace(self.ptr, int(ent[0]), WORKSPACE_BYTES),
              "cublasSetWorkspace_v2")
        self.stream = key

    def __del__(self):
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr and _percontext is not None:  # None at interpreter exit
            _percontext.release_in(self.ctx, lambda: _cublas.destroy(ptr))


handle = _percontext.state(_Handle, "handle", """\
The current context's cuBLAS handle object (made on first use).

Raises
------
CublasNotFoundError
    When libcublas cannot be found.
gpuarr.driver.InvalidContextError
    When no context is current.
""")


def version():
    """cuBLAS's version (``cublasGetVersion``, e.g. 130100), through the
    current context's handle."""
    h = handle()
    st, v = _cublas.get_version(h.ptr)
    check(st, "cublasGetVersion_v2")
    return v


class allow_tf32:
    """Let float32 matrix products use TF32 tensor cores, or not.

    ``gpuarr.linalg.allow_tf32()`` switches TF32 on for the rest of the
    current thread (or asyncio task); ``allow_tf32(False)`` off again; as a
    context manager (``with gpuarr.linalg.allow_tf32():``) the previous
    setting comes back on exit.  Off by default: products then have
    float32's precision, as numpy's (TF32 keeps a 10-bit mantissa of the
    inputs, errors near 1e-3 relative).  This is PyTorch's
    ``torch.backends.cuda.matmul.allow_tf32`` as a scoped switch.

    Parameters
    ----------
    enabled : bool
        Whether TF32 is allowed.
    """

    def __init__(self, enabled=True):
        self._token = _tf32.set(bool(enabled))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _tf32.reset(self._token)
        return False


def tf32_allowed():
    """Whether float32 products may use TF32 now (see :class:`allow_tf32`).

    Returns
    -------
    bool
        The setting of the current thread or asyncio task (a context
        variable): False unless :class:`allow_tf32` switched it on there.
        When True, float32 GEMMs use ``CUBLAS_COMPUTE_32F_FAST_TF32``.
    """
    return _tf32.get()


def gemm(dtype, transa, transb, m, n, k, a, lda, b, ldb, c, ldc,
         batch=1, stride_a=0, stride_b=0, stride_c=0, stream=None):
    """``C = op(A) op(B)`` in cuBLAS's column-major terms, ``batch`` times.

    Parameters
    ----------
    dtype : numpy.dtype
        One of :data:`GEMM_DTYPES` (every operand has it).
    transa, transb : int
        :data:`OP_N`, :data:`OP_T` or :data:`OP_C`.
    m, n, k : int
        ``op(A)`` is m x k, ``op(B)`` k x n, ``C`` m x n (all >= 1).
    a, b, c : int
        Device addresses.
    lda, ldb, ldc : int
        Leading dimensions in elements.
    batch : int
        Products; with more than one, matrix ``i`` of each operand is at
        its address plus ``i * stride`` elements (a stride of 0 repeats
        one matrix).
    stream : gpuarr.driver.Stream, optional
        Where the work is queued (default: the legacy default stream).

    Raises
    ------
    CublasNotFoundError, CublasError
    """
    dt, compute, _ = GEMM_DTYPES[dtype]
    if compute == _COMPUTE_32F and dt == _R_32F and _tf32.get():
        compute = _COMPUTE_32F_FAST_TF32
    one, zero = _ONE_ZERO[dtype]
    h = handle()
    with h.lock:
        h.use(stream)
        if batch == 1:
            st = _cublas.gemm(h.ptr, transa, transb, m, n, k, one, a, dt, lda,
                              b, dt, ldb, zero, c, dt, ldc, compute)
            check(st, "cublasGemmEx_64")
        else:
            st = _cublas.gemm_strided_batched(
                h.ptr, transa, transb, m, n, k, one, a, dt, lda, stride_a,
                b, dt, ldb, stride_b, zero, c, dt, ldc, stride_c, batch,
                compute)
            check(st, "cublasGemmStridedBatchedEx_64")
