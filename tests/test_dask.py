"""gpuarr.dask without a GPU: what it registers with Dask, its element
counts, tokens and serialization, and the thread pools' contexts, on the
fake libcuda (whose memory copies are real; it runs no kernels)."""
import subprocess
import sys

import pytest

from _util import CHILD_CWD, child_env
from test_driver_fake import check

pytest.importorskip("dask.array", reason="Dask is not installed "
                    '(pip install "gpuarr[dask]")')


def test_import_needs_no_driver():
    # registering touches no driver: importing works on a machine with none
    code = ("import gpuarr.dask, dask.array as da\n"
            "from dask.array.chunk_types import is_valid_chunk_type\n"
            "import gpuarr\n"
            "assert is_valid_chunk_type(gpuarr.GPUArray)\n"
            "gpuarr.dask.register()\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, cwd=CHILD_CWD, env=child_env(
                           GPUARR_LIBCUDA="/nonexistent/libcuda.so.1"))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_meta_sizeof_token_and_lookups(fake_lib):
    check(fake_lib, """
        import numpy as np, gpuarr, gpuarr.dask as gd
        import dask.array as da
        from dask.array.dispatch import (numel_lookup, nannumel_lookup,
                                         take_lookup, to_numpy_dispatch)
        from dask.sizeof import sizeof
        from dask.base import tokenize
        h = np.random.default_rng(3).standard_normal((6, 10)).astype(np.float32)
        x = gpuarr.to_gpu(h)
        d = da.from_array(x, chunks=(3, 4), asarray=False)
        assert type(d._meta) is gpuarr.GPUArray and d._meta.shape == (0, 0)
        assert d._meta.dtype == np.float32
        assert "chunktype=gpuarr.GPUArray" in repr(d), repr(d)
        assert sizeof(x) == h.nbytes and sizeof(x[:2]) == h[:2].nbytes
        # tokens follow the values, as numpy's do
        assert tokenize(x) == tokenize(gpuarr.to_gpu(h.copy()))
        h2 = h.copy(); h2[5, 9] += 1
        assert tokenize(x) != tokenize(gpuarr.to_gpu(h2))
        assert tokenize(x) != tokenize(gpuarr.to_gpu(h.astype(np.float64)))
        assert numel_lookup.dispatch(gpuarr.GPUArray) is gd.numel
        assert nannumel_lookup.dispatch(gpuarr.GPUArray) is gd.nannumel
        assert take_lookup.dispatch(gpuarr.GPUArray) is not np.take
        back = to_numpy_dispatch(x)
        assert type(back) is np.ndarray and (back == h).all()
        assert not x[1:].flags.owndata and x.flags.owndata
        # the "gpuarr" backend converts numpy-backed arrays chunk by chunk
        g = da.from_array(h, chunks=4).to_backend("gpuarr")
        assert type(g._meta) is gpuarr.GPUArray and g._meta.ndim == 2
        assert g.to_backend("gpuarr") is g
        assert type(g.to_backend("numpy")._meta) is np.ndarray
    """)


def test_numel_shapes_and_counts(fake_lib):
    # float32 counts: the fake fills 4-byte values with cuMemsetD32
    check(fake_lib, """
        import numpy as np, gpuarr, gpuarr.dask as gd
        x = gpuarr.empty((3, 4, 5), np.float32)
        n = gd.numel(x)
        assert n == 60 and isinstance(n, np.float64), (n, type(n))
        assert gd.numel(x, dtype=None) == 60
        k = gd.numel(x, keepdims=True, dtype=np.float32)
        assert type(k) is gpuarr.GPUArray and k.shape == (1, 1, 1)
        assert k.get().item() == 60
        a = gd.numel(x, axis=(0, 2), dtype=np.float32)
        assert a.shape == (4,) and (a.get() == 15).all()
        b = gd.numel(x, axis=-1, keepdims=True, dtype=np.int32)
        assert b.shape == (3, 4, 1) and b.dtype == np.int32
        assert (b.get() == 5).all()
    """)


def test_serialization_round_trip_in_a_thread_with_no_context(fake_lib):
    check(fake_lib, """
        import threading, numpy as np, gpuarr, gpuarr.dask as gd
        h = (np.arange(24, dtype=np.int16) * 7 - 50).reshape(4, 6)
        header, frames = gd.serialize(gpuarr.to_gpu(h))
        assert header == {"shape": (4, 6), "dtype": "<i2"}
        assert sum(memoryview(f).nbytes for f in frames) == h.nbytes
        got = []
        def receive():
            assert gpuarr.driver.Context.get_current() is None
            y = gd.deserialize(header, [bytes(f) for f in frames])
            # the home context was pushed for the copy and popped again
            got.append((y, gpuarr.driver.Context.get_current()))
        t = threading.Thread(target=receive); t.start(); t.join()
        y, cur = got[0]
        assert cur is None
        assert y.dtype == np.int16 and (y.get() == h).all()
        # pickles load on a thread with no context too (distributed's
        # scheduler unpickles task graphs on its event loop)
        import pickle
        blob = pickle.dumps(gpuarr.to_gpu(h))
        got.clear()
        def load():
            got.append((pickle.loads(blob), gpuarr.driver.Context.get_current()))
        t = threading.Thread(target=load); t.start(); t.join()
        assert got[0][1] is None and (got[0][0].get() == h).all()
        # shards joined
        half = h.nbytes // 2
        raw = bytes(frames[0])
        z = gd.deserialize(header, [raw[:half], raw[half:]])
        assert (z.get() == h).all()
    """)


def test_context_thread_pool_threads_run_in_its_context(fake_lib):
    check(fake_lib, """
        import threading, gpuarr, gpuarr.dask as gd
        import gpuarr.driver as drv
        main = drv.Context.get_current()
        pool = gd.ContextThreadPoolExecutor(3)
        assert pool.context == main
        seen = [pool.submit(drv.Context.get_current).result() for _ in range(9)]
        assert all(c == main for c in seen)
        # a task that pushes its own context over the pool's is left alone
        other = drv.Device(0).make_context(); drv.Context.pop()
        def nested():
            other.push()
            try:
                return drv.Context.get_current()
            finally:
                drv.Context.pop()
        assert pool.submit(nested).result() == other
        assert pool.submit(drv.Context.get_current).result() == main
        pool.shutdown()
        p2 = gd.ContextThreadPoolExecutor(2, context=other)
        assert p2.submit(drv.Context.get_current).result() == other
        p2.shutdown()
        other.detach()
    """)


def test_dask_setup_gives_a_worker_a_context_pool(fake_lib):
    pytest.importorskip("distributed")
    check(fake_lib, """
        import types, gpuarr.dask as gd, gpuarr.driver as drv
        from distributed.threadpoolexecutor import ThreadPoolExecutor
        old = ThreadPoolExecutor(2)
        w = types.SimpleNamespace(executors={"default": old}, name="w0",
                                  state=types.SimpleNamespace(nthreads=3))
        gd.dask_setup(w)
        pool = w.executors["default"]
        assert pool is not old and isinstance(pool, ThreadPoolExecutor)
        assert "ThreadPoolExecutor" in str(type(pool)) and old._shutdown
        assert pool._max_workers == 3
        assert pool.submit(drv.Context.get_current).result() == \\
            drv.Context.get_current()
        pool.shutdown()
    """)


def test_local_cluster_pins_one_worker_to_each_device(fake_lib):
    # two fake devices, one worker process each: a task sees its worker's
    # device current and makes its arrays there
    pytest.importorskip("distributed")
    check(fake_lib, """
        import numpy as np, distributed, gpuarr.dask as gd
        for bad, err in (([], ValueError), ([0, 0], ValueError),
                         (["0"], TypeError)):
            try:
                gd.local_cluster(bad)
            except err:
                pass
            else:
                raise AssertionError(bad)
        def where():
            import os, gpuarr, gpuarr.driver as drv
            a = gpuarr.to_gpu(np.arange(5.0))
            return (os.environ["CUDA_DEVICE"], drv.Context.get_device().handle,
                    a.device.handle, float(a.get().sum()))
        with gd.local_cluster(threads_per_worker=1) as cluster, \\
                distributed.Client(cluster) as client:
            info = client.scheduler_info()["workers"]
            names = sorted(w["name"] for w in info.values())
            assert names == ["gpu-0", "gpu-1"], names
            got = {}
            for addr, w in info.items():
                got[w["name"]] = client.submit(where, workers=[addr],
                                               pure=False).result()
        assert got == {"gpu-0": ("0", 0, 0, 10.0),
                       "gpu-1": ("1", 1, 1, 10.0)}, got
    """, env={"FAKE_CUDA_DEVICES": "2"})
