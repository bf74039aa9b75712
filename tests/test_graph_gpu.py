"""CUDA graphs, stream capture and host callbacks on a real GPU: captured
work equals the same work launched on a stream (numpy as the reference),
explicit graphs with every node kind, repeated launches, kernel-node
parameter updates, GraphExec.update, callbacks in stream order with
exceptions reported, gpuarr's own elementwise operations captured, and the
bad-input and capture-breaking errors."""
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

KERNELS = r"""
#define AXPY(NAME, T) \
__global__ void NAME(T *y, const T *x, T a, int n) \
{ \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) y[i] = a * x[i] + y[i]; \
}
#define SQUARE(NAME, T) \
__global__ void NAME(T *y, int n) \
{ \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) y[i] = y[i] * y[i]; \
}
#define ADDS(NAME, T) \
__global__ void NAME(T *y, T v, int n) \
{ \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) y[i] += v; \
}
extern "C" {
AXPY(axpy_f, float)
AXPY(axpy_d, double)
AXPY(axpy_i, int)
SQUARE(square_f, float)
SQUARE(square_d, double)
SQUARE(square_i, int)
ADDS(adds_f, float)
ADDS(adds_i, int)
}
"""

SUFFIX = {np.float32: "f", np.float64: "d", np.int32: "i"}


def rng():
    return np.random.default_rng()


def rand(dtype, n):
    r = rng()
    if np.dtype(dtype).kind == "i":
        return r.integers(-1000, 1000, n).astype(dtype)
    return (r.standard_normal(n) + 0.5).astype(dtype)


def grid_for(n, block=128):
    return ((n + block - 1) // block, 1)


def pinned(drv, a):
    out = drv.pagelocked_empty(a.shape, a.dtype)
    out[...] = a
    return out


def enqueue_sequence(drv, mod, stream, dtype, n, x_dev, y_dev, x_host, y_host, out_host, a):
    """The work both tests run: copies in, y = a*x + y, y = y*y, y += 3,
    copy out, all on ``stream``."""
    s = SUFFIX[dtype]
    t = np.dtype(dtype).type
    drv.memcpy_htod_async(x_dev, x_host, stream)
    drv.memcpy_htod_async(y_dev, y_host, stream)
    g, b = grid_for(n), (128, 1, 1)
    mod.get_function("axpy_" + s)(y_dev, x_dev, t(a), np.int32(n), block=b, grid=g,
                                  stream=stream)
    mod.get_function("square_" + s)(y_dev, np.int32(n), block=b, grid=g, stream=stream)
    if s != "d":
        mod.get_function("adds_" + s)(y_dev, t(3), np.int32(n), block=b, grid=g,
                                      stream=stream)
    drv.memcpy_dtoh_async(out_host, y_dev, stream)


def reference(dtype, x, y, a):
    t = np.dtype(dtype).type
    r = t(a) * x + y
    r = r * r
    if dtype is not np.float64:
        r = r + t(3)
    return r


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_captured_sequence_equals_the_same_work_on_a_stream(drv, mod, dtype, n):
    x, y = rand(dtype, n), rand(dtype, n)
    xh, yh = pinned(drv, x), pinned(drv, y)
    xd, yd = drv.mem_alloc(x.nbytes), drv.mem_alloc(y.nbytes)
    s = drv.Stream()
    on_stream = drv.pagelocked_empty(n, dtype)
    on_stream[...] = 77
    enqueue_sequence(drv, mod, s, dtype, n, xd, yd, xh, yh, on_stream, 2)
    s.synchronize()
    captured = drv.pagelocked_empty(n, dtype)
    captured[...] = 55
    drv.memset_d8(yd, 0xAB, y.nbytes)
    s.begin_capture()
    assert s.is_capturing()
    enqueue_sequence(drv, mod, s, dtype, n, xd, yd, xh, yh, captured, 2)
    graph = s.end_capture()
    assert not s.is_capturing()
    assert (captured == 55).all(), "captured work ran during the capture"
    kinds = sorted(int(node.type) for node in graph.get_nodes())
    assert kinds.count(int(drv.graph_node_type.MEMCPY)) == 3
    exe = graph.instantiate()
    exe.launch(s)
    s.synchronize()
    want = reference(dtype, x, y, 2)
    np.testing.assert_array_equal(on_stream, want) if dtype is np.int32 else \
        np.testing.assert_allclose(on_stream, want, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(captured, on_stream)
    # a second launch reads the host buffers again: new inputs
    x2, y2 = rand(dtype, n), rand(dtype, n)
    xh[...] = x2
    yh[...] = y2
    captured[...] = 55
    exe.launch(s)
    s.synchronize()
    want2 = reference(dtype, x2, y2, 2)
    if dtype is np.int32:
        np.testing.assert_array_equal(captured, want2)
    else:
        np.testing.assert_allclose(captured, want2, rtol=1e-5, atol=1e-4)


def test_explicit_graph_with_every_node_kind(drv, mod):
    n = 777
    x = rand(np.float32, n)
    xh = pinned(drv, x)
    out = drv.pagelocked_empty(n, np.float32)
    out[...] = -9
    xd, yd, zd = (drv.mem_alloc(4 * n) for _ in range(3))
    order = []
    ev_in, ev_out = drv.Event(), drv.Event()
    side = drv.Stream()
    ev_in.record(side)
    side.synchronize()
    child = drv.Graph()
    child.add_kernel_node(zd, np.float32(0.5), np.int32(n), func=mod.get_function("adds_f"),
                          block=(128, 1, 1), grid=grid_for(n))
    child.add_host_node(order.append, "child")
    g = drv.Graph()
    wait = g.add_event_wait_node(ev_in)
    h2d = g.add_memcpy_htod_node(xd, xh, dependencies=[wait])
    fill = g.add_memset_node(yd, np.float32(1.0).view(np.uint32), n, element_size=4)
    k = g.add_kernel_node(yd, xd, np.float32(4), np.int32(n), func=mod.get_function("axpy_f"),
                          block=(128, 1, 1), grid=grid_for(n), dependencies=[h2d, fill])
    host = g.add_host_node(order.append, "after kernel", dependencies=[k])
    d2d = g.add_memcpy_dtod_node(zd, yd, 4 * n, dependencies=[k])
    join = g.add_empty_node(dependencies=[host, d2d])
    c = g.add_child_graph_node(child, dependencies=[join])
    d2h = g.add_memcpy_dtoh_node(out, zd, dependencies=[c])
    rec = g.add_event_record_node(ev_out, dependencies=[d2h])
    T = drv.graph_node_type
    assert [nd.type for nd in g.get_nodes()] == [
        T.WAIT_EVENT, T.MEMCPY, T.MEMSET, T.KERNEL, T.HOST, T.MEMCPY, T.EMPTY, T.GRAPH,
        T.MEMCPY, T.EVENT_RECORD]
    assert set(g.get_root_nodes()) == {wait, fill}
    assert set(k.get_dependencies()) == {h2d, fill} and rec.get_dependencies() == [d2h]
    exe = g.instantiate()
    s = drv.Stream()
    exe.launch(s)
    ev_out.synchronize()
    s.synchronize()
    np.testing.assert_allclose(out, 4 * x + 1 + 0.5, rtol=1e-6, atol=1e-5)
    assert order == ["after kernel", "child"], order


def test_instantiate_and_launch_repeatedly(drv, mod):
    n = 1025
    y0 = rand(np.int32, n)
    yd = drv.to_device(y0)
    g = drv.Graph()
    g.add_kernel_node(yd, np.int32(3), np.int32(n), func=mod.get_function("adds_i"),
                      block=(256, 1, 1), grid=grid_for(n, 256))
    s = drv.Stream()
    e1, e2 = g.instantiate(), g.instantiate()
    for _ in range(5):
        e1.launch(s)
    e2.launch(s)
    s.synchronize()
    got = drv.from_device(yd, n, np.int32)
    np.testing.assert_array_equal(got, y0 + 18)


def test_kernel_node_set_params_changes_later_launches(drv, mod):
    n = 300
    a, b = rand(np.float32, n), rand(np.float32, n)
    ad, bd = drv.to_device(a), drv.to_device(b)
    f = mod.get_function("adds_f")
    g = drv.Graph()
    node = g.add_kernel_node(ad, np.float32(1), np.int32(n), func=f, block=(64, 1, 1),
                             grid=grid_for(n, 64))
    exe = g.instantiate()
    s = drv.Stream()
    exe.launch(s)
    exe.kernel_node_set_params(bd, np.float32(2.5), np.int32(n), kernel_node=node,
                               block=(32, 1, 1), grid=grid_for(n, 32))
    exe.launch(s)
    exe.launch(s)
    s.synchronize()
    np.testing.assert_allclose(drv.from_device(ad, n, np.float32), a + 1, rtol=1e-6)
    np.testing.assert_allclose(drv.from_device(bd, n, np.float32), b + 5, rtol=1e-6)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        exe.kernel_node_set_params(bd, np.float32(1), kernel_node=node, block=1)
    other = drv.Graph().add_empty_node()
    with pytest.raises(ValueError, match="another graph"):
        exe.kernel_node_set_params(bd, np.float32(1), np.int32(n), kernel_node=other, block=1)


def test_graph_exec_update_takes_new_parameters_and_refuses_a_new_topology(drv, mod):
    n = 513
    y = rand(np.int32, n)
    yd = drv.to_device(y)
    f = mod.get_function("adds_i")

    def build(v, extra=False):
        g = drv.Graph()
        k = g.add_kernel_node(yd, np.int32(v), np.int32(n), func=f, block=(128, 1, 1),
                              grid=grid_for(n))
        if extra:
            g.add_empty_node(dependencies=[k])
        return g

    exe = build(1).instantiate()
    s = drv.Stream()
    exe.launch(s)
    exe.update(build(10))
    exe.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(drv.from_device(yd, n, np.int32), y + 11)
    with pytest.raises(drv.Error) as ei:
        exe.update(build(100, extra=True))
    assert ei.value.code == 910 and "topology" in str(ei.value), str(ei.value)
    exe.launch(s)                   # unchanged by the refused update
    s.synchronize()
    np.testing.assert_array_equal(drv.from_device(yd, n, np.int32), y + 21)


def test_host_callbacks_run_in_stream_order(drv, mod):
    s = drv.Stream()
    order = []
    n = 4096
    yd = drv.to_device(np.zeros(n, np.int32))
    f = mod.get_function("adds_i")
    for i in range(6):
        f(yd, np.int32(1), np.int32(n), block=(256, 1, 1), grid=grid_for(n, 256), stream=s)
        if i % 2:
            s.add_callback(lambda st, status, i=i: order.append((i, st is s, status)))
        else:
            s.launch_host_func(order.append, (i, True, 0))
    s.synchronize()
    assert order == [(i, True, 0) for i in range(6)], order


def test_an_exception_in_a_callback_reaches_unraisablehook(drv, monkeypatch):
    seen = []
    monkeypatch.setattr(sys, "unraisablehook", seen.append)

    def broken():
        raise ZeroDivisionError("from a host function")

    def broken_cb(stream, status):
        raise KeyError("from a stream callback")

    s = drv.Stream()
    s.launch_host_func(broken)
    s.add_callback(broken_cb)
    s.launch_host_func(seen.append, "after")
    s.synchronize()
    assert len(seen) == 3, seen
    assert seen[0].object is broken and isinstance(seen[0].exc_value, ZeroDivisionError)
    assert seen[1].object is broken_cb and isinstance(seen[1].exc_value, KeyError)
    assert seen[2] == "after"


def test_captured_host_function_runs_at_each_launch(drv):
    s = drv.Stream()
    calls = []
    s.begin_capture()
    s.launch_host_func(calls.append, "x")
    g = s.end_capture()
    assert calls == []
    exe = g.instantiate()
    del g
    for _ in range(3):
        exe.launch(s)
    s.synchronize()
    assert calls == ["x"] * 3


def test_gpuarr_elementwise_operations_into_preallocated_outputs_capture(drv, context):
    import gpuarr
    import gpuarr.gpuarray as ga
    n = 10007
    a_h, b_h = rand(np.float32, n), rand(np.float32, n)
    a, b = ga.to_gpu(a_h), ga.to_gpu(b_h)
    c, d = ga.empty(n, np.float32), ga.empty(n, np.float32)
    s = drv.Stream()
    gpuarr.add(a, b, out=c, stream=s)        # compile and load outside the capture
    gpuarr.multiply(c, a, out=d, stream=s)
    s.synchronize()
    c.fill(np.float32(-1))
    d.fill(np.float32(-1))
    s.begin_capture()
    gpuarr.add(a, b, out=c, stream=s)
    gpuarr.multiply(c, a, out=d, stream=s)
    g = s.end_capture()
    assert len(g.get_nodes()) >= 2
    exe = g.instantiate()
    exe.launch(s)
    s.synchronize()
    np.testing.assert_allclose(d.get(), (a_h + b_h) * a_h, rtol=1e-6)
    a2 = rand(np.float32, n)
    a.set(a2)
    exe.launch(s)
    s.synchronize()
    np.testing.assert_allclose(d.get(), (a2 + b_h) * a2, rtol=1e-6)


def test_an_allocating_operation_inside_a_capture_says_so(drv, context):
    import gpuarr
    from gpuarr import tools
    if not isinstance(tools.default_pool(), tools.StreamOrderedMemoryPool):
        pytest.skip("the default pool is not the stream-ordered one")
    a = gpuarr.to_gpu(rand(np.float32, 1000))
    s = drv.Stream()
    gpuarr.add(a, a, stream=s)
    s.synchronize()
    live = tools.default_pool().active_blocks
    s.begin_capture()
    try:
        assert drv.capture_in_progress() and s.capturing
        with pytest.raises(drv.LogicError, match="capture is in progress.*out="):
            gpuarr.add(a, a, stream=s)
    finally:
        g = s.end_capture()                    # the capture was not broken
    assert not drv.capture_in_progress()
    assert not s.capturing and tools.default_pool().active_blocks == live
    g.instantiate().launch(s)
    s.synchronize()
    c = gpuarr.add(a, a, stream=s)             # and allocation works after it
    np.testing.assert_array_equal(c.get(), 2 * a.get())


def test_bad_input_is_refused_before_the_driver(drv, mod):
    s = drv.Stream()
    with pytest.raises(TypeError, match="callable"):
        s.launch_host_func(42)
    with pytest.raises(TypeError, match="callable"):
        s.add_callback(None)
    with pytest.raises(ValueError, match="mode"):
        s.begin_capture(5)
    assert not s.is_capturing()
    g1, g2 = drv.Graph(), drv.Graph()
    other = g2.add_empty_node()
    with pytest.raises(ValueError, match=r"dependencies\[0\].*another graph"):
        g1.add_empty_node(dependencies=[other])
    with pytest.raises(TypeError, match="func="):
        g1.add_kernel_node(np.int32(1), func=None, block=1)
    with pytest.raises(drv.LogicError, match="not capturing"):
        s.end_capture()


def test_legacy_default_stream_under_capture_is_a_clear_error(drv, mod):
    n = 64
    yd = drv.to_device(np.zeros(n, np.int32))
    f = mod.get_function("adds_i")
    s = drv.Stream()                  # blocking: synchronizes with the legacy stream
    s.begin_capture()
    f(yd, np.int32(1), np.int32(n), block=(64, 1, 1), stream=s)
    with pytest.raises(drv.Error) as ei:
        f(yd, np.int32(1), np.int32(n), block=(64, 1, 1))      # stream=None: legacy
    # CUDA_ERROR_STREAM_CAPTURE_IMPLICIT (or _UNSUPPORTED), with gpuarr's hint
    assert ei.value.code in (900, 906) and "capturing" in str(ei.value), str(ei.value)
    assert ei.value.call == "cuLaunchKernel"
    try:
        s.end_capture()
    except drv.Error as e:           # the capture was invalidated by it
        assert e.code == 901 and "invalidated" in str(e), str(e)
    assert not s.is_capturing()
    s.synchronize()
    np.testing.assert_array_equal(drv.from_device(yd, n, np.int32), np.zeros(n, np.int32))


def test_synchronous_allocation_under_global_capture_names_the_call(drv):
    s = drv.Stream()
    s.begin_capture(drv.capture_mode.GLOBAL)
    try:
        with pytest.raises(drv.Error) as ei:
            drv.mem_alloc(1 << 20)
        assert ei.value.call == "cuMemAlloc_v2" and 900 <= ei.value.code <= 908, vars(ei.value)
        assert "capturing" in str(ei.value)
    finally:
        try:
            s.end_capture()
        except drv.Error:
            pass
    assert not s.is_capturing()
