"""numpy.linalg's factorizations and solvers on cuSOLVER (layer 5):
``solve``, ``inv``, ``det``, ``slogdet``, ``cholesky``, ``qr``, ``svd``,
``eigh``, ``eigvalsh``, and on top of them ``lstsq``, ``pinv``,
``matrix_rank`` (``cond`` and the matrix norms are in
:mod:`gpuarr.linalg`).

Layout: cuSOLVER is column-major, so a C-ordered copy of a matrix is its
transpose to cuSOLVER; each routine copies its input once (cuSOLVER works
in place) in the orientation that routine needs, documented where it is
made.  Stacks (``(..., M, N)``) run one cuSOLVER call per matrix, queued
back to back; their ``info`` values are read once, after the whole stack,
and raise numpy's :class:`numpy.linalg.LinAlgError` as numpy's messages
("Singular matrix", "Matrix is not positive definite", ...).

Dtypes as numpy.linalg's: integers and bool compute in float64; float32,
float64, complex64 and complex128 in their own precision; float16 raises
TypeError ("array type float16 is unsupported in linalg").
"""

import collections

import numpy as np

from . import _placement
from . import _creation
from . import _cusolver
from . import _layout
from . import _manipulation as _manip
from . import _rearrange
from . import _transfer
from . import _ufunc
from . import reductions as _rs
from ._array import GPUArray

__all__ = ["solve", "inv", "det", "slogdet", "cholesky", "qr", "svd",
           "eigh", "eigvalsh", "linalg_dtype", "prepare", "swap_last",
           "on_host", "LinAlgError", "SlogdetResult", "EighResult",
           "QRResult", "SVDResult"]

SlogdetResult = collections.namedtuple("SlogdetResult", "sign logabsdet")
EighResult = collections.namedtuple("EighResult", "eigenvalues eigenvectors")
QRResult = collections.namedtuple("QRResult", "Q R")
SVDResult = collections.namedtuple("SVDResult", "U S Vh")

#: numpy's exception class, raised as it is
LinAlgError = _LinAlgError = np.linalg.LinAlgError
_F8 = np.dtype(np.float64)
_I32 = np.dtype(np.int32)
_I64 = np.dtype(np.int64)
#: numpy's "no value given" default (pinv's rtol)
_NOVALUE = getattr(np, "_NoValue", object())


def linalg_dtype(*dtypes):
    """The dtype numpy.linalg computes ``dtypes`` in: float64 for integers
    and bool, the float or complex type otherwise.

    Raises
    ------
    TypeError
        For float16 (numpy's message).
    """
    out = []
    for dt in dtypes:
        dt = np.dtype(dt)
        if dt == np.float16:
            raise TypeError("array type float16 is unsupported in linalg")
        out.append(_F8 if dt.kind in "biu" else dt)
    return np.result_type(*out)


def prepare(a, square=True):
    a = a if isinstance(a, GPUArray) else _creation.asarray(a)
    if len(a.shape) < 2:
        raise _LinAlgError("%d-dimensional array given. Array must be at "
                           "least two-dimensional" % len(a.shape))
    if square and a.shape[-1] != a.shape[-2]:
        raise _LinAlgError("Last 2 dimensions of the array must be square")
    return a


def _c_copy(a, dt):
    """A C-ordered copy of ``a`` in ``dt``: each matrix is its transpose
    to cuSOLVER."""
    return _transfer.astype(a, dt, order="C")


def _t_copy(a, dt):
    """A C-ordered copy of ``a`` with the last two axes swapped: each
    matrix is itself to cuSOLVER (column-major)."""
    return _transfer.astype(_manip.swapaxes(a, -1, -2), dt, order="C")


def _mats(x):
    """(count, bytes per matrix) of a C-ordered stack of matrices."""
    per = x.shape[-1] * x.shape[-2] * x.dtype.itemsize
    return _layout.prod(x.shape[:-2]), per


def _infos(count):
    return _creation.empty_c((max(count, 1),), _I32)


def _read_infos(infos, count):
    """The stack's infos (one read back); a negative one (an argument
    cuSOLVER refused) raises RuntimeError."""
    vals = _cusolver.read_infos(infos.ptr, count)
    if (vals < 0).any():
        raise RuntimeError("cuSOLVER reported an invalid argument (info %d)"
                           % int(vals[vals < 0][0]))
    return vals


def _raise_if(infos, count, message):
    if (_read_infos(infos, count) > 0).any():
        raise _LinAlgError(message)


def swap_last(x):
    return _manip.swapaxes(x, -1, -2)


def on_host(fn, shapes_dtypes, *args, **kw):
    """numpy's result for empty operands, computed on zeros and copied to
    the device (nothing to factor)."""
    r = fn(*[np.zeros(s, d) for s, d in shapes_dtypes], *args, **kw)

    def up(x):
        if isinstance(x, np.ndarray) or np.isscalar(x) or isinstance(x, np.generic):
            return _creation.to_gpu(np.ascontiguousarray(x))
        return x
    if isinstance(r, tuple):
        return type(r)(*[up(x) for x in r]) if hasattr(r, "_fields") \
            else tuple(up(x) for x in r)
    return up(r)


# ---------------------------------------------------------------------------
# LU: solve, inv, det, slogdet

def _lu(a, dt):
    """LU of every matrix of ``a`` (copied C-ordered: cuSOLVER factors the
    transposes, A^T = P L U).  Returns (factors, pivots, infos, count)."""
    lu = _c_copy(a, dt)
    count, per = _mats(lu)
    n = lu.shape[-1]
    piv = _creation.empty_c(lu.shape[:-1], _I64)
    infos = _infos(count)
    for i in range(count):
        _cusolver.getrf(dt, n, lu.ptr + i * per, n, piv.ptr + i * n * 8,
                        infos.ptr + 4 * i)
    return lu, piv, infos, count


def solve(a, b):
    """Solve ``a @ x = b`` (numpy.linalg.solve) by LU with partial pivoting.

    Parameters
    ----------
    a : GPUArray, (..., M, M)
    b : GPUArray, (M,) or (..., M, K)
        numpy 2's rule: ``b`` is a vector only when it is 1-D; batch
        dimensions broadcast.

    Returns
    -------
    GPUArray
        ``x`` of ``b``'s shape (batch dimensions broadcast), C-ordered.

    Raises
    ------
    numpy.linalg.LinAlgError
        For non-square ``a`` or an exactly singular matrix (found from
        cuSOLVER's info, read once for the whole stack).
    ValueError
        When ``b``'s length does not match ``a``'s.
    """
    a = prepare(a)
    b = b if isinstance(b, GPUArray) else _creation.asarray(b)
    dt = linalg_dtype(a.dtype, b.dtype)
    n = a.shape[-1]
    vec = len(b.shape) == 1
    if vec and b.shape[0] != n:
        raise ValueError("solve1: Input operand 1 has a mismatch in its core "
                         "dimension 0, with gufunc signature (m,m),(m)->(m) "
                         "(size %d is different from %d)" % (b.shape[0], n))
    bm = b.reshape(n, 1) if vec else b
    if not vec and bm.shape[-2] != n:
        raise ValueError("solve: Input operand 1 has a mismatch in its core "
                         "dimension 0, with gufunc signature (m,m),(m,n)->(m,n) "
                         "(size %d is different from %d)" % (bm.shape[-2], n))
    batch = _layout.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    k = bm.shape[-1]
    out_shape = batch + ((n,) if vec else (n, k))
    if not n or not k or not _layout.prod(batch):
        return _creation.zeros(out_shape, dt)
    a = _manip.broadcast_to(a, batch + (n, n))
    bm = _manip.broadcast_to(bm, batch + (n, k))
    lu, piv, infos, count = _lu(a, dt)
    _raise_if(infos, count, "Singular matrix")
    x = _t_copy(bm, dt)                 # each (k, n) C block: B column-major
    isz = dt.itemsize
    for i in range(count):
        _cusolver.getrs(dt, n, k, lu.ptr + i * n * n * isz, n,
                        piv.ptr + i * n * 8, x.ptr + i * n * k * isz, n,
                        infos.ptr + 4 * i)
    r = _transfer.astype(swap_last(x), dt, order="C")
    return r.reshape(out_shape)


def inv(a):
    """Inverse of each square matrix (numpy.linalg.inv): :func:`solve`
    with the identity.

    The LU factorization is cuSOLVER's ``getrf`` and the solve its
    ``getrs`` (numpy uses LAPACK's ``gesv``), one call per matrix of a
    stack.

    Parameters
    ----------
    a : GPUArray or array_like, (..., M, M)
        Copied to the device first when it is not a GPUArray.  Integers
        and bool compute in float64 (numpy.linalg's dtype rule).

    Returns
    -------
    GPUArray
        The inverses, ``a``'s shape, C-ordered, of numpy.linalg's dtype
        (float64 for integer or bool input).

    Raises
    ------
    numpy.linalg.LinAlgError
        For fewer than 2 dimensions, non-square matrices, or an exactly
        singular matrix ("Singular matrix", from cuSOLVER's info, read
        once for the whole stack).
    TypeError
        For float16 input (unsupported, as in numpy.linalg).
    """
    a = prepare(a)
    dt = linalg_dtype(a.dtype)
    n = a.shape[-1]
    eye = _creation.eye(n, dtype=dt)
    return solve(a, _manip.broadcast_to(eye, a.shape))


def _lu_diag(lu):
    n = lu.shape[-1]
    isz = lu.dtype.itemsize
    return lu._view(lu.shape[:-1], lu.strides[:-2] + ((n + 1) * isz,), 0)


def _pivot_sign(piv, dt):
    """+1 or -1 per matrix: the parity of the row swaps."""
    n = piv.shape[-1]
    rows = _creation.arange(1, n + 1, dtype=_I64)
    swaps = _rs.count_nonzero(_ufunc.not_equal(piv, rows), axis=-1)
    odd = _ufunc.remainder(swaps, 2)
    return _ufunc.subtract(1, _ufunc.multiply(odd, 2)).astype(dt)


def det(a):
    """Determinant of each square matrix (numpy.linalg.det), from its LU
    factors: the product of U's diagonal times the pivots' sign (0 for an
    exactly singular matrix, as numpy's, without an error).

    The LU factors come from cuSOLVER's ``getrf`` (one call per matrix);
    the product of the diagonal is a gpuarr reduction.  Empty matrices
    are handled by numpy itself (the determinant of a 0 x 0 matrix is 1).

    Parameters
    ----------
    a : GPUArray or array_like, (..., M, M)
        Copied to the device first when it is not a GPUArray.

    Returns
    -------
    GPUArray
        Shape ``a.shape[:-2]`` (0-d for one matrix), numpy.linalg's dtype.

    Raises
    ------
    numpy.linalg.LinAlgError
        For fewer than 2 dimensions or non-square matrices.
    TypeError
        For float16 input.
    """
    a = prepare(a)
    dt = linalg_dtype(a.dtype)
    if not a.shape[-1] or not a.size:
        return on_host(np.linalg.det, [(a.shape, dt)])
    lu, piv, infos, count = _lu(a, dt)
    d = _rs.prod(_lu_diag(lu), axis=-1)
    return _ufunc.multiply(d, _pivot_sign(piv, dt))


def slogdet(a):
    """Sign and log of the absolute determinant (numpy.linalg.slogdet):
    ``sign * exp(logabsdet) == det``, without overflow.

    Parameters
    ----------
    a : GPUArray or array_like, (..., M, M)
        Copied to the device first when it is not a GPUArray.

    Returns
    -------
    SlogdetResult
        ``(sign, logabsdet)``: ``sign`` of numpy.linalg's dtype (a unit
        complex number for complex input; 0 for a singular matrix, whose
        ``logabsdet`` is ``-inf``), ``logabsdet`` real.  Both have shape
        ``a.shape[:-2]`` (0-d for one matrix).

    Raises
    ------
    numpy.linalg.LinAlgError
        For fewer than 2 dimensions or non-square matrices.
    TypeError
        For float16 input.

    Notes
    -----
    From the LU factors of cuSOLVER's ``getrf``: ``logabsdet`` is the sum
    of ``log|u_ii|`` and ``sign`` the product of ``u_ii / |u_ii|`` times
    the pivots' parity.  Empty matrices are handled by numpy itself.
    """
    a = prepare(a)
    dt = linalg_dtype(a.dtype)
    if not a.shape[-1] or not a.size:
        return on_host(np.linalg.slogdet, [(a.shape, dt)])
    lu, piv, infos, count = _lu(a, dt)
    d = _lu_diag(lu)
    mag = abs(d)
    logabs = _rs.sum(_ufunc.apply("log", (mag,)), axis=-1)
    if dt.kind == "c":
        unit = _ufunc.where(_ufunc.equal(mag, 0), 0, _ufunc.true_divide(d, mag))
        unit = unit.astype(dt)
    else:
        unit = _ufunc.apply("sign", (d,))
    sign = _ufunc.multiply(_rs.prod(unit, axis=-1), _pivot_sign(piv, dt))
    return SlogdetResult(sign, logabs)


# ---------------------------------------------------------------------------
# Cholesky, eigh

def cholesky(a, /, *, upper=False):
    """Cholesky factor of each Hermitian positive-definite matrix
    (numpy.linalg.cholesky).

    Parameters
    ----------
    a : GPUArray, (..., M, M)
        Only its lower triangle is read (numpy's).
    upper : bool
        Return ``U`` with ``a = U^H U`` instead of ``L`` with
        ``a = L L^H`` (numpy 2).

    Returns
    -------
    GPUArray, (..., M, M)
        ``L`` (lower triangular), or ``U`` (upper triangular) when
        ``upper`` is True; zeros above (below) the diagonal; numpy.linalg's
        dtype, C-ordered.

    Raises
    ------
    numpy.linalg.LinAlgError
        "Matrix is not positive definite" (cuSOLVER's info), and for fewer
        than 2 dimensions or non-square matrices.
    TypeError
        For float16 input.

    Notes
    -----
    cuSOLVER's ``potrf`` (lower factorization), one call per matrix.
    """
    a = prepare(a)
    dt = linalg_dtype(a.dtype)
    if not a.size:
        return _creation.zeros(a.shape, dt)
    # the swapped copy: each matrix is A itself to cuSOLVER, whose LOWER
    # factorization (faster than UPPER in cuSOLVER) reads A's lower
    # triangle; its factor L, column-major, reads back C-ordered as L^T
    f = _t_copy(a, dt)
    count, per = _mats(f)
    n = f.shape[-1]
    infos = _infos(count)
    for i in range(count):
        _cusolver.potrf(dt, _cusolver.LOWER, n, f.ptr + i * per, n,
                        infos.ptr + 4 * i)
    _raise_if(infos, count, "Matrix is not positive definite")
    if not upper:
        return _rearrange.tril(swap_last(f))
    # U = L^H = conj(L^T)
    h = _ufunc.apply("conjugate", (f,)) if dt.kind == "c" else f
    return _rearrange.triu(h)


def _eigh(a, UPLO, vectors):
    a = prepare(a)
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    dt = linalg_dtype(a.dtype)
    rdt = _cusolver.DTYPES[dt][1]
    n = a.shape[-1]
    if not a.size:
        w = _creation.zeros(a.shape[:-1], rdt)
        return (w, _creation.zeros(a.shape, dt)) if vectors else w
    # C-ordered, each matrix is A^T = conj(A) to cuSOLVER: A's lower
    # triangle is its upper one; its eigenvectors v (conj(A) v = w v) are
    # rows of the C-ordered result, and conj(v) are A's
    f = _c_copy(a, dt)
    count, per = _mats(f)
    w = _creation.empty_c(a.shape[:-1], rdt)
    infos = _infos(count)
    uplo = _cusolver.UPPER if UPLO == "L" else _cusolver.LOWER
    for i in range(count):
        _cusolver.syevd(dt, vectors, uplo, n, f.ptr + i * per, n,
                        w.ptr + i * n * rdt.itemsize, infos.ptr + 4 * i)
    _raise_if(infos, count, "Eigenvalues did not converge")
    if not vectors:
        return w
    v = _ufunc.apply("conjugate", (f,)) if dt.kind == "c" else f
    return w, _transfer.astype(swap_last(v), dt, order="C")


def eigh(a, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors (columns) of each
    Hermitian matrix (numpy.linalg.eigh), by cuSOLVER's divide and
    conquer (``syevd``/``heevd``).

    Parameters
    ----------
    a : GPUArray, (..., M, M)
    UPLO : {'L', 'U'}
        Which triangle is read.

    Returns
    -------
    EighResult
        ``(eigenvalues, eigenvectors)``: real (..., M) and (..., M, M) of
        numpy.linalg's dtype.

    Raises
    ------
    numpy.linalg.LinAlgError
        When the iteration does not converge, or ``a`` is not square.
    """
    return EighResult(*_eigh(a, UPLO, True))


def eigvalsh(a, UPLO="L"):
    """Eigenvalues (ascending, real) of each Hermitian matrix
    (numpy.linalg.eigvalsh); see :func:`eigh`.

    cuSOLVER's ``syevd``/``heevd`` without eigenvectors.

    Parameters
    ----------
    a : GPUArray or array_like, (..., M, M)
        Only the triangle ``UPLO`` names is read.
    UPLO : {'L', 'U'}
        Which triangle is read: the lower (default) or the upper one.

    Returns
    -------
    GPUArray, (..., M)
        Real: float32 for float32 and complex64 input, else float64.

    Raises
    ------
    ValueError
        When ``UPLO`` is not 'L' or 'U'.
    numpy.linalg.LinAlgError
        "Eigenvalues did not converge" (cuSOLVER's info), and for fewer
        than 2 dimensions or non-square matrices.
    TypeError
        For float16 input.
    """
    return _eigh(a, UPLO, False)


# ---------------------------------------------------------------------------
# QR, SVD

def qr(a, mode="reduced"):
    """QR factorization of each matrix (numpy.linalg.qr), Householder
    (``geqrf``, then ``orgqr``/``ungqr`` for Q).

    Parameters
    ----------
    a : GPUArray, (..., M, N)
    mode : {'reduced', 'complete', 'r', 'raw'}
        numpy's modes: Q (M, K) and R (K, N) with K = min(M, N); Q (M, M)
        and R (M, N); R alone; the raw reflectors ``h`` (..., N, M) and
        ``tau`` (..., K).

    Returns
    -------
    QRResult or GPUArray or tuple
    """
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError("Unrecognized mode '%s'" % (mode,))
    a = prepare(a, square=False)
    dt = linalg_dtype(a.dtype)
    m, n = a.shape[-2:]
    k = min(m, n)
    if not a.size:
        r = on_host(np.linalg.qr, [(a.shape, dt)], mode=mode)
        return QRResult(*r) if mode in ("reduced", "complete") else r
    # C-ordered with the last axes swapped: each matrix is A itself to
    # cuSOLVER (column-major M x N, leading dimension M)
    h = _t_copy(a, dt)
    count, per = _mats(h)
    tau = _creation.empty_c(a.shape[:-2] + (k,), dt)
    infos = _infos(count)
    isz = dt.itemsize
    for i in range(count):
        _cusolver.geqrf(dt, m, n, h.ptr + i * per, m, tau.ptr + i * k * isz,
                        infos.ptr + 4 * i)
    if mode == "raw":
        return h, tau
    full = mode == "complete" and m > n
    rows = m if full else k
    r = _rearrange.triu(_transfer.astype(swap_last(h)[..., :rows, :], dt, order="C"))
    if mode == "r":
        return r
    if full:
        q = _creation.empty_c(a.shape[:-2] + (m, m), dt)
        _transfer.copy_into(q[..., :n, :], h)
        cols, qper = m, m * m * isz
    else:
        q, cols, qper = h, k, per
    for i in range(count):
        _cusolver.orgqr(dt, m, cols, k, q.ptr + i * qper, m,
                        tau.ptr + i * k * isz, infos.ptr + 4 * i)
    _raise_if(infos, count, "QR factorization failed")
    q = _transfer.astype(swap_last(q)[..., :, :cols] if full else
                         swap_last(q[..., :cols, :]), dt, order="C")
    return QRResult(q, r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition of each matrix (numpy.linalg.svd):
    cuSOLVER's one-sided Jacobi ``gesvdj`` (PyTorch's default driver),
    and its QR-based ``gesvd`` (LAPACK's method) for the values alone and
    for a stack where Jacobi does not converge.

    Parameters
    ----------
    a : GPUArray, (..., M, N)
    full_matrices : bool
        U (M, M) and Vh (N, N), else (M, K) and (K, N), K = min(M, N).
    compute_uv : bool
        Return the singular values alone when False.
    hermitian : bool
        Accepted for numpy's signature; the general SVD is computed (a
        valid SVD of a Hermitian matrix too, with other signs than the
        eigen-decomposition numpy then uses).

    Returns
    -------
    SVDResult or GPUArray
        ``(U, S, Vh)`` with ``a = U @ (S[..., None] * Vh)``; S real,
        descending.

    Raises
    ------
    numpy.linalg.LinAlgError
        "SVD did not converge".
    """
    a = prepare(a, square=False)
    dt = linalg_dtype(a.dtype)
    rdt = _cusolver.DTYPES[dt][1]
    if not a.size:
        r = on_host(np.linalg.svd, [(a.shape, dt)], full_matrices, compute_uv)
        return SVDResult(*r) if compute_uv else r
    # values alone: the QR-based gesvd (gesvdj without vectors, given null
    # U and V, made an illegal access with cuSOLVER 12.0 on the H200)
    r = _svd_jacobi(a, dt, rdt, full_matrices, True) if compute_uv else None
    if r is None:               # Jacobi did not converge: the QR-based SVD
        r = _svd_qr(a, dt, rdt, full_matrices, compute_uv)
    return SVDResult(*r) if compute_uv else r


def _svd_jacobi(a, dt, rdt, full_matrices, compute_uv):
    """The SVD by cuSOLVER's Jacobi ``gesvdj`` (PyTorch's default), or None
    when it does not converge for some matrix of the stack (``compute_uv``
    must be True: see :func:`svd`)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    # the C-ordered copy is A^T to cuSOLVER: A^T = U' S V'^H, so numpy's
    # U = conj(V') (read back transposed) and Vh = U'^T (read back as is)
    f = _c_copy(a, dt)
    count, per = _mats(f)
    batch = a.shape[:-2]
    s = _creation.empty_c(batch + (k,), rdt)
    econ = not full_matrices
    ku, kv = (k, k) if econ else (n, m)
    if compute_uv:
        ub = _creation.empty_c(batch + (ku, n), dt)      # U' column-major
        vb = _creation.empty_c(batch + (kv, m), dt)      # V' column-major
    infos = _infos(count)
    isz = dt.itemsize
    for i in range(count):
        uptr = ub.ptr + i * ku * n * isz if compute_uv else 0
        vptr = vb.ptr + i * kv * m * isz if compute_uv else 0
        _cusolver.gesvdj(dt, compute_uv, econ, n, m, f.ptr + i * per, n,
                         s.ptr + i * k * rdt.itemsize, uptr, n, vptr, m,
                         infos.ptr + 4 * i)
    if (_read_infos(infos, count) > 0).any():
        return None
    if not compute_uv:
        return s
    v = _ufunc.apply("conjugate", (vb,)) if dt.kind == "c" else vb
    return _transfer.astype(swap_last(v), dt, order="C"), s, ub


def _svd_qr(a, dt, rdt, full_matrices, compute_uv):
    """The SVD by cuSOLVER's QR-based ``gesvd`` (numpy's LAPACK routine's
    method), for matrices where Jacobi does not converge."""
    m, n = a.shape[-2:]
    k = min(m, n)
    wide = n >= m
    # gesvd needs rows >= columns: for a wide matrix the C-ordered copy
    # (A^T to cuSOLVER: A^T = U' S V'^H, so U = V'^T and Vh = U'^T, both
    # read back C-ordered as they are); for a tall one the swapped copy
    # (A itself: U and Vh read back transposed)
    f = _c_copy(a, dt) if wide else _t_copy(a, dt)
    rows, cols = (n, m) if wide else (m, n)
    count, per = _mats(f)
    batch = a.shape[:-2]
    s = _creation.empty_c(batch + (k,), rdt)
    job = "N" if not compute_uv else ("A" if full_matrices else "S")
    ucols = rows if job == "A" else cols
    if compute_uv:
        ub = _creation.empty_c(batch + (ucols, rows), dt)    # U' column-major
        vb = _creation.empty_c(batch + (cols, cols), dt)     # V'^H column-major
    infos = _infos(count)
    isz = dt.itemsize
    for i in range(count):
        uptr = ub.ptr + i * ucols * rows * isz if compute_uv else 0
        vptr = vb.ptr + i * cols * cols * isz if compute_uv else 0
        _cusolver.gesvd(dt, job, rows, cols, f.ptr + i * per, rows,
                        s.ptr + i * k * rdt.itemsize, uptr, rows, vptr, cols,
                        infos.ptr + 4 * i)
    _raise_if(infos, count, "SVD did not converge")
    if not compute_uv:
        return s
    if wide:
        return vb, s, ub
    return (_transfer.astype(swap_last(ub), dt, order="C"), s,
            _transfer.astype(swap_last(vb), dt, order="C"))


# run on the arrays' device (issue 16)
_placement.route(globals())
