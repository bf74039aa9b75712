"""Dask arrays with GPUArray chunks on the GPU: each operation the issue
names against numpy on the same values, with the threaded scheduler (a
ContextThreadPoolExecutor) and with dask.distributed (a LocalCluster whose
worker preloads gpuarr.dask); then an array larger than the GPU's memory,
streamed from pinned host buffers, summed and histogrammed with both."""
import os
import sys

import numpy as np
import pytest

import gpuarr

da = pytest.importorskip("dask.array", reason="Dask is not installed "
                         '(pip install "gpuarr[dask]")')
import dask  # noqa: E402

pytestmark = pytest.mark.gpu

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "examples")


@pytest.fixture(scope="module")
def gd(context):
    import gpuarr.dask
    return gpuarr.dask


@pytest.fixture(scope="module")
def pool(gd):
    p = gd.ContextThreadPoolExecutor(4)
    yield p
    p.shutdown()


@pytest.fixture()
def threaded(pool):
    with dask.config.set(scheduler="threads", pool=pool):
        yield


def data(shape, dtype=np.float32, seed=None):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if np.dtype(dtype).kind in "iu":
        x = rng.integers(-50 if np.dtype(dtype).kind == "i" else 0, 50, shape)
    if np.dtype(dtype).kind == "b":
        x = x > 0
    return x.astype(dtype)


def dasked(host, chunks):
    return da.from_array(gpuarr.to_gpu(host), chunks=chunks, asarray=False)


def check(result, want, rtol=1e-5):
    """``result`` (a computed dask result) is a GPUArray equal to ``want``."""
    assert isinstance(result, gpuarr.GPUArray), type(result)
    got = result.get()
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol,
                                   atol=rtol * max(1.0, np.abs(want).max(
                                       initial=0)))
    else:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)


def test_from_array_keeps_gpuarray_chunks_and_meta(threaded):
    h = data((301, 203))
    x = dasked(h, (100, 64))
    assert isinstance(x._meta, gpuarr.GPUArray)
    assert "gpuarr.GPUArray" in repr(x)
    blocks = x.blocks[1, 2].compute()
    check(blocks, h[100:200, 128:192])
    check(x.compute(), h)


def test_map_blocks_and_elementwise_math(threaded):
    h, g = data((257, 130)), data((257, 130))
    x, y = dasked(h, (64, 65)), dasked(g, (64, 65))
    check(x.map_blocks(lambda b: b * 2 + 1).compute(), h * 2 + 1)
    z = np.sin(x) + 2 * x - y / (1 + abs(y))
    assert isinstance(z._meta, gpuarr.GPUArray)
    check(z.compute(), np.sin(h) + 2 * h - g / (1 + abs(g)), rtol=1e-5)
    check((x > y).astype(np.int16).compute(), (h > g).astype(np.int16))
    # a GPUArray operand joins as a dask array does (a chunk type)
    row = gpuarr.to_gpu(g[0])
    check((x * row).compute(), h * g[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32,
                                   np.uint8, np.complex64, np.bool_])
def test_reductions_with_axis(threaded, dtype):
    h = data((193, 71), dtype)
    x = dasked(h, (50, 20))
    check(x.sum().compute(), h.sum(), rtol=1e-4)
    check(x.sum(axis=0).compute(), h.sum(axis=0), rtol=1e-4)
    check(x.sum(axis=1, keepdims=True).compute(), h.sum(axis=1,
                                                         keepdims=True),
          rtol=1e-4)
    if dtype != np.complex64:
        check(x.max(axis=0).compute(), h.max(axis=0))
        check(x.min(axis=1).compute(), h.min(axis=1))
    check(x.any(axis=0).compute(), h.any(axis=0))
    check(x.all(axis=1).compute(), h.all(axis=1))
    if dtype != np.bool_:
        check(x.mean(axis=0).compute(), h.mean(axis=0), rtol=1e-4)
        check(x.mean().compute(), h.mean(), rtol=1e-4)
        check(x.std(axis=1).compute(), h.std(axis=1), rtol=1e-4)
        check(x.var(axis=0, ddof=1).compute(), h.var(axis=0, ddof=1),
              rtol=1e-4)


def test_nan_reductions(threaded):
    h = data((120, 40), np.float64)
    h[::7, ::3] = np.nan
    x = dasked(h, (32, 16))
    check(da.nansum(x, axis=0).compute(), np.nansum(h, axis=0))
    check(da.nanmean(x, axis=1).compute(), np.nanmean(h, axis=1))
    check(da.nanmax(x, axis=0).compute(), np.nanmax(h, axis=0))


def test_cumsum_both_methods(threaded):
    h = data((150, 90), np.float64)
    x = dasked(h, (40, 25))
    check(x.cumsum(axis=0).compute(), h.cumsum(axis=0))
    check(x.cumsum(axis=1, method="blelloch").compute(), h.cumsum(axis=1))
    hi = data((333,), np.int64)
    check(dasked(hi, 50).cumsum(axis=0).compute(), hi.cumsum())


def test_indexing(threaded):
    h = data((211, 97), np.float32)
    x = dasked(h, (50, 30))
    check(x[10:200:3, 5].compute(), h[10:200:3, 5])
    check(x[::-2, -40:].compute(), h[::-2, -40:])
    idx = np.array([3, 150, 7, 210, 7])
    check(x[idx].compute(), h[idx])
    check(x[:, [0, 96, 50]].compute(), h[:, [0, 96, 50]])
    m = x[x > 1]
    check(m.compute(), h[h > 1])


def test_concatenate_stack_and_rechunk(threaded):
    h, g = data((64, 50)), data((64, 31))
    x, y = dasked(h, (30, 20)), dasked(g, (30, 20))
    check(da.concatenate([x, y], axis=1).compute(),
          np.concatenate([h, g], axis=1))
    check(da.stack([x, x * 2]).compute(), np.stack([h, h * 2]))
    check(x.rechunk((64, 7)).compute(), h)
    check(x.T.compute(), h.T)


def test_matmul_and_contractions(threaded):
    a, b = data((130, 70), np.float64), data((70, 90), np.float64)
    x, y = dasked(a, (40, 30)), dasked(b, (30, 45))
    check((x @ y).compute(), a @ b, rtol=1e-9)
    check(da.dot(x, y).compute(), a @ b, rtol=1e-9)
    check(da.tensordot(x, x, axes=((0,), (0,))).compute(),
          np.tensordot(a, a, axes=((0,), (0,))), rtol=1e-9)
    check(da.einsum("ij,ij->i", x, x).compute(),
          np.einsum("ij,ij->i", a, a), rtol=1e-9)


def test_histogram(threaded):
    h = data((4001,), np.float32)
    x = dasked(h, 1000)
    counts, edges = da.histogram(x, bins=25, range=(-6, 6))
    check(counts.compute(), np.histogram(h, 25, (-6, 6))[0])


def test_to_numpy_backend_and_sizeof(threaded, gd):
    from dask.sizeof import sizeof
    h = data((40, 30))
    x = dasked(h, 16)
    back = x.to_backend("numpy").compute()
    assert isinstance(back, np.ndarray)
    np.testing.assert_array_equal(back, h)
    assert sizeof(gpuarr.to_gpu(h)) == h.nbytes


def test_gpuarr_backend_creation_and_to_backend(threaded):
    with dask.config.set({"array.backend": "gpuarr"}):
        ones = da.ones((300, 200), chunks=(64, 50), dtype=np.float32)
        full = da.full((77,), 2.5, chunks=20)
        ar = da.arange(3, 1000, 7, chunks=40)
        zeros = da.zeros((5, 6), dtype=np.int16, chunks=4)
        with pytest.raises(NotImplementedError, match="random"):
            da.random.random(10)
    for a in (ones, full, ar, zeros):
        assert isinstance(a._meta, gpuarr.GPUArray), type(a._meta)
    check(ones.sum(axis=0).compute(), np.full(200, 300, np.float32))
    check(full.compute(), np.full(77, 2.5))
    check(ar.compute(), np.arange(3, 1000, 7))
    check(zeros.compute(), np.zeros((5, 6), np.int16))
    h = data((50, 40), np.float64)
    g = da.from_array(h, chunks=16).to_backend("gpuarr")
    assert isinstance(g._meta, gpuarr.GPUArray)
    check((g * 2).compute(), h * 2)


def test_a_chunk_task_in_a_fresh_thread_has_a_context(pool):
    # no context is current in a new pool thread until its first task
    import threading
    seen = []
    t = threading.Thread(target=lambda: seen.append(
        gpuarr.driver.Context.get_current()))
    t.start()
    t.join()
    assert seen == [None]
    assert pool.submit(gpuarr.driver.Context.get_current).result() == \
        pool.context


# -- dask.distributed ---------------------------------------------------------

@pytest.fixture(scope="module")
def client(gd):
    distributed = pytest.importorskip("distributed")
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)     # the workers import dask_stream
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=4, processes=True,
        preload=["gpuarr.dask"], dashboard_address=":0",
        silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_distributed_reductions_matmul_and_results(client):
    a, b = data((300, 120), np.float64), data((120, 77), np.float64)
    x, y = dasked(a, (100, 40)), dasked(b, (40, 40))
    s, m, p, c = dask.compute(x.sum(axis=0), x.mean(), x @ y,
                              x.cumsum(axis=1))
    check(s, a.sum(axis=0), rtol=1e-9)
    check(m, a.mean(), rtol=1e-9)
    check(p, a @ b, rtol=1e-9)
    check(c, a.cumsum(axis=1), rtol=1e-9)
    # the worker's tasks ran with its context current, in its process
    pids = client.run(os.getpid)
    assert os.getpid() not in pids.values()


def test_local_cluster_one_worker_per_gpu(gd):
    # every GPU of the machine, one worker each: chunks made on the workers
    # stay on their worker's device; an elementwise pass, a reduction and a
    # matmul over chunks spread across the devices agree with numpy
    distributed = pytest.importorskip("distributed")
    ndev = gpuarr.driver.Device.count()

    def device_pair(c):
        # (the worker's CUDA_DEVICE, the device of the chunk it holds);
        # nested, so it is pickled by value for the workers
        import os
        return np.array([[int(os.environ["CUDA_DEVICE"]), c.device.handle]])
    a, b = data((1600, 96), np.float64), data((96, 50), np.float64)
    with gd.local_cluster(threads_per_worker=2) as cluster, \
            distributed.Client(cluster) as c:
        assert len(c.scheduler_info()["workers"]) == ndev
        x = da.from_array(a, chunks=(100, 96)).map_blocks(
            gpuarr.asarray, meta=gpuarr.empty((0, 0), np.float64))
        y = da.from_array(b, chunks=(96, 50)).map_blocks(
            gpuarr.asarray, meta=gpuarr.empty((0, 0), np.float64))
        x, y = c.persist([x, y])
        distributed.wait([x, y])
        pairs = x.map_blocks(device_pair, chunks=(1, 2), dtype=np.int64,
                             meta=np.empty((0, 0), np.int64)).compute()
        assert (pairs[:, 0] == pairs[:, 1]).all(), pairs
        held = {w: len(keys) for w, keys in c.has_what().items() if keys}
        if ndev > 1:
            # the 16 chunks are spread over the workers, so over the GPUs
            assert set(pairs[:, 1]) == set(range(ndev)), (pairs, held)
        s, e, p = dask.compute(x.sum(axis=0), (np.sin(x) * 2 + 1).max(),
                               x @ y)
    check(s, a.sum(axis=0), rtol=1e-9)
    check(e, (np.sin(a) * 2 + 1).max(), rtol=1e-12)
    check(p, a @ b, rtol=1e-9)


# -- larger than the GPU's memory ---------------------------------------------

def _stream_check(nbytes, **compute_kw):
    if EXAMPLES not in sys.path:
        sys.path.insert(0, EXAMPLES)
    import dask_stream
    block = 64 << 20                          # float32 values: 256 MiB
    nblocks = -(-nbytes // (4 * block))
    x = dask_stream.streamed_array(nblocks, block)
    assert x.nbytes > nbytes
    total, counts = dask.compute(x.sum(dtype=np.float64),
                                 da.histogram(x, bins=64, range=(-4, 4))[0],
                                 **compute_kw)
    want_total, want_counts = dask_stream.expected(nblocks, block)
    assert isinstance(total, gpuarr.GPUArray)
    np.testing.assert_allclose(float(total.get()), want_total, rtol=1e-9,
                               atol=1e-6 * x.size)
    np.testing.assert_array_equal(counts.get(), want_counts)


def _past_device_memory():
    free, total = gpuarr.driver.mem_get_info()
    return int(total * 1.05)


def test_stream_past_device_memory_threaded(pool):
    _stream_check(_past_device_memory(), scheduler="threads", pool=pool)


def test_stream_past_device_memory_distributed(client):
    _stream_check(_past_device_memory())
