"""GPU checks of numpy.linalg on cuSOLVER against numpy: solve, inv, det,
slogdet, cholesky, qr, svd, eigh, eigvalsh, lstsq, pinv, matrix_rank,
cond and the matrix norms, for float32, float64, complex64, complex128 and
integers (computed in float64), stacks, non-contiguous inputs, empty
matrices, and numpy's LinAlgError cases.  Tolerances scale with the
dtype's epsilon and the matrix size (the test matrices are well
conditioned: a random part plus a multiple of the identity)."""
import numpy as np
import pytest

import gpuarr
from gpuarr import linalg as la

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


_rng = np.random.default_rng(2029)
DTYPES = [np.dtype(t) for t in (np.float32, np.float64, np.complex64,
                                np.complex128)]
TOL = {"f4": 2e-4, "f8": 1e-10, "c8": 2e-4, "c16": 1e-10}


def tol(dt):
    return TOL[np.dtype(dt).str[1:]]


def rand(shape, dt):
    dt = np.dtype(dt)
    x = _rng.standard_normal(shape)
    if dt.kind == "c":
        x = x + 1j * _rng.standard_normal(shape)
    if dt.kind in "iu":
        return _rng.integers(-5, 6, shape).astype(dt)
    return x.astype(dt)


def well(shape, dt):
    """Random matrices plus n times the identity (condition ~ 3)."""
    a = rand(shape, dt)
    n = shape[-1]
    return (a + 2 * np.sqrt(n) * np.eye(n)).astype(dt)


def hpd(shape, dt):
    """Hermitian positive-definite matrices."""
    a = rand(shape, dt)
    n = shape[-1]
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return h.astype(dt)


def near(got, want, rtol, atol=None):
    assert isinstance(got, gpuarr.GPUArray), type(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got.get(), want, rtol=rtol,
                               atol=(atol if atol is not None else rtol) * scale)


def dev(h, view):
    """``h`` on the device, contiguous or as a transposed view."""
    if not view:
        return gpuarr.to_gpu(h)
    return gpuarr.to_gpu(np.ascontiguousarray(np.swapaxes(h, -1, -2))).swapaxes(-1, -2)


@pytest.mark.parametrize("dt", DTYPES + [np.dtype(np.int64)], ids=str)
@pytest.mark.parametrize("view", [False, True])
def test_solve_inv_det(dt, view):
    t = tol(np.float64 if dt.kind == "i" else dt)
    for shape in ((7, 7), (1, 1), (3, 2, 33, 33)):
        a = well(shape, dt) if dt.kind != "i" else rand(shape, dt) + 20 * np.eye(shape[-1], dtype=dt)
        ga = dev(a, view)
        b1 = rand(shape[-1:], dt)
        near(la.solve(ga, gpuarr.to_gpu(b1)), np.linalg.solve(a, b1), t)
        bm = rand(shape[:-1] + (5,), dt)
        near(la.solve(ga, gpuarr.to_gpu(bm)), np.linalg.solve(a, bm), t)
        near(la.inv(ga), np.linalg.inv(a), t)
        near(la.det(ga), np.linalg.det(a), 10 * t)
        s, l = la.slogdet(ga)
        ws, wl = np.linalg.slogdet(a)
        near(s, ws, t)
        near(l, wl, t)
    # b's batch broadcasts against a's
    a = well((4, 6, 6), dt) if dt.kind != "i" else rand((4, 6, 6), dt) + 20 * np.eye(6, dtype=dt)
    b = rand((6, 2), dt)
    near(la.solve(gpuarr.to_gpu(a), gpuarr.to_gpu(b)), np.linalg.solve(a, b), t)


def test_singular_and_bad_shapes():
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    g = gpuarr.to_gpu(s)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.solve(g, gpuarr.to_gpu(np.ones(2)))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.inv(gpuarr.to_gpu(np.stack([np.eye(2), s])))
    assert float(la.det(g).get()) == 0.0
    sign, logdet = la.slogdet(g)
    assert float(sign.get()) == 0.0 and float(logdet.get()) == -np.inf
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        la.inv(gpuarr.to_gpu(np.ones((2, 3))))
    with pytest.raises(ValueError, match="mismatch"):
        la.solve(g, gpuarr.to_gpu(np.ones(3)))
    with pytest.raises(TypeError, match="float16"):
        la.inv(gpuarr.to_gpu(np.eye(2, dtype=np.float16)))
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        la.cholesky(gpuarr.to_gpu(np.array([[1.0, 2.0], [2.0, 1.0]])))
    near(la.det(gpuarr.to_gpu(np.zeros((3, 0, 0)))), np.linalg.det(np.zeros((3, 0, 0))), 0)
    near(la.inv(gpuarr.to_gpu(np.zeros((0, 0)))), np.zeros((0, 0)), 0)
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.matrix_power(g, -2)
    w = well((5, 5), np.float64)
    near(la.matrix_power(gpuarr.to_gpu(w), -3), np.linalg.matrix_power(w, -3), 1e-10)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_cholesky_eigh(dt):
    t = tol(dt)
    for shape in ((9, 9), (2, 3, 17, 17)):
        h = hpd(shape, dt)
        g = gpuarr.to_gpu(h)
        near(la.cholesky(g), np.linalg.cholesky(h), t)
        near(la.cholesky(g, upper=True), np.linalg.cholesky(h, upper=True), t)
        w, v = la.eigh(g)
        ww, _ = np.linalg.eigh(h)
        near(w, ww, t)
        vh = v.get()
        np.testing.assert_allclose(h @ vh, vh * ww[..., None, :], rtol=t,
                                   atol=t * np.abs(ww).max() * 10)
        eye = np.conj(np.swapaxes(vh, -1, -2)) @ vh
        np.testing.assert_allclose(eye, np.broadcast_to(np.eye(shape[-1]), eye.shape),
                                   atol=t * 10)
        near(la.eigvalsh(g), ww, t)
        # UPLO: only that triangle is read
        junk = h.copy()
        iu = np.triu_indices(shape[-1], 1)
        junk[..., iu[0], iu[1]] = 99
        near(la.eigvalsh(gpuarr.to_gpu(junk), UPLO="L"), ww, t)
        near(la.eigvalsh(gpuarr.to_gpu(np.swapaxes(junk, -1, -2).conj().copy()), UPLO="U"),
             ww, t)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(6, 9), (9, 6), (7, 7), (2, 5, 3), (1, 4)],
                         ids=str)
def test_svd_qr(dt, shape):
    t = tol(dt)
    a = rand(shape, dt)
    g = dev(a, shape == (7, 7))
    m, n = shape[-2:]
    k = min(m, n)
    for full in (True, False):
        u, s, vh = la.svd(g, full_matrices=full)
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
        assert u.shape == wu.shape and vh.shape == wvh.shape
        near(s, ws, t)
        uh, sh, vhh = u.get(), s.get(), vh.get()
        rec = (uh[..., :, :k] * sh[..., None, :]) @ vhh[..., :k, :]
        np.testing.assert_allclose(rec, a, atol=t * 10 * max(1, np.abs(a).max()))
        ue = np.conj(np.swapaxes(uh, -1, -2)) @ uh
        np.testing.assert_allclose(ue, np.broadcast_to(np.eye(uh.shape[-1]), ue.shape),
                                   atol=t * 10)
    near(la.svd(g, compute_uv=False), np.linalg.svd(a, compute_uv=False), t)
    for mode in ("reduced", "complete"):
        q, r = la.qr(g, mode=mode)
        wq, wr = np.linalg.qr(a, mode=mode)
        assert q.shape == wq.shape and r.shape == wr.shape
        qh, rh = q.get(), r.get()
        np.testing.assert_allclose(qh @ rh, a, atol=t * 10 * max(1, np.abs(a).max()))
        np.testing.assert_array_equal(np.tril(rh, -1), 0)
        qe = np.conj(np.swapaxes(qh, -1, -2)) @ qh
        np.testing.assert_allclose(qe, np.broadcast_to(np.eye(qh.shape[-1]), qe.shape),
                                   atol=t * 10)
        # R is unique up to the signs of its rows
        np.testing.assert_allclose(np.abs(rh), np.abs(wr), atol=t * 10 * max(1, np.abs(a).max()))
    r = la.qr(g, mode="r")
    np.testing.assert_allclose(np.abs(r.get()), np.abs(np.linalg.qr(a, mode="r")),
                               atol=t * 10 * max(1, np.abs(a).max()))
    h, tau = la.qr(g, mode="raw")
    wh, wtau = np.linalg.qr(a, mode="raw") if len(shape) == 2 else (None, None)
    if wh is not None:
        assert h.shape == wh.shape and tau.shape == wtau.shape


@pytest.mark.parametrize("dt", [np.dtype(np.float64), np.dtype(np.complex64)], ids=str)
def test_lstsq_pinv_rank_cond_norms(dt):
    t = tol(dt)
    a = rand((12, 5), dt)
    b = rand((12, 3), dt)
    x, res, rank, s = la.lstsq(gpuarr.to_gpu(a), gpuarr.to_gpu(b))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b)
    near(x, wx, t * 10)
    near(res, wres, t * 10)
    assert rank == wrank
    near(s, ws, t)
    x1, res1, _, _ = la.lstsq(gpuarr.to_gpu(a), gpuarr.to_gpu(b[:, 0]))
    wx1, wres1, _, _ = np.linalg.lstsq(a, b[:, 0])
    near(x1, wx1, t * 10)
    near(res1, wres1, t * 10)
    # rank-deficient: no residuals, numpy's minimum-norm solution
    d = rand((8, 3), dt) @ rand((3, 6), dt)
    # an rcond well above float32's rounding of the zero singular values
    xd, resd, rankd, _ = la.lstsq(gpuarr.to_gpu(d), gpuarr.to_gpu(b[:8]), rcond=1e-4)
    wxd, wresd, wrankd, _ = np.linalg.lstsq(d, b[:8], rcond=1e-4)
    assert rankd == wrankd == 3 and resd.shape == wresd.shape
    near(xd, wxd, t * 100)
    near(la.pinv(gpuarr.to_gpu(d), rcond=1e-4), np.linalg.pinv(d, rcond=1e-4), t * 100)
    st = rand((2, 4, 7, 5), dt)
    near(la.pinv(gpuarr.to_gpu(st)), np.linalg.pinv(st), t * 10)
    r = la.matrix_rank(gpuarr.to_gpu(np.stack([d[:6, :6], np.eye(6, dtype=dt)])),
                       rtol=1e-4)
    np.testing.assert_array_equal(r.get(), [3, 6])
    assert int(la.matrix_rank(gpuarr.to_gpu(np.zeros(4))).get()) == 0
    sq = well((6, 6), dt)
    for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf):
        near(la.cond(gpuarr.to_gpu(sq), p), np.linalg.cond(sq, p), t * 10)
        if p is not None:
            near(la.norm(gpuarr.to_gpu(sq), p), np.linalg.norm(sq, p), t)
    st3 = rand((3, 4, 5), dt)
    for p in (2, "nuc", 1, np.inf):
        for axis in ((1, 2), (2, 0)):
            for kd in (False, True):
                near(la.norm(gpuarr.to_gpu(st3), p, axis=axis, keepdims=kd),
                     np.linalg.norm(st3, p, axis=axis, keepdims=kd), t)


def test_numpy_dispatch_reaches_linalg():
    a = well((5, 5), np.float64)
    g = gpuarr.to_gpu(a)
    near(np.linalg.inv(g), np.linalg.inv(a), 1e-10)
    near(np.linalg.solve(g, gpuarr.to_gpu(np.ones(5))), np.linalg.solve(a, np.ones(5)), 1e-10)
    near(np.linalg.svd(g, compute_uv=False), np.linalg.svd(a, compute_uv=False), 1e-10)
    near(np.linalg.det(g), np.linalg.det(a), 1e-10)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_svd_qr_based_fallback(dt, monkeypatch):
    """The QR-based gesvd that runs where Jacobi does not converge."""
    from gpuarr import _decomp
    monkeypatch.setattr(_decomp, "_svd_jacobi", lambda *args: None)
    t = tol(dt)
    for shape in ((6, 9), (9, 6), (2, 4, 4)):
        a = rand(shape, dt)
        g = gpuarr.to_gpu(a)
        k = min(shape[-2:])
        for full in (True, False):
            u, s, vh = la.svd(g, full_matrices=full)
            wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
            assert u.shape == wu.shape and vh.shape == wvh.shape
            near(s, ws, t)
            rec = (u.get()[..., :, :k] * s.get()[..., None, :]) @ vh.get()[..., :k, :]
            np.testing.assert_allclose(rec, a, atol=t * 10 * max(1, np.abs(a).max()))
        near(la.svd(g, compute_uv=False), ws, t)
