"""gpuarr.nccl on the GPU machine: a communicator of one rank (all-reduce
and broadcast leave each value as it is, so every dtype's code, the
counts, out= and in place are checked against the input), the module's
all_reduce over one device, the errors; over two devices the reductions
themselves (skipped where one device is seen)."""
import threading

import numpy as np
import pytest

import gpuarr
import gpuarr.driver as drv
import gpuarr.nccl as nccl

pytestmark = pytest.mark.gpu

_rng = np.random.default_rng()
DTYPES = ["i1", "u1", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16"]


@pytest.fixture(autouse=True)
def _ctx(context):
    try:
        nccl.version()
    except nccl.NcclNotFoundError as exc:
        pytest.skip("NCCL is not installed: %s" % str(exc)[:100])
    yield


def _host(dt, shape):
    dt = np.dtype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return _rng.integers(info.min, info.max, shape, endpoint=True,
                             dtype=dt)
    x = _rng.standard_normal(shape) * 100
    if dt.kind == "c":
        x = x + 1j * _rng.standard_normal(shape)
    return x.astype(dt)


def _poisoned(shape, dt):
    p = gpuarr.empty(shape, dt)
    drv.memset_d8(p.ptr, 0x5A, p.nbytes)
    return p


def test_one_rank_communicator():
    with nccl.Communicator(1, nccl.get_unique_id(), 0) as comm:
        assert (comm.rank, comm.size, comm.device) == (0, 1, 0)
        for dt in DTYPES:
            h = _host(dt, (37, 5))
            a = gpuarr.to_gpu(h)
            ops = ("sum", "avg") if np.dtype(dt).kind == "c" else \
                ("sum", "prod", "max", "min")
            for op in ops:
                out = _poisoned(h.shape, dt)
                assert comm.all_reduce(a, out=out, op=op) is out
                assert out.get().tobytes() == h.tobytes(), (dt, op)
            got = comm.all_reduce(a)
            assert got is not a and got.get().tobytes() == h.tobytes()
            assert comm.all_reduce(a, out=a) is a                  # in place
            out = _poisoned(h.shape, dt)
            comm.broadcast(a, root=0, out=out)
            assert out.get().tobytes() == h.tobytes()
        # on a stream, and an empty array
        s = drv.Stream()
        a = gpuarr.to_gpu(_host("f4", (1000,)))
        out = comm.all_reduce(a, stream=s)
        s.synchronize()
        np.testing.assert_array_equal(out.get(), a.get())
        assert comm.all_reduce(gpuarr.empty((0,), np.float32)).size == 0
        with pytest.raises(ValueError, match="C-contiguous"):
            comm.all_reduce(a[::2])
        with pytest.raises(TypeError):
            comm.all_reduce(gpuarr.to_gpu(np.ones(3, bool)))
        with pytest.raises(TypeError, match="sum or avg"):
            comm.all_reduce(gpuarr.to_gpu(np.ones(3, np.complex64)), op="max")
        with pytest.raises(ValueError, match="shape"):
            comm.all_reduce(a, out=gpuarr.empty((999,), np.float32))
        with pytest.raises(ValueError, match="root must be in"):
            comm.broadcast(a, root=1)
        before = a.get()
        with pytest.raises(ValueError, match="overlaps a"):
            comm.all_reduce(a[1:], out=a[:-1])
        np.testing.assert_array_equal(a.get(), before)
    with pytest.raises(ValueError, match="destroyed"):
        comm.all_reduce(a)


def test_module_all_reduce_on_one_device():
    h = _host("f8", (4, 33))
    a = gpuarr.to_gpu(h)
    (got,) = nccl.all_reduce([a])
    assert got is not a and got.get().tobytes() == h.tobytes()
    out = _poisoned(h.shape, np.float64)
    assert nccl.all_reduce([a], op="max", out=[out])[0] is out
    np.testing.assert_array_equal(out.get(), h)
    with pytest.raises(ValueError, match="one array a device"):
        nccl.all_reduce([a, a])
    # empty arrays have no device: any number of them, no NCCL call
    e = [gpuarr.empty((0, 3), np.float32) for _ in range(3)]
    got = nccl.all_reduce(e)
    assert [g.shape for g in got] == [(0, 3)] * 3
    assert nccl.all_reduce(e, out=e) == e
    with pytest.raises(ValueError, match="one array an input"):
        nccl.all_reduce(e, out=e[:2])


def test_array_of_a_created_context_is_refused():
    ctx = drv.Device(0).make_context()
    try:
        a = gpuarr.to_gpu(np.ones(8, np.float32))
        from gpuarr import _placement
        if _placement.device_of(a)[1] is None:
            pytest.skip("the pool's memory names no context (a "
                        "stream-ordered pool): nothing to refuse")
        with pytest.raises(ValueError, match="primary context"):
            nccl.all_reduce([a])
        del a
    finally:
        drv.Context.pop()
        ctx.detach()


def test_two_devices():
    if drv.Device.count() < 2:
        pytest.skip("needs two GPUs (this machine has %d)"
                    % drv.Device.count())
    hs = [_host("f4", (1000, 3)), _host("f4", (1000, 3))]
    arrs = []
    for d, h in enumerate(hs):
        with gpuarr.Device(d):
            arrs.append(gpuarr.to_gpu(h))
    for op, ref in [("sum", hs[0] + hs[1]), ("max", np.maximum(*hs)),
                    ("min", np.minimum(*hs)), ("avg", (hs[0] + hs[1]) / 2)]:
        outs = nccl.all_reduce(arrs, op=op)
        for d, o in enumerate(outs):
            assert o.device == drv.Device(d)
            np.testing.assert_allclose(o.get(), ref, rtol=1e-6)
    hi = [_host("i8", (77,)), _host("i8", (77,))]
    ai = []
    for d, h in enumerate(hi):
        with gpuarr.Device(d):
            ai.append(gpuarr.to_gpu(h))
    for o in nccl.all_reduce(ai):
        np.testing.assert_array_equal(o.get(), hi[0] + hi[1])   # wraps
    comms = nccl.Communicator.init_all([0, 1])
    with gpuarr.Device(1):
        out1 = gpuarr.empty((1000, 3), np.float32)
    empties = []
    for d in range(2):
        with gpuarr.Device(d):
            empties.append(gpuarr.empty((0,), np.float32))
    assert [o.size for o in nccl.all_reduce(empties)] == [0, 0]
    with gpuarr.Device(0):             # an empty array names no device
        assert comms[1].all_reduce(empties[0]).size == 0
    # a collective of several ranks needs every rank's call: from one
    # thread, a group (the module's all_reduce); here, one thread a rank
    errs = []

    def run(c, a, out):
        try:
            with gpuarr.Device(c.device):
                c.broadcast(a, root=0, out=out)
                drv.Context.synchronize()
        except Exception as exc:       # reported below
            errs.append(exc)
    out0 = arrs[0]
    ts = [threading.Thread(target=run, args=(comms[0], arrs[0], out0)),
          threading.Thread(target=run, args=(comms[1], arrs[1], out1))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errs, errs
    np.testing.assert_array_equal(out1.get(), hs[0])
    for c in comms:
        c.destroy()
