"""Devices on the GPU machine: ``with Device(n):``, ``GPUArray.device`` and
``to_device`` against the real driver.  One device checks the
single-device paths; the cross-device ones need two and skip otherwise."""
import numpy as np
import pytest

import gpuarr
import gpuarr.driver as drv

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


def two_devices():
    if drv.Device.count() < 2:
        pytest.skip("needs two GPUs (this machine has %d)"
                    % drv.Device.count())
    return drv.Device(0), drv.Device(1)


def test_with_device_on_one_device(context):
    d0 = drv.Device(0)
    before = drv.Context.get_current()
    with gpuarr.Device(0):
        # the kept primary context is autoinit's, shared with CuPy and
        # PyTorch
        assert drv.Context.get_current() is d0.get_primary_context()
        assert drv.Context.get_current() == context
        x = gpuarr.to_gpu(np.arange(10.0))
        np.testing.assert_allclose(np.sin(x).get(), np.sin(np.arange(10.0)),
                                   rtol=1e-15, atol=1e-15)
    assert drv.Context.get_current() == before
    assert x.device == d0 and x[3:].device == d0
    assert x.to_device(0) is x and x.to_device(d0) is x


def test_to_device_moves_values_between_two_devices():
    d0, d1 = two_devices()
    rng = np.random.default_rng()
    h = rng.standard_normal((333, 77)).astype(np.float32)
    x = gpuarr.to_gpu(h)
    for src, want in ((x, h), (x[::-2, 5:], h[::-2, 5:]), (x.T, h.T)):
        y = src.to_device(1)
        assert y.device == d1 and y.flags.c_contiguous
        np.testing.assert_array_equal(y.get(), want)
        with d1:
            # work on device 1 in its own context
            np.testing.assert_allclose((y * 2 + 1).get(), want * 2 + 1)
        z = y.to_device(d0)
        assert z.device == d0
        np.testing.assert_array_equal(z.get(), want)
    assert x.__dlpack_device__() == (2, 0)
    assert x.to_device(1).__dlpack_device__() == (2, 1)


def test_operations_run_on_their_arrays_device():
    # device 0 current; the arrays on device 1: each operation runs there
    d0, d1 = two_devices()
    rng = np.random.default_rng()
    h = rng.standard_normal((257, 129)).astype(np.float32)
    g = rng.standard_normal((129, 65)).astype(np.float32)
    with d1:
        y, w = gpuarr.to_gpu(h), gpuarr.to_gpu(g)
    assert drv.Context.get_device() == d0
    from gpuarr.elementwise import ElementwiseKernel
    from gpuarr.reduction import ReductionKernel
    scale = ElementwiseKernel("float *z, const float *x", "z[i] = 2 * x[i]")
    total = ReductionKernel(np.float64, "0", "a + b", "x[i]", "const float *x")
    z = gpuarr.empty_like(y)
    z.fill(np.nan)
    scale(z, y)
    cases = [(y + y, h + h), (y[::-3] * 2, h[::-3] * 2), (np.sin(y), np.sin(h)),
             (y.sum(axis=0), h.sum(axis=0)), (y.max(), h.max()),
             (y.T.copy(), h.T), (gpuarr.cumsum(y, axis=1), np.cumsum(h, axis=1)),
             (y @ w, h @ g), (gpuarr.sort(y, axis=1), np.sort(h, axis=1)),
             (total(y), h.astype(np.float64).sum()), (z, 2 * h),
             (y[y > 0], h[h > 0]), (gpuarr.concatenate([y, y]),
                                    np.concatenate([h, h]))]
    for got, want in cases:
        assert got.device == d1
        np.testing.assert_allclose(got.get(), want, rtol=2e-4, atol=2e-3)
    assert drv.Context.get_device() == d0
    # mixed devices: refused, except for a copy
    x = gpuarr.to_gpu(h + 1)
    with pytest.raises(ValueError, match="different devices"):
        x + y
    with pytest.raises(ValueError, match="different devices"):
        gpuarr.dot(x.ravel(), y.ravel())
    x[::2] = y[::2]
    want = h + 1
    want[::2] = h[::2]
    np.testing.assert_array_equal(x.get(), want)
    assert x.device == d0


def test_threads_on_two_devices_at_once():
    two_devices()
    import threading
    rng = np.random.default_rng()
    hs = [rng.standard_normal(1 << 20).astype(np.float32) for _ in range(2)]
    out, errors = {}, []

    def work(n):
        try:
            with gpuarr.Device(n):
                x = gpuarr.to_gpu(hs[n])
                for _ in range(20):
                    y = np.sqrt(x * x + 1)
                out[n] = (y.device.handle, float(y.sum(dtype=np.float64).get()))
        except Exception as e:
            errors.append(repr(e))
    ts = [threading.Thread(target=work, args=(n,)) for n in (0, 1)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    for n in (0, 1):
        want = np.sqrt(hs[n].astype(np.float64) ** 2 + 1).sum()
        assert out[n][0] == n
        np.testing.assert_allclose(out[n][1], want, rtol=1e-5)
