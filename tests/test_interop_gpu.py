"""Interop with CuPy and PyTorch: CUDA Array Interface and DLPack, both ways,
zero-copy, with lifetimes that outlive the other side's Python object."""
import gc

import numpy as np
import pytest

import gpuarr

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _ctx(context):
    yield


DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]


def sample(dtype, shape=(6, 8)):
    rng = np.random.default_rng(7)
    x = rng.uniform(-9, 9, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-9, 9, shape)
    if np.dtype(dtype).kind == "b":
        x = x > 0
    return x.astype(dtype)


def reuse_freed(upload, shape, dtype, count=16):
    """Allocate ``count`` arrays of ``shape`` and ``dtype`` through
    ``upload`` (a library's host-to-device copy) filled with 123 (True for
    bool, never all of sample()'s values), so that memory a dropped
    reference let the library's pool take back is handed out and
    overwritten before the survivor is read.  Returns them (keep them)."""
    junk = np.full(shape, 123).astype(dtype)
    return [upload(junk) for _ in range(count)]


# ---------------------------------------------------------------------------
# CuPy

@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_consumes_gpuarray_through_cai(dtype):
    cp = pytest.importorskip("cupy")
    h = sample(dtype)
    d = gpuarr.to_gpu(h)
    for view, hv in [(d, h), (d[::-1, 1::2], h[::-1, 1::2]), (d.T, h.T)]:
        c = cp.asarray(view)
        assert c.data.ptr == view.ptr  # zero copy
        np.testing.assert_array_equal(cp.asnumpy(c), hv)
    c = cp.asarray(d)
    c[0, 0] = c[1, 1]
    assert d[0, 0].get() == h[1, 1]


@pytest.mark.parametrize("dtype", DTYPES)
def test_gpuarray_consumes_cupy(dtype):
    cp = pytest.importorskip("cupy")
    h = sample(dtype)
    c = cp.asarray(h)
    for cv, hv in [(c, h), (c[::2, ::-3], h[::2, ::-3]), (c.T, h.T)]:
        g = gpuarr.asarray(cv)
        assert g.ptr == cv.data.ptr
        np.testing.assert_array_equal(g.get(), hv)
    g = gpuarr.asarray(c)
    g[1] = g[0]
    np.testing.assert_array_equal(cp.asnumpy(c)[1], h[0])
    del c
    gc.collect()
    junk = reuse_freed(cp.asarray, h.shape, dtype)
    want = h.copy()
    want[1] = h[0]
    np.testing.assert_array_equal(g.get(), want)  # base keeps it alive
    del junk


@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_with_cupy(dtype):
    cp = pytest.importorskip("cupy")
    h = sample(dtype)
    d = gpuarr.to_gpu(h)
    c = cp.from_dlpack(d)
    assert c.data.ptr == d.ptr
    np.testing.assert_array_equal(cp.asnumpy(c), h)
    c2 = cp.from_dlpack(d[::-1, ::2]) if hasattr(cp, "from_dlpack") else None
    np.testing.assert_array_equal(cp.asnumpy(c2), h[::-1, ::2])
    back = gpuarr.from_dlpack(cp.asarray(h)[:, 1::3])
    np.testing.assert_array_equal(back.get(), h[:, 1::3])
    src = cp.asarray(h)
    g = gpuarr.from_dlpack(src)
    assert g.ptr == src.data.ptr
    del src
    gc.collect()
    junk = reuse_freed(cp.asarray, h.shape, dtype)
    np.testing.assert_array_equal(g.get(), h)
    del d
    gc.collect()
    junk += reuse_freed(gpuarr.to_gpu, h.shape, dtype)
    np.testing.assert_array_equal(cp.asnumpy(c), h)  # capsule keeps d alive
    del junk


_SLOW_TWICE = r"""
extern "C" __global__ void slow_twice(float *out, long long n, long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * (float)i;
}
"""


def test_cupy_stream_work_is_visible():
    cp = pytest.importorskip("cupy")
    n = 1 << 20
    slow = cp.RawKernel(_SLOW_TWICE, "slow_twice")
    with cp.cuda.Stream(non_blocking=True):
        c = cp.full(n, -1, dtype=cp.float32)
        # each block spins 2e7 cycles (~10 ms) before writing: data read
        # without waiting for cupy's stream would still be the -1s
        slow(((n + 255) // 256,), (256,), (c, np.int64(n), np.int64(2 * 10 ** 7)))
        g = gpuarr.asarray(c)  # CAI names cupy's stream: we synchronize
        np.testing.assert_array_equal(g.get(), np.arange(n, dtype=np.float32) * 2)


# ---------------------------------------------------------------------------
# PyTorch

TORCH_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64,
                np.float16, np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dtype", TORCH_DTYPES)
def test_torch_round_trip_dlpack(dtype):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    h = sample(dtype)
    d = gpuarr.to_gpu(h)
    t = torch.from_dlpack(d)
    assert t.data_ptr() == d.ptr and t.is_cuda
    np.testing.assert_array_equal(t.cpu().numpy(), h)
    tt = torch.from_dlpack(d.T)
    np.testing.assert_array_equal(tt.cpu().numpy(), h.T)
    t2 = torch.as_tensor(h, device="cuda")[:, ::2]
    g = gpuarr.from_dlpack(t2)
    assert g.ptr == t2.data_ptr()
    np.testing.assert_array_equal(g.get(), h[:, ::2])
    del t2
    gc.collect()
    junk = reuse_freed(lambda x: torch.as_tensor(x, device="cuda"), h.shape,
                       dtype)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(g.get(), h[:, ::2])  # the capsule's tensor
    del junk
    t[0, 0] = t[1, 1]
    torch.cuda.synchronize()
    assert d[0, 0].get() == h[1, 1]


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex64, np.bool_])
def test_torch_cai_both_ways(dtype):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    h = sample(dtype)
    d = gpuarr.to_gpu(h)
    t = torch.as_tensor(d, device="cuda")  # through __cuda_array_interface__
    assert t.data_ptr() == d.ptr
    np.testing.assert_array_equal(t.cpu().numpy(), h)
    src = torch.as_tensor(h, device="cuda").T
    g = gpuarr.asarray(src)
    assert g.ptr == src.data_ptr()
    np.testing.assert_array_equal(g.get(), h.T)


def test_torch_side_stream():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    s = torch.cuda.Stream()          # a non-blocking stream
    with torch.cuda.stream(s):
        # ~10 ms of spinning queued first on s: data read without waiting
        # for s would not be written yet
        if hasattr(torch.cuda, "_sleep"):
            torch.cuda._sleep(2 * 10 ** 7)
        else:                       # a long chain of products instead
            x = torch.ones(4096, 4096, device="cuda")
            for _ in range(20):
                x = x @ x * (1.0 / 4096)
        t = torch.arange(1 << 20, device="cuda", dtype=torch.float32) * 3
        g = gpuarr.from_dlpack(t)
        np.testing.assert_array_equal(g.get(), np.arange(1 << 20, dtype=np.float32) * 3)
    # the other way: gpuarr's slow writes queued on the legacy stream, then
    # torch reads on s
    from gpuarr.elementwise import ElementwiseKernel
    slow = ElementwiseKernel(
        "double *x, long long cycles",
        "long long t0 = clock64(); while (clock64() - t0 < cycles) { } "
        "x[i] = (double)i", name="slow_arange")
    d = gpuarr.zeros(10, np.float64)
    slow(d, np.int64(2 * 10 ** 7))
    with torch.cuda.stream(s):
        t = torch.from_dlpack(d)  # torch passes its stream; we synchronize
        np.testing.assert_array_equal((t + 1).cpu().numpy(), np.arange(10.0) + 1)


def test_dlpack_device_and_copy():
    d = gpuarr.to_gpu(np.arange(5.0))
    dev_type, dev_id = d.__dlpack_device__()
    assert dev_type == 2 and dev_id == 0
    cap = d.__dlpack__(copy=True)
    g = gpuarr.from_dlpack(cap)
    assert g.ptr != d.ptr
    np.testing.assert_array_equal(g.get(), np.arange(5.0))
    with pytest.raises(BufferError):
        d.__dlpack__(dl_device=(1, 0), copy=False)   # the host needs a copy
    with pytest.raises(BufferError):
        d.__dlpack__(dl_device=(2, 99))
    with pytest.raises(BufferError):
        gpuarr.from_dlpack(np.arange(3.0))  # host data: not zero-copy
    # numpy asks for the host (dl_device=(1, 0)) and gets a copy
    np.testing.assert_array_equal(np.from_dlpack(d, device="cpu"), np.arange(5.0))


def test_dlpack_versioned_round_trip_and_flags():
    import ctypes
    from gpuarr import _interop
    d = gpuarr.to_gpu(sample(np.float32))
    cap = d.__dlpack__(max_version=(1, 0))
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    m = ctypes.cast(get(cap, b"dltensor_versioned"),
                    ctypes.POINTER(_interop.DLManagedTensorVersioned)).contents
    assert (m.version.major, m.version.minor) == (1, 0) and m.flags == 0
    assert (m.dl_tensor.device.device_type, m.dl_tensor.device.device_id) == (2, 0)
    g = gpuarr.from_dlpack(cap)
    assert g.ptr == d.ptr
    np.testing.assert_array_equal(g.get(), d.get())


def test_managed_memory_reports_its_device_type():
    from gpuarr import driver as drv
    h = drv.managed_empty((8,), np.float32)
    h[:] = np.arange(8, dtype=np.float32)
    g = gpuarr.GPUArray((8,), np.float32, gpudata=h.__array_interface__["data"][0])
    assert g.__dlpack_device__() == (13, 0)
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        try:
            t = torch.from_dlpack(g)
        except (RuntimeError, BufferError, TypeError):
            t = None            # a consumer may refuse managed memory
        if t is not None:
            np.testing.assert_array_equal(t.cpu().numpy(), np.arange(8, dtype=np.float32))
    del g


def test_foreign_streams_are_accepted_where_gpuarr_takes_a_stream():
    """CuPy's and PyTorch's streams (through __cuda_stream__, .ptr or
    .cuda_stream) order gpuarr's work; a gpuarr Stream speaks the protocol
    to them."""
    from gpuarr import driver as drv
    from gpuarr.elementwise import ElementwiseKernel
    twice = ElementwiseKernel("float *x", "x[i] = 2 * x[i]", name="twice_on")
    h = sample(np.float32)
    s = drv.Stream()
    assert s.__cuda_stream__() == (0, s.handle)
    cp = pytest.importorskip("cupy")
    cs = cp.cuda.Stream(non_blocking=True)
    assert drv.stream_handle(cs) == cs.ptr
    d = gpuarr.to_gpu(h)
    twice(d, stream=cs)
    cs.synchronize()
    np.testing.assert_array_equal(d.get(), 2 * h)
    torch = pytest.importorskip("torch")
    ts = torch.cuda.Stream()
    assert drv.stream_handle(ts) == ts.cuda_stream
    twice(d, stream=ts)
    ts.synchronize()
    np.testing.assert_array_equal(d.get(), 4 * h)
    # the other way: CuPy takes gpuarr's stream by its handle
    ext = cp.cuda.ExternalStream(s.handle)
    with ext:
        c = cp.asarray(d) + 1
    ext.synchronize()
    np.testing.assert_array_equal(cp.asnumpy(c), 4 * h + 1)


_SUBPROCESS = """
import os, sys
import numpy as np
import gpuarr.autoinit
import gpuarr
lib = sys.argv[1]
h = np.arange(24, dtype=np.float32).reshape(4, 6)
d = gpuarr.to_gpu(h)
if lib == "numba":
    from numba import cuda
    n = cuda.as_cuda_array(d)                       # CAI, no copy
    assert n.__cuda_array_interface__["data"][0] == d.ptr
    np.testing.assert_array_equal(n.copy_to_host(), h)
    nd = cuda.to_device(np.ascontiguousarray(h[::-1]))  # Numba's, into gpuarr
    back = gpuarr.asarray(nd)
    assert back.ptr == nd.__cuda_array_interface__["data"][0]
    np.testing.assert_array_equal(back.get(), h[::-1])
    strided = gpuarr.asarray(nd[:, ::2])                 # CAI strides honoured
    np.testing.assert_array_equal(strided.get(), h[::-1][:, ::2])
else:
    os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    import jax, jax.numpy as jnp
    j = jax.dlpack.from_dlpack(d)                   # DLPack, zero copy
    np.testing.assert_array_equal(np.asarray(j), h)
    g = gpuarr.from_dlpack(jnp.arange(10.0, dtype=jnp.float32) * 2)
    np.testing.assert_array_equal(g.get(), np.arange(10.0, dtype=np.float32) * 2)
print("OK")
"""


@pytest.mark.parametrize("lib", ["numba", "jax"])
def test_numba_and_jax_round_trips(lib):
    """Numba through the CUDA Array Interface, JAX through DLPack, each in
    a process of its own (JAX takes GPU memory for its own pool)."""
    import os
    import subprocess
    import sys
    pytest.importorskip(lib)
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    r = subprocess.run([sys.executable, "-c", _SUBPROCESS, lib], env=env,
                       capture_output=True, text=True, timeout=300)
    if "no CUDA-capable device" in r.stderr or "CUDA backend failed" in r.stderr:
        pytest.skip("%s sees no GPU here: %s" % (lib, r.stderr[-300:]))
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stdout + r.stderr


def test_asarray_of_numpy_copies():
    h = np.arange(12.0).reshape(3, 4)[:, ::-1]
    g = gpuarr.asarray(h)
    np.testing.assert_array_equal(g.get(), h)
    g2 = gpuarr.asarray(h, dtype=np.float32)
    assert g2.dtype == np.float32
    assert gpuarr.asarray(g) is g
