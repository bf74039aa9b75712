"""CUDA graphs, stream capture and host callbacks against the fake libcuda
(tests/fake_cuda/fake_graph.c): what gpuarr packs into each node (a kernel
node's function, dims and parameter bytes; the CUDA_MEMCPY3D of a copy
node; the CUDA_MEMSET_NODE_PARAMS of a fill node), data moved by launched
graphs in fake memory, the bad-input errors raised before any driver call,
callbacks and their exceptions, and lifetimes.

Each scenario runs in a fresh interpreter (see test_driver_fake.py).
"""
import textwrap

from test_driver_fake import check

GRAPH_PRELUDE = """
import ctypes, struct, weakref
lib = fk.lib
lib.fake_kernel_node.restype = ctypes.c_longlong
lib.fake_kernel_node.argtypes = [ctypes.c_void_p] * 2 + [ctypes.c_char_p, ctypes.c_int,
    ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p]
lib.fake_memcpy_node.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.fake_memset_node.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.fake_node_info.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
lib.fake_invalidate_capture.argtypes = [ctypes.c_void_p]

def kernel_node(node, exec_=None):
    name = ctypes.create_string_buffer(64)
    data = (ctypes.c_ubyte * 8192)()
    dims = (ctypes.c_uint * 7)()
    n = lib.fake_kernel_node(exec_.handle if exec_ else None, node.handle, name, 64,
                             data, 8192, dims)
    assert n >= 0, "not a kernel node"
    return {"name": name.value.decode(), "params": bytes(data[:n]),
            "grid": tuple(dims[0:3]), "block": tuple(dims[3:6]), "shared": dims[6]}

MEMCPY_FIELDS = ("srcXInBytes srcY srcZ srcLOD srcMemoryType srcHost srcDevice srcArray "
                 "reserved0 srcPitch srcHeight dstXInBytes dstY dstZ dstLOD dstMemoryType "
                 "dstHost dstDevice dstArray reserved1 dstPitch dstHeight WidthInBytes "
                 "Height Depth ctx").split()

def memcpy_node(node):
    out = (ctypes.c_ulonglong * 26)()
    assert lib.fake_memcpy_node(node.handle, out) == 0
    return dict(zip(MEMCPY_FIELDS, out))

def memset_node(node):
    out = (ctypes.c_ulonglong * 7)()
    assert lib.fake_memset_node(node.handle, out) == 0
    return dict(zip("dst pitch value elementSize width height ctx".split(), out))

def counts():
    v = (ctypes.c_longlong * 5)()
    lib.fake_graph_counts(v)
    return dict(zip("graphs execs launches host_calls captures".split(), v))

def raises(exc, fn, *words):
    try:
        fn()
    except exc as e:
        for w in words:
            assert w in str(e), (w, str(e))
        return e
    raise AssertionError("no %s" % exc.__name__)

mod = drv.module_from_buffer(image("kernel inc 8,4 effect=inc",
                                   "kernel copy 8,8,4 effect=copy",
                                   "kernel mixed 1,8,2,4"))
inc = mod.get_function("inc")
copyk = mod.get_function("copy")
mixed = mod.get_function("mixed")
"""


def run(fake_lib, code):
    check(fake_lib, GRAPH_PRELUDE + textwrap.dedent(code))


def test_kernel_node_packs_function_dims_and_parameters(fake_lib):
    run(fake_lib, """
        buf = drv.mem_alloc(64)
        drv.memcpy_htod(buf, np.zeros(64, np.uint8))
        g = drv.Graph()
        n = g.add_kernel_node(buf, np.int32(40), func=inc, block=(32, 2), grid=(3, 1, 2),
                              shared=128)
        rec = kernel_node(n)
        assert rec["name"] == "inc"
        assert rec["params"] == expected_params([np.uint64(int(buf)), np.int32(40)]), rec
        assert rec["grid"] == (3, 1, 2) and rec["block"] == (32, 2, 1) and rec["shared"] == 128
        vals = [np.int8(-3), np.uint64(2**63 + 5), np.int16(-7), np.float32(1.5)]
        m = g.add_kernel_node(*vals, func=mixed, block=1, dependencies=[n])
        assert kernel_node(m)["params"] == expected_params(vals)
        assert n.type == drv.graph_node_type.KERNEL and m.get_dependencies() == [n]
        assert g.get_root_nodes() == [n] and g.get_nodes() == [n, m]
        before = fk["launches"]
        x = g.instantiate()
        x.launch()
        x.launch()
        assert fk["launches"] == before + 4, fk["launches"]
        out = np.empty(64, np.uint8)
        drv.memcpy_dtoh(out, buf)
        assert (out[:40] == 2).all() and (out[40:] == 0).all(), out
        assert fk.last_launch()["name"] == "mixed"
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_kernel_node_bad_input_raises_before_the_driver(fake_lib):
    run(fake_lib, """
        buf = drv.mem_alloc(16)
        g, other = drv.Graph(), drv.Graph()
        a = g.add_empty_node()
        b = other.add_empty_node()
        errors = fk["errors"]
        raises(TypeError, lambda: g.add_kernel_node(buf, func=inc, block=1), "takes 2 arguments")
        raises(TypeError, lambda: g.add_kernel_node(buf, 5, func=inc, block=1), "argument 1")
        raises(TypeError, lambda: g.add_kernel_node(buf, np.int64(5), func=inc, block=1),
               "4 bytes")
        raises(TypeError, lambda: g.add_kernel_node(drv.In(np.zeros(4)), np.int32(4),
                                                    func=inc, block=1), "In")
        raises(TypeError, lambda: g.add_kernel_node(buf, np.int32(1), func="inc", block=1),
               "func=")
        raises(ValueError, lambda: g.add_kernel_node(buf, np.int32(1), func=inc), "block")
        raises(ValueError, lambda: g.add_kernel_node(buf, np.int32(1), func=inc,
                                                     block=(1, 2, 3, 4)), "block")
        raises(ValueError, lambda: g.add_kernel_node(buf, np.int32(1), func=inc, block=1,
                                                     dependencies=[a, b]),
               "dependencies[1]", "another graph")
        raises(ValueError, lambda: g.add_empty_node(dependencies=[a, a]), "dependencies[1]",
               "repeats")
        raises(TypeError, lambda: g.add_empty_node(dependencies=[a, 3]), "dependencies[1]")
        raises(TypeError, lambda: g.add_empty_node(dependencies=5), "dependencies")
        raises(ValueError, lambda: g.add_dependencies([a], [b]), "another graph")
        raises(ValueError, lambda: g.add_dependencies([a], []), "from_nodes")
        raises(TypeError, lambda: drv.GraphNode(), "add_")
        raises(TypeError, lambda: drv.GraphExec(), "instantiate")
        raises(ValueError, lambda: drv.Graph(1), "flags")
        assert fk["errors"] == errors, fk.last_error()
        assert len(g.get_nodes()) == 1
    """)


def test_memcpy_nodes_fill_a_1d_memcpy3d_and_move_data(fake_lib):
    run(fake_lib, """
        src = np.arange(100, dtype=np.float32)
        dst = np.full(100, -1, np.float32)
        d1, d2 = drv.mem_alloc(400), drv.mem_alloc(400)
        g = drv.Graph()
        h2d = g.add_memcpy_htod_node(d1, src)
        d2d = g.add_memcpy_dtod_node(d2, d1, 400, dependencies=[h2d])
        d2h = g.add_memcpy_dtoh_node(dst, d2, dependencies=[d2d])
        f = memcpy_node(h2d)
        want = dict.fromkeys(MEMCPY_FIELDS, 0)
        want.update(srcMemoryType=1, srcHost=src.ctypes.data, srcPitch=400, srcHeight=1,
                    dstMemoryType=2, dstDevice=int(d1), dstPitch=400, dstHeight=1,
                    WidthInBytes=400, Height=1, Depth=1, ctx=ctx.handle)
        assert f == want, f
        f = memcpy_node(d2h)
        assert (f["srcMemoryType"], f["srcDevice"], f["dstMemoryType"], f["dstHost"]) == \\
            (2, int(d2), 1, dst.ctypes.data), f
        f = memcpy_node(d2d)
        assert (f["srcMemoryType"], f["srcDevice"], f["dstMemoryType"], f["dstDevice"],
                f["WidthInBytes"]) == (2, int(d1), 2, int(d2), 400), f
        assert h2d.type == drv.graph_node_type.MEMCPY
        x = g.instantiate()
        x.launch()
        assert (dst == src).all(), dst
        # the graph reads the host buffer at each launch
        src[:] = 7
        x.launch()
        assert (dst == 7).all()
        errors = fk["errors"]
        raises(ValueError, lambda: g.add_memcpy_htod_node(d1, np.zeros(101, np.float32)),
               "do not fit")
        raises(ValueError, lambda: g.add_memcpy_dtoh_node(np.zeros(101, np.float32), d1),
               "do not fit")
        raises(ValueError, lambda: g.add_memcpy_dtod_node(d2, d1, 401), "do not fit")
        raises(ValueError, lambda: g.add_memcpy_dtod_node(d2, d1, 0), "at least one byte")
        ro = np.zeros(4, np.float32)
        ro.flags.writeable = False
        raises(ValueError, lambda: g.add_memcpy_dtoh_node(ro, d1), "writable")
        raises(ValueError, lambda: g.add_memcpy_htod_node(d1, np.zeros((4, 4))[:, 1]),
               "contiguous")
        raises(TypeError, lambda: g.add_memcpy_htod_node(d1, 5), "host buffer")
        assert fk["errors"] == errors, fk.last_error()
    """)


def test_graph_keeps_host_buffers_and_what_nodes_use_alive(fake_lib):
    run(fake_lib, """
        d = drv.mem_alloc(16)
        g = drv.Graph()
        src = bytearray(b"0123456789abcdef")
        g.add_memcpy_htod_node(d, src)
        try:
            src.extend(b"x")         # exported to the graph: cannot move
        except BufferError:
            pass
        else:
            raise AssertionError("the graph let its host buffer be resized")
        w = weakref.ref(mod)
        def cb(): pass
        wcb = weakref.ref(cb)
        g.add_kernel_node(d, np.int32(1), func=inc, block=1)
        g.add_host_node(cb)
        del cb
        x = g.instantiate()
        del g
        gc.collect()
        assert wcb() is not None and x.graph is not None
        c = counts()
        del x
        gc.collect()
        assert wcb() is None, "the host callable outlived its graph"
        c2 = counts()
        assert c2["graphs"] == c["graphs"] - 1 and c2["execs"] == c["execs"] - 1, (c, c2)
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_memset_node_fields_and_fill(fake_lib):
    run(fake_lib, """
        d = drv.mem_alloc(64)
        drv.memset_d8(d, 0, 64)
        g = drv.Graph()
        n = g.add_memset_node(d, 0xBEEF, 5, element_size=2, height=3, pitch=16)
        assert memset_node(n) == dict(dst=int(d), pitch=16, value=0xBEEF, elementSize=2,
                                      width=5, height=3, ctx=ctx.handle), memset_node(n)
        one = g.add_memset_node(int(d) + 60, 0x11223344, 1, element_size=4)
        assert memset_node(one)["pitch"] == 4 and memset_node(one)["height"] == 1
        assert n.type == drv.graph_node_type.MEMSET
        g.instantiate().launch()
        out = np.empty(32, np.uint16)
        drv.memcpy_dtoh(out, d)
        want = np.zeros(32, np.uint16)
        for r in range(3):
            want[8 * r:8 * r + 5] = 0xBEEF
        want[30:32] = [0x3344, 0x1122]
        assert (out == want).all(), out
        errors = fk["errors"]
        raises(ValueError, lambda: g.add_memset_node(d, 1, 4, element_size=3), "element_size")
        raises(ValueError, lambda: g.add_memset_node(d, 256, 4), "does not fit")
        raises(ValueError, lambda: g.add_memset_node(d, -1, 4), "does not fit")
        raises(ValueError, lambda: g.add_memset_node(int(d) + 1, 1, 4, element_size=4),
               "aligned")
        raises(ValueError, lambda: g.add_memset_node(d, 1, 0), "at least 1")
        raises(ValueError, lambda: g.add_memset_node(d, 1, 4, height=2), "pitch")
        raises(ValueError, lambda: g.add_memset_node(d, 1, 8, element_size=2, height=2,
                                                     pitch=8), "pitch")
        raises(ValueError, lambda: g.add_memset_node(d, 1, 17, element_size=4), "do not fit")
        # extents whose byte counts wrap around 2**64 in C arithmetic
        raises(ValueError, lambda: g.add_memset_node(d, 1, 2**62, element_size=4), "past")
        raises(ValueError, lambda: g.add_memset_node(d, 1, 4, height=2**40, pitch=2**40),
               "past")
        assert fk["errors"] == errors, fk.last_error()
    """)


def test_host_event_child_and_empty_nodes_and_edges(fake_lib):
    run(fake_lib, """
        calls = []
        ev = drv.Event()
        child = drv.Graph()
        d = drv.mem_alloc(8)
        drv.memset_d8(d, 0, 8)
        child.add_kernel_node(d, np.int32(8), func=inc, block=1)
        child.add_host_node(calls.append, "child")
        g = drv.Graph()
        a = g.add_host_node(calls.append, "a")
        e = g.add_empty_node(dependencies=[a])
        r = g.add_event_record_node(ev, dependencies=[e])
        w = g.add_event_wait_node(ev, dependencies=[r])
        c = g.add_child_graph_node(child, dependencies=[w])
        z = g.add_host_node(calls.append, "z")
        g.add_dependencies([c], [z])
        T = drv.graph_node_type
        assert [n.type for n in g.get_nodes()] == [T.HOST, T.EMPTY, T.EVENT_RECORD,
                                                   T.WAIT_EVENT, T.GRAPH, T.HOST]
        assert z.get_dependencies() == [c] and g.get_root_nodes() == [a]
        raises(drv.LogicError, lambda: g.add_dependencies([c], [z]))   # the driver: edge exists
        raises(TypeError, lambda: g.add_event_record_node(5), "Event")
        raises(TypeError, lambda: g.add_child_graph_node(5), "Graph")
        raises(ValueError, lambda: g.add_child_graph_node(g), "itself")
        raises(TypeError, lambda: g.add_host_node(5), "callable")
        x = g.instantiate()
        x.launch()
        x.launch()
        assert calls == ["a", "child", "z"] * 2, calls
        out = np.empty(8, np.uint8)
        drv.memcpy_dtoh(out, d)
        assert (out == 2).all()
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "g.dot")
        g.debug_dot_print(path)
        assert open(path).read().startswith("digraph")
        k = g.clone()
        assert len(k.get_nodes()) == 6 and k != g and k.get_nodes()[0] != a
        k.instantiate().launch()
        assert calls[-3:] == ["a", "child", "z"]
    """)


def test_exec_kernel_node_set_params_and_update(fake_lib):
    run(fake_lib, """
        d1, d2 = drv.mem_alloc(16), drv.mem_alloc(16)
        g = drv.Graph()
        n = g.add_kernel_node(d1, np.int32(4), func=inc, block=4)
        x = g.instantiate()
        x.kernel_node_set_params(d2, np.int32(9), kernel_node=n, block=2, grid=3)
        rec = kernel_node(n, x)
        assert rec["params"] == expected_params([np.uint64(int(d2)), np.int32(9)])
        assert rec["grid"] == (3, 1, 1) and rec["block"] == (2, 1, 1)
        assert kernel_node(n)["params"] == expected_params([np.uint64(int(d1)), np.int32(4)])
        other = drv.Graph()
        o = other.add_kernel_node(d1, np.int32(1), func=inc, block=1)
        e = g.add_empty_node()
        errors = fk["errors"]
        raises(ValueError, lambda: x.kernel_node_set_params(d1, np.int32(1), kernel_node=o,
                                                            block=1), "another graph")
        raises(TypeError, lambda: x.kernel_node_set_params(d1, np.int32(1), kernel_node=3,
                                                           block=1), "GraphNode")
        raises(TypeError, lambda: x.kernel_node_set_params(d1, kernel_node=n, block=1),
               "takes 2")
        raises(ValueError, lambda: x.kernel_node_set_params(kernel_node=e, func=inc, block=1),
               "not a kernel node")
        raises(TypeError, lambda: x.kernel_node_set_params(kernel_node=e, block=1), "func=")
        raises(TypeError, lambda: x.update(3), "Graph")
        assert fk["errors"] == errors, fk.last_error()
        # same topology: taken; another topology: refused, saying why
        g2 = drv.Graph()
        n2 = g2.add_kernel_node(d2, np.int32(7), func=inc, block=1)
        x.update(g2)
        assert kernel_node(n, x)["params"] == expected_params([np.uint64(int(d2)), np.int32(7)])
        g3 = drv.Graph()
        g3.add_kernel_node(d2, np.int32(7), func=inc, block=1)
        g3.add_empty_node()
        err = raises(drv.Error, lambda: x.update(g3), "topology", "ERROR_TOPOLOGY_CHANGED")
        assert err.code == 910 and err.call == "cuGraphExecUpdate_v2", vars(err)
    """)


def test_callbacks_run_with_their_arguments_and_report_exceptions(fake_lib):
    run(fake_lib, """
        s = drv.Stream()
        got = []
        s.add_callback(lambda st, status: got.append((st, status)))
        assert got == [(s, 0)], got
        s.launch_host_func(got.append, "x")
        assert got[-1] == "x"
        hooked = []
        sys.unraisablehook = hooked.append
        def bad():
            raise KeyError("in the callback")
        s.launch_host_func(bad)
        assert len(hooked) == 1 and hooked[0].object is bad, hooked
        assert isinstance(hooked[0].exc_value, KeyError)
        def bad_cb(st, status):
            raise ValueError("cb")
        s.add_callback(bad_cb)
        assert hooked[-1].object is bad_cb and isinstance(hooked[-1].exc_value, ValueError)
        sys.unraisablehook = sys.__unraisablehook__
        # a one-shot callable is given up after it ran (at the next call)
        class F:
            def __call__(self):
                pass
        f = F()
        wf = weakref.ref(f)
        s.launch_host_func(f)
        del f
        s.launch_host_func(got.append, "y")
        gc.collect()
        assert wf() is None, "the callback was kept after it ran"
        calls = counts()["host_calls"]
        raises(TypeError, lambda: s.add_callback(5), "callable")
        raises(TypeError, lambda: s.launch_host_func("f"), "callable")
        raises(ValueError, lambda: s.add_callback(print, flags=1), "flags")
        assert counts()["host_calls"] == calls
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_stream_capture_graph_registry_and_host_nodes(fake_lib):
    run(fake_lib, """
        s = drv.Stream()
        assert not s.is_capturing()
        assert s.get_capture_info_v2() == (drv.capture_status.NONE, 0, None, [])
        d = drv.mem_alloc(8)
        drv.memset_d8(d, 0, 8)
        s.begin_capture()
        assert s.is_capturing()
        status, cid, graph, deps = s.get_capture_info_v2()
        assert status == drv.capture_status.ACTIVE and cid > 0 and deps == []
        node = graph.add_kernel_node(d, np.int32(8), func=inc, block=1, dependencies=deps)
        s.update_capture_dependencies([node],
                                      drv.update_capture_dependencies_flags.SET_CAPTURE_DEPENDENCIES)
        assert s.get_capture_info_v2()[3] == [node]
        seen = []
        calls = counts()["host_calls"]
        s.launch_host_func(seen.append, 1)
        assert seen == [] and counts()["host_calls"] == calls, "captured work ran"
        raises(drv.LogicError, lambda: s.add_callback(print), "launch_host_func")
        raises(drv.LogicError, lambda: s.begin_capture())      # the driver: already capturing
        g = s.end_capture()
        assert g is graph and not s.is_capturing()
        nodes = g.get_nodes()
        assert [n.type for n in nodes] == [drv.graph_node_type.KERNEL, drv.graph_node_type.HOST]
        assert nodes[1].get_dependencies() == [node]
        x = g.instantiate()
        del g, graph
        gc.collect()
        x.launch(s)
        x.launch(s)
        assert seen == [1, 1], seen
        out = np.empty(8, np.uint8)
        drv.memcpy_dtoh(out, d)
        assert (out == 2).all()
        errors = fk["errors"]
        raises(drv.LogicError, lambda: s.end_capture(), "not capturing")
        raises(ValueError, lambda: s.begin_capture(7), "mode")
        raises(TypeError, lambda: s.begin_capture("global"), "capture_mode")
        raises(drv.LogicError, lambda: s.update_capture_dependencies([], 0), "not capturing")
        assert fk["errors"] == errors, fk.last_error()
        assert counts()["captures"] == 0
    """)


def test_an_invalidated_capture_fails_with_a_clear_error(fake_lib):
    run(fake_lib, """
        s = drv.Stream()
        s.begin_capture(drv.capture_mode.RELAXED)
        g = s.get_capture_info_v2()[2]
        assert lib.fake_invalidate_capture(ctypes.c_void_p(s.handle)) == 1
        assert s.is_capturing() and drv.capture_in_progress()
        err = raises(drv.Error, lambda: s.end_capture(), "cuStreamEndCapture",
                     "invalidated", "begin the capture again")
        assert not drv.capture_in_progress() and not s.capturing
        assert err.code == 901
        assert not s.is_capturing() and counts()["captures"] == 0
        raises(drv.LogicError, lambda: g.add_empty_node(), "gone")
        raises(drv.LogicError, lambda: g.instantiate(), "gone")
        s.begin_capture()                  # the stream can capture again
        s.end_capture().instantiate().launch(s)
    """)


def test_graph_objects_release_in_their_context(fake_lib):
    run(fake_lib, """
        c0 = counts()
        g = drv.Graph()
        g.add_empty_node()
        x = g.instantiate()
        other = drv.Device(0).make_context()
        try:
            del g, x
            gc.collect()
            c1 = counts()
            assert c1["graphs"] == c0["graphs"] and c1["execs"] == c0["execs"], (c0, c1)
            assert drv.Context.get_current() is other
        finally:
            other.pop()
            other.detach()
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_a_launched_graph_outlives_its_last_reference_until_it_finishes(fake_lib):
    run(fake_lib, """
        g = drv.Graph()
        seen = []
        g.add_host_node(lambda: seen.append(1))
        s = drv.Stream()
        before = counts()["execs"]
        exe = g.instantiate()
        fk.set_not_ready(True)           # the launch is "still running"
        exe.launch(s)
        del exe, g
        gc.collect()
        assert counts()["execs"] == before + 1, counts()   # kept: its nodes' data lives there
        fk.set_not_ready(False)          # finished
        s.synchronize()
        gc.collect()
        assert counts()["execs"] == before, counts()
    """)
