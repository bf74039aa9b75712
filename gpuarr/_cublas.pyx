# cython: language_level=3
"""cuBLAS's entry points, opened with ``dlopen`` at run time (layer 3).

The thinnest binding: :func:`open_library` maps ``libcublas`` from a path
that :mod:`gpuarr._blas` finds, and resolves the entry points below; each
wrapper passes integers (handles, device and stream addresses, enum
values) straight through and returns cuBLAS's ``cublasStatus_t``, which
:mod:`gpuarr._blas` checks and raises.  The GEMMs are the ``_64`` forms of
cuBLAS 12 and later (sizes, leading dimensions and batch counts as 64-bit
integers), so no size is cut to 32 bits.  Scalars (``alpha``, ``beta``) are
host memory: a bytes object holding one value of the compute type, read
during the call (cuBLAS's default host pointer mode).

Nothing here needs a GPU or links against CUDA: the module imports on any
machine, and only :func:`open_library` touches the library.
"""

from libc.stdint cimport int64_t, intptr_t

cdef extern from "<dlfcn.h>" nogil:
    void* dlopen(const char* filename, int flag)
    void* dlsym(void* handle, const char* symbol)
    char* dlerror()
    int RTLD_NOW
    int RTLD_GLOBAL

ctypedef int (*f_create)(void** handle) nogil
ctypedef int (*f_handle)(void* handle) nogil
ctypedef int (*f_handle_ptr)(void* handle, void* p) nogil
ctypedef int (*f_handle_int)(void* handle, int v) nogil
ctypedef int (*f_handle_intp)(void* handle, int* v) nogil
ctypedef int (*f_workspace)(void* handle, void* ws, size_t nbytes) nogil
ctypedef int (*f_gemm)(void* h, int ta, int tb, int64_t m, int64_t n,
                       int64_t k, const void* alpha, const void* A, int at,
                       int64_t lda, const void* B, int bt, int64_t ldb,
                       const void* beta, void* C, int ct, int64_t ldc,
                       int compute, int algo) nogil
ctypedef int (*f_gemm_strided)(void* h, int ta, int tb, int64_t m,
                               int64_t n, int64_t k, const void* alpha,
                               const void* A, int at, int64_t lda,
                               int64_t sa, const void* B, int bt,
                               int64_t ldb, int64_t sb, const void* beta,
                               void* C, int ct, int64_t ldc, int64_t sc,
                               int64_t batch, int compute, int algo) nogil

cdef void* _lib = NULL
cdef f_create _create = NULL
cdef f_handle _destroy = NULL
cdef f_handle_ptr _set_stream = NULL
cdef f_handle_int _set_math_mode = NULL
cdef f_handle_intp _get_version = NULL
cdef f_workspace _set_workspace = NULL
cdef f_gemm _gemm = NULL
cdef f_gemm_strided _gemm_strided = NULL

#: the entry points resolved, by their names in libcublas
SYMBOLS = ("cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
           "cublasSetMathMode", "cublasGetVersion_v2",
           "cublasSetWorkspace_v2", "cublasGemmEx_64",
           "cublasGemmStridedBatchedEx_64")


cdef void* _sym(bytes name, list missing):
    cdef void* p = dlsym(_lib, name)
    if p == NULL:
        missing.append(name.decode())
    return p


def open_library(path):
    """Map the library at ``path`` and resolve :data:`SYMBOLS`.

    Returns
    -------
    bool
        True once mapped (a second call keeps the first library).

    Raises
    ------
    OSError
        When ``dlopen`` fails (its message), or when an entry point is
        missing (a cuBLAS older than 12).
    """
    global _lib, _create, _destroy, _set_stream, _set_math_mode
    global _get_version, _set_workspace, _gemm, _gemm_strided
    if _lib != NULL:
        return True
    cdef bytes p = path.encode() if isinstance(path, str) else bytes(path)
    cdef void* lib = dlopen(p, RTLD_NOW | RTLD_GLOBAL)
    if lib == NULL:
        err = dlerror()
        raise OSError(err.decode(errors="replace") if err != NULL
                      else "dlopen failed")
    _lib = lib
    missing = []
    _create = <f_create>_sym(b"cublasCreate_v2", missing)
    _destroy = <f_handle>_sym(b"cublasDestroy_v2", missing)
    _set_stream = <f_handle_ptr>_sym(b"cublasSetStream_v2", missing)
    _set_math_mode = <f_handle_int>_sym(b"cublasSetMathMode", missing)
    _get_version = <f_handle_intp>_sym(b"cublasGetVersion_v2", missing)
    _set_workspace = <f_workspace>_sym(b"cublasSetWorkspace_v2", missing)
    _gemm = <f_gemm>_sym(b"cublasGemmEx_64", missing)
    _gemm_strided = <f_gemm_strided>_sym(b"cublasGemmStridedBatchedEx_64",
                                         missing)
    if missing:
        _lib = NULL
        raise OSError("%s lacks %s (cuBLAS 12 or later is needed)"
                      % (path, ", ".join(missing)))
    return True


def is_open():
    """Whether :func:`open_library` has mapped a library."""
    return _lib != NULL


cdef int _need() except -1:
    if _lib == NULL:
        raise RuntimeError("libcublas is not loaded")
    return 0


def create():
    """``cublasCreate``: (status, handle) for the current context."""
    _need()
    cdef void* h = NULL
    cdef int st
    with nogil:
        st = _create(&h)
    return st, <intptr_t>h


def destroy(intptr_t handle):
    """``cublasDestroy``: the status."""
    _need()
    cdef int st
    with nogil:
        st = _destroy(<void*>handle)
    return st


def set_stream(intptr_t handle, intptr_t stream):
    """``cublasSetStream`` (0: the legacy default stream): the status.
    cuBLAS resets the handle's workspace to its own with it."""
    _need()
    return _set_stream(<void*>handle, <void*>stream)


def set_workspace(intptr_t handle, intptr_t ptr, size_t nbytes):
    """``cublasSetWorkspace``: the status."""
    _need()
    return _set_workspace(<void*>handle, <void*>ptr, nbytes)


def set_math_mode(intptr_t handle, int mode):
    """``cublasSetMathMode``: the status."""
    _need()
    return _set_math_mode(<void*>handle, mode)


def get_version(intptr_t handle):
    """``cublasGetVersion``: (status, version), e.g. 130100 for 13.1.0."""
    _need()
    cdef int v = 0
    cdef int st = _get_version(<void*>handle, &v)
    return st, v


def gemm(intptr_t handle, int ta, int tb, int64_t m, int64_t n, int64_t k,
         bytes alpha, intptr_t A, int atype, int64_t lda, intptr_t B,
         int btype, int64_t ldb, bytes beta, intptr_t C, int ctype,
         int64_t ldc, int compute, int algo=-1):
    """``cublasGemmEx_64`` (column-major ``C = alpha op(A) op(B) + beta
    C``): the status."""
    _need()
    cdef const char* pa = alpha
    cdef const char* pb = beta
    cdef int st
    with nogil:
        st = _gemm(<void*>handle, ta, tb, m, n, k, pa, <void*>A, atype, lda,
                   <void*>B, btype, ldb, pb, <void*>C, ctype, ldc, compute,
                   algo)
    return st


def gemm_strided_batched(intptr_t handle, int ta, int tb, int64_t m,
                         int64_t n, int64_t k, bytes alpha, intptr_t A,
                         int atype, int64_t lda, int64_t sa, intptr_t B,
                         int btype, int64_t ldb, int64_t sb, bytes beta,
                         intptr_t C, int ctype, int64_t ldc, int64_t sc,
                         int64_t batch, int compute, int algo=-1):
    """``cublasGemmStridedBatchedEx_64`` (strides in elements; 0 repeats
    one matrix): the status."""
    _need()
    cdef const char* pa = alpha
    cdef const char* pb = beta
    cdef int st
    with nogil:
        st = _gemm_strided(<void*>handle, ta, tb, m, n, k, pa, <void*>A,
                           atype, lda, sa, <void*>B, btype, ldb, sb, pb,
                           <void*>C, ctype, ldc, sc, batch, compute, algo)
    return st
