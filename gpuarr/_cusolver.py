"""cuSOLVER's dense routines found at run time, one handle per context
(layer 3).

:mod:`gpuarr._linalg_solve` and :mod:`gpuarr._decomp` (numpy.linalg on
GPUArrays) come here for LU, Cholesky, QR, symmetric eigenvalues and the
SVD; this module knows nothing of arrays: it takes device addresses and
leading dimensions in cuSOLVER's column-major terms, sizes its
workspaces (device memory from the context's default pool, host memory
from numpy) and queues the call on the legacy default stream.  Each call
writes its ``info`` (an int32) to a device address the caller gives; the
caller reads those back once for a whole batch and turns them into
numpy's LinAlgError.

The 64-bit generic API (``cusolverDnX*``: sizes and leading dimensions as
int64, any of float32, float64, complex64, complex128) is used for every
factorization; forming Q of a QR uses the typed ``cusolverDn<t>orgqr`` /
``<t>ungqr`` (32-bit sizes).  The library is loaded with :mod:`ctypes`:
the calls are O(n^3) factorizations, not worth a compiled binding.

Finding the library (first existing file wins): the ``nvidia-cusolver``
wheel (``nvidia/cu13/lib/libcusolver.so.12`` for CUDA 13,
``nvidia/cusolver/lib/libcusolver.so.11`` for CUDA 12; it needs the
cuBLAS, cuSPARSE and nvJitLink wheels beside it), then the toolkit's
``lib64``, then the bare soname.  Missing, the first call raises
:class:`CusolverNotFoundError` naming the wheel.
"""

import ctypes
import threading

import numpy as np

from . import _percontext
from . import _toolchain
from . import driver as _drv
from . import tools as _tools
from ._errors import RuntimeError as _GpuarrRuntimeError

__all__ = ["CusolverNotFoundError", "CusolverError", "candidates", "load",
           "handle", "DTYPES", "LOWER", "UPPER", "getrf", "getrs", "potrf",
           "geqrf", "orgqr", "syevd", "gesvd", "gesvdj", "version", "reset",
           "LIBRARY_HINT", "STATUS_NAMES"]

LIBRARY_HINT = ("install it with `pip install nvidia-cusolver` (CUDA 13, "
                "with nvidia-cublas, nvidia-cusparse and nvidia-nvjitlink; "
                "`nvidia-cusolver-cu12` for CUDA 12), or the CUDA toolkit")

#: cusolverStatus_t -> name (cusolver_common.h)
STATUS_NAMES = {
    0: "CUSOLVER_STATUS_SUCCESS", 1: "CUSOLVER_STATUS_NOT_INITIALIZED",
    2: "CUSOLVER_STATUS_ALLOC_FAILED", 3: "CUSOLVER_STATUS_INVALID_VALUE",
    4: "CUSOLVER_STATUS_ARCH_MISMATCH", 5: "CUSOLVER_STATUS_MAPPING_ERROR",
    6: "CUSOLVER_STATUS_EXECUTION_FAILED", 7: "CUSOLVER_STATUS_INTERNAL_ERROR",
    8: "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
    9: "CUSOLVER_STATUS_NOT_SUPPORTED", 10: "CUSOLVER_STATUS_ZERO_PIVOT",
    31: "CUSOLVER_STATUS_INVALID_WORKSPACE",
}

#: cublasFillMode_t
LOWER, UPPER = 0, 1
_OP_T = 1
_EIG_VECTOR, _EIG_NOVECTOR = 1, 0

#: dtype -> (cudaDataType, the real dtype of its eigenvalues and singular
#: values, the letter of the typed routines)
DTYPES = {
    np.dtype(np.float32): (0, np.dtype(np.float32), "S"),
    np.dtype(np.float64): (1, np.dtype(np.float64), "D"),
    np.dtype(np.complex64): (4, np.dtype(np.float32), "C"),
    np.dtype(np.complex128): (5, np.dtype(np.float64), "Z"),
}
_REAL_TYPE = {0: 0, 1: 1, 4: 0, 5: 1}

_WHEEL_LIBS = (("cu13", "libcusolver.so.12"), ("cusolver", "libcusolver.so.11"))
_SONAMES = ("libcusolver.so.12", "libcusolver.so.11", "libcusolver.so")


_vp, _i64, _i32, _sz = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_size_t
_psz = ctypes.POINTER(ctypes.c_size_t)
_SIGNATURES = {
    "cusolverDnCreate": (_vp,),
    "cusolverDnDestroy": (_vp,),
    "cusolverDnSetStream": (_vp, _vp),
    "cusolverDnCreateParams": (_vp,),
    "cusolverDnDestroyParams": (_vp,),
    "cusolverGetVersion": (ctypes.POINTER(ctypes.c_int),),
    "cusolverDnXgetrf_bufferSize": (_vp, _vp, _i64, _i64, _i32, _vp, _i64, _i32,
                                    _psz, _psz),
    "cusolverDnXgetrf": (_vp, _vp, _i64, _i64, _i32, _vp, _i64, _vp, _i32, _vp,
                         _sz, _vp, _sz, _vp),
    "cusolverDnXgetrs": (_vp, _vp, _i32, _i64, _i64, _i32, _vp, _i64, _vp, _i32,
                         _vp, _i64, _vp),
    "cusolverDnXpotrf_bufferSize": (_vp, _vp, _i32, _i64, _i32, _vp, _i64, _i32,
                                    _psz, _psz),
    "cusolverDnXpotrf": (_vp, _vp, _i32, _i64, _i32, _vp, _i64, _i32, _vp, _sz,
                         _vp, _sz, _vp),
    "cusolverDnXgeqrf_bufferSize": (_vp, _vp, _i64, _i64, _i32, _vp, _i64, _i32,
                                    _vp, _i32, _psz, _psz),
    "cusolverDnXgeqrf": (_vp, _vp, _i64, _i64, _i32, _vp, _i64, _i32, _vp, _i32,
                         _vp, _sz, _vp, _sz, _vp),
    "cusolverDnXsyevd_bufferSize": (_vp, _vp, _i32, _i32, _i64, _i32, _vp, _i64,
                                    _i32, _vp, _i32, _psz, _psz),
    "cusolverDnXsyevd": (_vp, _vp, _i32, _i32, _i64, _i32, _vp, _i64, _i32, _vp,
                         _i32, _vp, _sz, _vp, _sz, _vp),
    "cusolverDnXgesvd_bufferSize": (_vp, _vp, ctypes.c_byte, ctypes.c_byte, _i64,
                                    _i64, _i32, _vp, _i64, _i32, _vp, _i32, _vp,
                                    _i64, _i32, _vp, _i64, _i32, _psz, _psz),
    "cusolverDnXgesvd": (_vp, _vp, ctypes.c_byte, ctypes.c_byte, _i64, _i64,
                         _i32, _vp, _i64, _i32, _vp, _i32, _vp, _i64, _i32, _vp,
                         _i64, _i32, _vp, _sz, _vp, _sz, _vp),
}
_SIGNATURES["cusolverDnCreateGesvdjInfo"] = (_vp,)
_SIGNATURES["cusolverDnDestroyGesvdjInfo"] = (_vp,)
for _t in "SDCZ":
    _SIGNATURES["cusolverDn%sgesvdj_bufferSize" % _t] = (
        _vp, _i32, _i32, _i32, _i32, _vp, _i32, _vp, _vp, _i32, _vp, _i32,
        ctypes.POINTER(ctypes.c_int), _vp)
    _SIGNATURES["cusolverDn%sgesvdj" % _t] = (
        _vp, _i32, _i32, _i32, _i32, _vp, _i32, _vp, _vp, _i32, _vp, _i32, _vp,
        _i32, _vp, _vp)
for _t, _name in (("S", "orgqr"), ("D", "orgqr"), ("C", "ungqr"), ("Z", "ungqr")):
    _SIGNATURES["cusolverDn%s%s_bufferSize" % (_t, _name)] = (
        _vp, _i32, _i32, _i32, _vp, _i32, _vp, ctypes.POINTER(ctypes.c_int))
    _SIGNATURES["cusolverDn%s%s" % (_t, _name)] = (
        _vp, _i32, _i32, _i32, _vp, _i32, _vp, _vp, _i32, _vp)
del _t, _name


class CusolverNotFoundError(_GpuarrRuntimeError):
    """cuSOLVER's library was not found or would not load (a subclass of
    the builtin :class:`RuntimeError`); the message names the wheel."""


class CusolverError(_GpuarrRuntimeError):
    """A cuSOLVER call returned an error status (``code``, ``name``,
    ``call``)."""


def reset():
    """Forget the library found (tests change the environment)."""
    _library.reset()


def candidates():
    """The paths where ``libcusolver`` is looked for, in order (list of
    str; the bare-soname ``dlopen`` that follows is not listed)."""
    return _toolchain.library_candidates(_WHEEL_LIBS, _SONAMES)


def _search():
    return candidates(), _SONAMES


def _declare(lib, path):
    return _toolchain.declare(lib, _SIGNATURES)


_library = _toolchain.RuntimeLibrary(
    "cuSOLVER", "libcusolver.so.12", "nvidia-cusolver", _search, ctypes.CDLL,
    CusolverNotFoundError, LIBRARY_HINT, setup=_declare)


def load():
    """The loaded ``libcusolver`` (a :class:`ctypes.CDLL`), loaded once.

    Returns
    -------
    ctypes.CDLL

    Raises
    ------
    CusolverNotFoundError
        When no library is found or none loads (the message names the
        package and says why a found one did not load).
    """
    return _library.load()


def _check(status, call):
    if status:
        name = STATUS_NAMES.get(status, "cusolverStatus_t %d" % status)
        raise CusolverError("%s failed: %s" % (call, name), code=status,
                            name=name, call=call)


def version():
    """cuSOLVER's version (``cusolverGetVersion``, e.g. 12004)."""
    v = ctypes.c_int()
    _check(load().cusolverGetVersion(ctypes.byref(v)), "cusolverGetVersion")
    return v.value


class _Handle:
    """A context's cuSOLVER handle and parameters object, and the lock that
    serializes calls on them."""

    __slots__ = ("ctx", "ptr", "params", "jacobi", "lock", "__weakref__")

    def __init__(self, ctx):
        lib = load()
        h, p = ctypes.c_void_p(), ctypes.c_void_p()
        _check(lib.cusolverDnCreate(ctypes.byref(h)), "cusolverDnCreate")
        self.ctx, self.ptr = ctx, h.value
        self.params = self.jacobi = 0
        self.lock = threading.Lock()
        _check(lib.cusolverDnCreateParams(ctypes.byref(p)),
               "cusolverDnCreateParams")
        self.params = p.value

    def __del__(self):
        ptr, self.ptr = getattr(self, "ptr", None), None
        params = getattr(self, "params", 0)
        jacobi = getattr(self, "jacobi", 0)
        if ptr and _library is not None:     # None at interpreter exit
            lib = _library.loaded()

            def release():
                if params:
                    lib.cusolverDnDestroyParams(params)
                if jacobi:
                    lib.cusolverDnDestroyGesvdjInfo(jacobi)
                lib.cusolverDnDestroy(ptr)
            _percontext.release_in(self.ctx, release)


handle = _percontext.state(_Handle, "handle", """\
The current context's cuSOLVER handle object (made on first use).

Raises
------
CusolverNotFoundError
    When libcusolver cannot be found.
gpuarr.driver.InvalidContextError
    When no context is current.
""")


class _Work:
    """Device and host workspaces of one call (sizes from a
    ``*_bufferSize`` query), kept until the call has been queued; the
    device block returns to the pool, which orders its reuse.

    ``zero``: the device workspace starts zeroed, for ``gesvd``, which
    copies 16 bytes of it to the host that it never wrote (compute-
    sanitizer's initcheck on an H100), so a block from the pool would hand
    it a previous call's bytes.  The memset is queued on the legacy
    default stream, where the call runs."""

    def __init__(self, dev_bytes, host_bytes, zero=False):
        self.dev = _tools.default_pool().allocate(max(int(dev_bytes), 1))
        if zero:
            _drv.memset_d8(int(self.dev), 0, max(int(dev_bytes), 1))
        self.host = np.empty(max(int(host_bytes), 1), np.uint8)
        self.dptr = int(self.dev)
        self.hptr = self.host.ctypes.data
        self.dsize, self.hsize = int(dev_bytes), int(host_bytes)


def _sizes(query, *args):
    d, h = ctypes.c_size_t(), ctypes.c_size_t()
    _check(getattr(load(), query)(*args, ctypes.byref(d), ctypes.byref(h)),
           query)
    return d.value, h.value


def _call(name, builder):
    """Run ``builder(lib, handle)`` -> status under the handle's lock on
    the legacy default stream."""
    lib = load()
    h = handle()
    with h.lock:
        _check(lib.cusolverDnSetStream(h.ptr, None), "cusolverDnSetStream")
        _check(builder(lib, h), name)


def getrf(dtype, n, a, lda, ipiv, info):
    """LU with partial pivoting of the n x n column-major matrix at ``a``
    in place; ``ipiv`` n int64 (1-based rows), ``info`` one int32."""
    t = DTYPES[dtype][0]

    def run(lib, h):
        ws = _Work(*_sizes("cusolverDnXgetrf_bufferSize", h.ptr, h.params, n,
                           n, t, a, lda, t))
        return lib.cusolverDnXgetrf(h.ptr, h.params, n, n, t, a, lda, ipiv, t,
                                    ws.dptr, ws.dsize, ws.hptr, ws.hsize, info)
    _call("cusolverDnXgetrf", run)


def getrs(dtype, n, nrhs, a, lda, ipiv, b, ldb, info, transpose=True):
    """Solve with :func:`getrf`'s factors: ``op(A) X = B`` in place of the
    n x nrhs column-major ``b``; ``transpose`` solves with A^T (a
    C-ordered matrix is the transpose of what cuSOLVER reads)."""
    t = DTYPES[dtype][0]

    def run(lib, h):
        return lib.cusolverDnXgetrs(h.ptr, h.params, _OP_T if transpose else 0,
                                    n, nrhs, t, a, lda, ipiv, t, b, ldb, info)
    _call("cusolverDnXgetrs", run)


def potrf(dtype, uplo, n, a, lda, info):
    """Cholesky of the n x n column-major Hermitian matrix at ``a`` in
    place (the ``uplo`` triangle is read and written)."""
    t = DTYPES[dtype][0]

    def run(lib, h):
        ws = _Work(*_sizes("cusolverDnXpotrf_bufferSize", h.ptr, h.params,
                           uplo, n, t, a, lda, t))
        return lib.cusolverDnXpotrf(h.ptr, h.params, uplo, n, t, a, lda, t,
                                    ws.dptr, ws.dsize, ws.hptr, ws.hsize, info)
    _call("cusolverDnXpotrf", run)


def geqrf(dtype, m, n, a, lda, tau, info):
    """Householder QR of the m x n column-major matrix at ``a`` in place
    (R above the diagonal, reflectors below; ``tau`` min(m, n) scalars)."""
    t = DTYPES[dtype][0]

    def run(lib, h):
        ws = _Work(*_sizes("cusolverDnXgeqrf_bufferSize", h.ptr, h.params, m,
                           n, t, a, lda, t, tau, t))
        return lib.cusolverDnXgeqrf(h.ptr, h.params, m, n, t, a, lda, t, tau, t,
                                    ws.dptr, ws.dsize, ws.hptr, ws.hsize, info)
    _call("cusolverDnXgeqrf", run)


def orgqr(dtype, m, n, k, a, lda, tau, info):
    """The first n columns of Q from :func:`geqrf`'s k reflectors, in place
    of the m x n column-major ``a`` (``<t>orgqr`` / ``<t>ungqr``)."""
    letter = DTYPES[dtype][2]
    name = "cusolverDn%s%s" % (letter, "orgqr" if letter in "SD" else "ungqr")

    def run(lib, h):
        lwork = ctypes.c_int()
        _check(getattr(lib, name + "_bufferSize")(h.ptr, m, n, k, a, lda, tau,
                                                  ctypes.byref(lwork)),
               name + "_bufferSize")
        ws = _Work(max(lwork.value, 1) * dtype.itemsize, 0)
        return getattr(lib, name)(h.ptr, m, n, k, a, lda, tau, ws.dptr,
                                  lwork.value, info)
    _call(name, run)


def syevd(dtype, vectors, uplo, n, a, lda, w, info):
    """Eigenvalues (ascending, real, at ``w``) and, with ``vectors``,
    eigenvectors (in place of ``a``, column-major columns) of the n x n
    Hermitian matrix whose ``uplo`` triangle is read."""
    t, rdt, _ = DTYPES[dtype]
    rt = _REAL_TYPE[t]
    job = _EIG_VECTOR if vectors else _EIG_NOVECTOR

    def run(lib, h):
        ws = _Work(*_sizes("cusolverDnXsyevd_bufferSize", h.ptr, h.params, job,
                           uplo, n, t, a, lda, rt, w, t))
        return lib.cusolverDnXsyevd(h.ptr, h.params, job, uplo, n, t, a, lda,
                                    rt, w, t, ws.dptr, ws.dsize, ws.hptr,
                                    ws.hsize, info)
    _call("cusolverDnXsyevd", run)


def gesvd(dtype, job, m, n, a, lda, s, u, ldu, vt, ldvt, info):
    """SVD of the m x n column-major matrix at ``a`` (m >= n; destroyed):
    singular values descending at ``s``; with ``job`` ``"A"`` all of U (m x
    m) and V^H (n x n), ``"S"`` the first n columns of U, ``"N"`` neither
    (``u``/``vt`` may then be 0)."""
    t, rdt, _ = DTYPES[dtype]
    rt = _REAL_TYPE[t]
    j = ord(job)

    def run(lib, h):
        ws = _Work(*_sizes("cusolverDnXgesvd_bufferSize", h.ptr, h.params, j, j,
                           m, n, t, a, lda, rt, s, t, u, ldu, t, vt, ldvt, t),
                   zero=True)
        return lib.cusolverDnXgesvd(h.ptr, h.params, j, j, m, n, t, a, lda, rt,
                                    s, t, u, ldu, t, vt, ldvt, t, ws.dptr,
                                    ws.dsize, ws.hptr, ws.hsize, info)
    _call("cusolverDnXgesvd", run)


def gesvdj(dtype, vectors, econ, m, n, a, lda, s, u, ldu, v, ldv, info):
    """SVD by one-sided Jacobi (``<t>gesvdj``, default tolerance and
    sweeps) of the m x n column-major matrix at ``a`` (any m, n; destroyed):
    singular values descending at ``s``; with ``vectors``, U (m x m, or m x
    min(m, n) with ``econ``) and V itself (not V^H: n x n or n x min(m, n)).
    ``info`` is min(m, n) + 1 when the iteration did not converge."""
    letter = DTYPES[dtype][2]
    name = "cusolverDn%sgesvdj" % letter
    job = _EIG_VECTOR if vectors else _EIG_NOVECTOR

    def run(lib, h):
        if not h.jacobi:
            p = ctypes.c_void_p()
            _check(lib.cusolverDnCreateGesvdjInfo(ctypes.byref(p)),
                   "cusolverDnCreateGesvdjInfo")
            h.jacobi = p.value
        lwork = ctypes.c_int()
        _check(getattr(lib, name + "_bufferSize")(
            h.ptr, job, int(econ), m, n, a, lda, s, u, ldu, v, ldv,
            ctypes.byref(lwork), h.jacobi), name + "_bufferSize")
        ws = _Work(max(lwork.value, 1) * dtype.itemsize, 0)
        return getattr(lib, name)(h.ptr, job, int(econ), m, n, a, lda, s, u,
                                  ldu, v, ldv, ws.dptr, lwork.value, info,
                                  h.jacobi)
    _call(name, run)


def read_infos(ptr, count):
    """The ``count`` int32 infos at device address ``ptr`` (waits for the
    queued work)."""
    out = np.empty(count, np.int32)
    _drv.memcpy_dtoh(out, ptr)
    return out
