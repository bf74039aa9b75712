"""Pitched memory, 2-D/3-D copies, CUDA arrays, texture and surface objects
against the fake libcuda (tests/fake_cuda/fake_array.c).

The fake records each structure gpuarr hands the driver byte for byte;
these scenarios read them back through ctypes structures declared here
from cuda.h (independently of gpuarr's Cython declarations) and check
every field, and check data moved through fake memory against numpy.
Each scenario runs in a fresh interpreter, as in tests/test_driver_fake.py.
"""
import textwrap

from test_driver_fake import check

STRUCTS = r"""
import ctypes
from ctypes import c_size_t as S, c_int as I, c_uint as U, c_void_p as P, c_ulonglong as D, c_float as F

class MEMCPY2D(ctypes.Structure):
    _fields_ = [("srcXInBytes", S), ("srcY", S), ("srcMemoryType", I), ("srcHost", P),
                ("srcDevice", D), ("srcArray", P), ("srcPitch", S),
                ("dstXInBytes", S), ("dstY", S), ("dstMemoryType", I), ("dstHost", P),
                ("dstDevice", D), ("dstArray", P), ("dstPitch", S),
                ("WidthInBytes", S), ("Height", S)]

def _side3(p, ctx):
    return [(p + "XInBytes", S), (p + "Y", S), (p + "Z", S), (p + "LOD", S),
            (p + "MemoryType", I), (p + "Host", P), (p + "Device", D), (p + "Array", P),
            (ctx if ctx.startswith("reserved") else p + ctx, P), (p + "Pitch", S), (p + "Height", S)]

class MEMCPY3D(ctypes.Structure):
    _fields_ = _side3("src", "reserved0") + _side3("dst", "reserved1") + [
        ("WidthInBytes", S), ("Height", S), ("Depth", S)]

class MEMCPY3D_PEER(ctypes.Structure):
    _fields_ = _side3("src", "Context") + _side3("dst", "Context") + [
        ("WidthInBytes", S), ("Height", S), ("Depth", S)]

class ARRAY_DESC(ctypes.Structure):
    _fields_ = [("Width", S), ("Height", S), ("Format", I), ("NumChannels", U)]

class ARRAY3D_DESC(ctypes.Structure):
    _fields_ = [("Width", S), ("Height", S), ("Depth", S), ("Format", I),
                ("NumChannels", U), ("Flags", U)]

class _LIN(ctypes.Structure):
    _fields_ = [("devPtr", D), ("format", I), ("numChannels", U), ("sizeInBytes", S)]

class _P2D(ctypes.Structure):
    _fields_ = [("devPtr", D), ("format", I), ("numChannels", U), ("width", S),
                ("height", S), ("pitchInBytes", S)]

class _RES(ctypes.Union):
    _fields_ = [("hArray", P), ("linear", _LIN), ("pitch2D", _P2D), ("reserved", I * 32)]

class RES_DESC(ctypes.Structure):
    _fields_ = [("resType", I), ("res", _RES), ("flags", U)]

class TEX_DESC(ctypes.Structure):
    _fields_ = [("addressMode", I * 3), ("filterMode", I), ("flags", U),
                ("maxAnisotropy", U), ("mipmapFilterMode", I), ("mipmapLevelBias", F),
                ("minMipmapLevelClamp", F), ("maxMipmapLevelClamp", F),
                ("borderColor", F * 4), ("reserved", I * 12)]

class VIEW_DESC(ctypes.Structure):
    _fields_ = [("format", I), ("width", S), ("height", S), ("depth", S),
                ("firstMipmapLevel", U), ("lastMipmapLevel", U), ("firstLayer", U),
                ("lastLayer", U), ("reserved", U * 16)]

assert ctypes.sizeof(MEMCPY2D) == 128 and ctypes.sizeof(MEMCPY3D) == 200
assert ctypes.sizeof(RES_DESC) == 144 and ctypes.sizeof(TEX_DESC) == 104
assert ctypes.sizeof(VIEW_DESC) == 112

fk.lib.fake_array_last.restype = ctypes.c_longlong
fk.lib.fake_array_bytes.restype = ctypes.c_longlong
fk.lib.fake_array_bytes.argtypes = [P, P, ctypes.c_longlong]
fk.lib.fake_array_last_copy.restype = P

def last(kind, cls):
    out = cls()
    n = fk.lib.fake_array_last(kind, ctypes.byref(out), ctypes.sizeof(out))
    assert n == ctypes.sizeof(out), (n, cls)
    return out

def last_view():
    out = VIEW_DESC()
    n = fk.lib.fake_array_last(6, ctypes.byref(out), ctypes.sizeof(out))
    return None if n < 0 else out

def last_copy():
    buf = ctypes.create_string_buffer(64)
    ctxs = (P * 2)()
    stream = fk.lib.fake_array_last_copy(buf, 64, ctxs)
    return buf.value.decode(), stream or 0, (ctxs[0] or 0, ctxs[1] or 0)

NAMES = ("live_arrays live_tex live_surf arrays_created arrays_destroyed "
         "wrong_context_array_destroys tex_created tex_destroyed surf_created "
         "surf_destroyed copies_2d copies_3d copies_peer").split()

def acounters():
    out = (ctypes.c_longlong * 16)()
    n = fk.lib.fake_array_counters(out, 16)
    return dict(zip(NAMES, out[:n]))

def array_bytes(ary):
    n = fk.lib.fake_array_bytes(ary.handle, None, 0)
    buf = (ctypes.c_ubyte * n)()
    fk.lib.fake_array_bytes(ary.handle, buf, n)
    return bytes(buf)

def addr(a):
    return a.__array_interface__["data"][0]

def raises(exc, fn, *words):
    try:
        fn()
    except exc as e:
        msg = str(e)
        for w in words:
            assert w in msg, (w, msg)
        return e
    raise AssertionError("%s not raised" % exc.__name__)
"""


def run(fake_lib, code):
    return check(fake_lib, STRUCTS + textwrap.dedent(code))


# ---------------------------------------------------------------------------
# pitched memory and 2-D memsets
# ---------------------------------------------------------------------------

def test_mem_alloc_pitch_and_2d_memsets_move_the_right_bytes(fake_lib):
    run(fake_lib, """
        alloc, pitch = drv.mem_alloc_pitch(100, 7, 4)
        assert pitch == 512 and alloc.size == 512 * 7, (pitch, alloc)
        drv.memset_d8(alloc, 0, alloc.size)
        drv.memset_d2d32(int(alloc) + 8, pitch, 0xDEADBEEF, 5, 3)
        drv.memset_d2d16_async(int(alloc) + pitch * 4, pitch, 0x1234, 3, 2)
        drv.memset_d2d8(int(alloc) + pitch * 6 + 1, pitch, 7, 9, 1)
        got = np.empty(alloc.size, np.uint8)
        drv.memcpy_dtoh(got, alloc)
        want = np.zeros((7, 512), np.uint8)
        want[0:3, 8:28] = np.frombuffer(np.uint32(0xDEADBEEF).tobytes() * 5, np.uint8)
        want[4:6, 0:6] = np.frombuffer(np.uint16(0x1234).tobytes() * 3, np.uint8)
        want[6, 1:10] = 7
        assert (got.reshape(7, 512) == want).all()
        raises(ValueError, lambda: drv.mem_alloc_pitch(100, 7, 3), "access_size")
        raises(ValueError, lambda: drv.mem_alloc_pitch(0, 7, 4), "width and height")
        # extents checked against the allocation before the call
        e0 = fk["errors"]
        raises(ValueError, lambda: drv.memset_d2d8(alloc, pitch, 1, 513, 2), "exceeds pitch")
        raises(ValueError, lambda: drv.memset_d2d32(alloc, pitch, 1, 4, 8), "do not fit")
        raises(ValueError, lambda: drv.memset_d2d16_async(alloc, pitch, 1, 257, 2), "width")
        assert fk["errors"] == e0, fk.last_error()
        # one row may be as wide as the allocation
        drv.memset_d2d8(alloc, 1, 3, alloc.size, 1)
    """)


# ---------------------------------------------------------------------------
# Memcpy2D
# ---------------------------------------------------------------------------

def test_memcpy2d_host_to_pitched_device_and_back_packs_every_field(fake_lib):
    run(fake_lib, """
        rng = np.random.default_rng(1)
        host = rng.integers(0, 255, (9, 37), dtype=np.uint8)
        alloc, pitch = drv.mem_alloc_pitch(64, 12, 4)
        drv.memset_d8(alloc, 0, alloc.size)
        c = drv.Memcpy2D()
        c.set_src_host(host)
        c.set_dst_device(alloc)
        c.src_x_in_bytes, c.src_y, c.src_pitch = 3, 2, 37
        c.dst_x_in_bytes, c.dst_y, c.dst_pitch = 5, 1, pitch
        c.width_in_bytes, c.height = 31, 6
        c()
        p = last(0, MEMCPY2D)
        assert (p.srcXInBytes, p.srcY, p.srcMemoryType, p.srcHost, p.srcDevice,
                p.srcArray, p.srcPitch) == (3, 2, 1, addr(host), 0, None, 37), p
        assert (p.dstXInBytes, p.dstY, p.dstMemoryType, p.dstHost, p.dstDevice,
                p.dstArray, p.dstPitch) == (5, 1, 2, None, int(alloc), None, pitch)
        assert (p.WidthInBytes, p.Height) == (31, 6)
        assert last_copy()[0] == "cuMemcpy2D_v2"
        dev = np.empty((12, pitch), np.uint8)
        drv.memcpy_dtoh(dev, alloc)
        want = np.zeros((12, pitch), np.uint8)
        want[1:7, 5:36] = host[2:8, 3:34]
        assert (dev == want).all()

        # back to the host, unaligned, then on a stream
        out = np.full((6, 40), 0xEE, np.uint8)
        b = drv.Memcpy2D()
        b.set_src_device(alloc)
        b.src_x_in_bytes, b.src_y, b.src_pitch = 5, 1, pitch
        b.set_dst_host(out)
        b.dst_pitch = 40
        b.width_in_bytes, b.height = 31, 6
        b(aligned=False)
        assert last_copy()[0] == "cuMemcpy2DUnaligned_v2"
        assert (out[:, :31] == host[2:8, 3:34]).all() and (out[:, 31:] == 0xEE).all()
        s = drv.Stream()
        out[:] = 0
        b(s)
        name, stream, _ = last_copy()
        assert (name, stream) == ("cuMemcpy2DAsync_v2", s.handle)
        assert (out[:, :31] == host[2:8, 3:34]).all()
        raises(ValueError, lambda: b(stream=s, aligned=False),
               "unaligned")
        assert "host" in repr(b) and "device" in repr(b)
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_memcpy2d_checks_each_side_before_the_call(fake_lib):
    run(fake_lib, """
        host = np.zeros((4, 16), np.uint8)
        alloc = drv.mem_alloc(64)
        c = drv.Memcpy2D()
        c.width_in_bytes, c.height = 16, 4
        raises(ValueError, c, "src is not set")
        c.set_src_host(host)
        raises(ValueError, c, "dst is not set")
        c.set_dst_device(alloc)
        c.src_pitch, c.dst_pitch = 16, 16
        n0 = acounters()["copies_2d"]
        c()                                   # exactly fits both
        c.src_y = 1
        raises(ValueError, c, "src", "ends at byte 80 of a 64-byte host buffer")
        c.src_y, c.dst_x_in_bytes = 0, 1
        raises(ValueError, c, "dst_pitch (16 bytes) is less than dst_x_in_bytes")
        c.dst_x_in_bytes, c.dst_pitch = 0, 17
        raises(ValueError, c, "dst", "device allocation")
        # a read-only buffer cannot be a destination
        raises(ValueError, lambda: c.set_dst_host(b"x" * 64), "writable")
        raises(TypeError, lambda: c.set_src_host(3.5), "host buffer")
        raises(TypeError, lambda: c.set_src_array(alloc))
        raises(TypeError, lambda: c(1, 2))
        assert acounters()["copies_2d"] == n0 + 1
        # the host buffer is held by the object
        import sys
        buf = np.zeros(64, np.uint8)
        before = sys.getrefcount(buf)
        c.set_src_host(buf)
        assert sys.getrefcount(buf) > before
        c.set_src_device(alloc)
        assert sys.getrefcount(buf) == before
    """)


# ---------------------------------------------------------------------------
# Memcpy3D, Memcpy3DPeer, memcpy_peer
# ---------------------------------------------------------------------------

def test_memcpy3d_host_to_array_to_host(fake_lib):
    run(fake_lib, """
        rng = np.random.default_rng(2)
        host = rng.random((5, 6, 7), dtype=np.float32)
        ary = drv.Array(drv.ArrayDescriptor3D(4, 3, 2, drv.array_format.FLOAT, 1))
        c = drv.Memcpy3D()
        c.set_src_host(host)
        c.src_x_in_bytes, c.src_y, c.src_z = 4 * 2, 1, 3
        c.src_pitch, c.src_height = 7 * 4, 6
        c.set_dst_array(ary)
        c.width_in_bytes, c.height, c.depth = 16, 3, 2
        c()
        p = last(1, MEMCPY3D)
        assert (p.srcXInBytes, p.srcY, p.srcZ, p.srcLOD, p.srcMemoryType, p.srcHost,
                p.srcPitch, p.srcHeight) == (8, 1, 3, 0, 1, addr(host), 28, 6), p
        assert (p.dstMemoryType, p.dstArray, p.dstHost, p.dstDevice) == (3, ary.handle, None, 0)
        assert (p.reserved0, p.reserved1) == (None, None)
        assert (p.WidthInBytes, p.Height, p.Depth) == (16, 3, 2)
        want = host[3:5, 1:4, 2:6]
        assert array_bytes(ary) == np.ascontiguousarray(want).tobytes()
        back = np.zeros((2, 3, 4), np.float32)
        b = drv.Memcpy3D()
        b.set_src_array(ary)
        b.set_dst_host(back)
        b.dst_pitch, b.dst_height = 16, 3
        b.width_in_bytes, b.height, b.depth = 16, 3, 2
        b(drv.Stream())
        assert last_copy()[0] == "cuMemcpy3DAsync_v2"
        assert (back == want).all()
        # array extents
        b.src_z = 1
        raises(ValueError, b, "src_z + depth = 3 exceeds the array's depth 2")
        b.src_z, b.width_in_bytes = 0, 20
        raises(ValueError, b, "src_x_in_bytes + width_in_bytes = 20")
        b.width_in_bytes, b.dst_height = 16, 2
        raises(ValueError, b, "dst_height (2 rows) is less than dst_y + height (3)")
        assert fk["errors"] == 0, fk.last_error()
        c2 = drv.Memcpy2D()
        assert not hasattr(c2, "src_z") and not hasattr(c2, "depth")
    """)


def test_memcpy3d_peer_and_memcpy_peer_pass_the_contexts(fake_lib):
    run(fake_lib, """
        other = drv.Device(0).make_context()
        b = drv.mem_alloc(256)
        drv.memcpy_htod(b, np.arange(256, dtype=np.uint8))
        other.pop()
        a = drv.mem_alloc(256)
        drv.memset_d8(a, 0, 256)
        drv.memcpy_peer(a, b, 100, src_context=other)
        name, _, ctxs = last_copy()
        assert name == "cuMemcpyPeer" and ctxs == (ctx.handle, other.handle), (ctxs,)
        got = np.empty(256, np.uint8)
        drv.memcpy_dtoh(got, a)
        assert (got[:100] == np.arange(100)).all() and (got[100:] == 0).all()
        s = drv.Stream()
        drv.memcpy_peer_async(a, b, 256, ctx, other, stream=s)
        assert last_copy()[0] == "cuMemcpyPeerAsync"
        raises(ValueError, lambda: drv.memcpy_peer(a, b, 257), "257 bytes do not fit")
        raises(TypeError, lambda: drv.memcpy_peer(a, b, 4, dest_context=5), "dest_context")

        c = drv.Memcpy3DPeer()
        c.set_src_device(b)
        c.set_src_context(other)
        c.src_pitch = 16
        out = np.zeros((4, 8), np.uint8)
        c.set_dst_host(out)
        c.dst_pitch, c.dst_height = 8, 4
        c.src_height = 16
        c.src_x_in_bytes, c.src_y = 2, 3
        c.width_in_bytes, c.height = 8, 4
        c()
        p = last(1, MEMCPY3D_PEER)
        assert (p.srcContext, p.dstContext) == (other.handle, ctx.handle), (p.srcContext,)
        assert (p.srcDevice, p.srcMemoryType, p.srcPitch, p.srcXInBytes, p.srcY) == \\
            (int(b), 2, 16, 2, 3)
        want = np.arange(256, dtype=np.uint8).reshape(16, 16)[3:7, 2:10]
        assert (out == want).all()
        c(s)
        assert last_copy()[0] == "cuMemcpy3DPeerAsync"
        raises(TypeError, lambda: c.set_dst_context("ctx"), "set_dst_context")
        del c
        other.detach()
        assert fk["errors"] == 0, fk.last_error()
    """)


# ---------------------------------------------------------------------------
# arrays
# ---------------------------------------------------------------------------

def test_array_descriptors_are_packed_and_read_back(fake_lib):
    run(fake_lib, """
        d = drv.ArrayDescriptor()
        d.width, d.height, d.format, d.num_channels = 33, 5, drv.array_format.SIGNED_INT16, 2
        a = drv.Array(d)
        p = last(2, ARRAY_DESC)
        assert (p.Width, p.Height, p.Format, p.NumChannels) == (33, 5, 0x09, 2)
        g = a.get_descriptor()
        assert (g.width, g.height, g.format, g.num_channels) == (33, 5, drv.array_format.SIGNED_INT16, 2)
        assert a.handle and (a.width, a.height, a.depth) == (33, 5, 0)
        F = drv.array3d_flags
        d3 = drv.ArrayDescriptor3D(16, 16, 6, drv.array_format.HALF, 4,
                                   F.CUBEMAP | F.SURFACE_LDST)
        b = drv.Array(d3)
        p = last(3, ARRAY3D_DESC)
        assert (p.Width, p.Height, p.Depth, p.Format, p.NumChannels, p.Flags) == \\
            (16, 16, 6, 0x10, 4, 6)
        g = b.get_descriptor_3d()
        assert (g.width, g.height, g.depth, g.format, g.num_channels, g.flags) == \\
            (16, 16, 6, drv.array_format.HALF, 4, 6)
        layered = drv.Array(drv.ArrayDescriptor3D(8, 0, 3, drv.array_format.FLOAT, 1, F.LAYERED))
        assert acounters()["live_arrays"] == 3
        e0 = fk["errors"]
        raises(ValueError, lambda: drv.Array(drv.ArrayDescriptor(4, 4, 0x20, 3)), "num_channels")
        raises(ValueError, lambda: drv.Array(drv.ArrayDescriptor(0, 4)), "width")
        raises(TypeError, lambda: drv.Array((4, 4)), "ArrayDescriptor")
        assert fk["errors"] == e0
        b.free()
        b.free()
        raises(ValueError, b.get_descriptor_3d, "freed")
        del a, layered
        gc.collect()
        c = acounters()
        assert c["live_arrays"] == 0 and c["wrong_context_array_destroys"] == 0, c
    """)


def test_array_destroyed_in_its_own_context(fake_lib):
    run(fake_lib, """
        other = drv.Device(0).make_context()
        a = drv.Array(drv.ArrayDescriptor(8, 0, drv.array_format.FLOAT, 1))
        other.pop()
        assert drv.Context.get_current() is ctx
        del a
        gc.collect()
        c = acounters()
        assert c["live_arrays"] == 0 and c["wrong_context_array_destroys"] == 0, c
        other.detach()
    """)


def test_1d_array_copies(fake_lib):
    run(fake_lib, """
        rng = np.random.default_rng(3)
        ary = drv.Array(drv.ArrayDescriptor(50, 0, drv.array_format.UNSIGNED_INT16, 2))
        src = rng.integers(0, 65535, 40, dtype=np.uint16)
        drv.memcpy_htoa(ary, 8, src)
        out = np.zeros(40, np.uint16)
        drv.memcpy_atoh(out, ary, 8)
        assert (out == src).all()
        assert array_bytes(ary)[8:88] == src.tobytes()
        dev = drv.mem_alloc(200)
        drv.memcpy_atod(dev, ary, 0, 200)
        drv.memcpy_dtoa(ary, 0, int(dev) + 8, 100)
        raw = np.empty(200, np.uint8)
        drv.memcpy_dtoh(raw, dev)
        assert array_bytes(ary)[:100] == raw[8:108].tobytes()
        e0 = fk["errors"]
        raises(ValueError, lambda: drv.memcpy_htoa(ary, 121, src), "exceed the array's 200 bytes")
        raises(ValueError, lambda: drv.memcpy_dtoa(ary, 0, dev, 201), "201 bytes do not fit")
        two_d = drv.Array(drv.ArrayDescriptor(4, 4, drv.array_format.FLOAT, 1))
        raises(ValueError, lambda: drv.memcpy_atoh(out, two_d, 0), "1-D arrays only")
        raises(TypeError, lambda: drv.memcpy_htoa(None, 0, src))
        assert fk["errors"] == e0
    """)


def test_np_to_array_and_format_mapping(fake_lib):
    run(fake_lib, """
        rng = np.random.default_rng(4)
        assert drv.dtype_to_array_format(np.int8) == drv.array_format.SIGNED_INT8
        assert drv.dtype_to_array_format("f2") == drv.array_format.HALF
        assert drv.array_format_to_dtype(drv.array_format.UNSIGNED_INT32) == np.uint32
        for bad in (np.float64, np.int64, np.bool_, np.complex64):
            raises(TypeError, lambda: drv.dtype_to_array_format(bad), "no CUDA array format")
        a = rng.random((5, 7), dtype=np.float32)
        ary = drv.np_to_array(a, "C")
        assert (ary.width, ary.height, ary.depth, ary.format) == (7, 5, 0, drv.array_format.FLOAT)
        assert array_bytes(ary) == a.tobytes()
        f = np.asfortranarray(rng.integers(0, 99, (6, 3), dtype=np.int16))
        ary = drv.np_to_array(f, "F")
        assert (ary.width, ary.height) == (6, 3)   # F: the first axis is x
        assert array_bytes(ary) == np.ascontiguousarray(f.T).tobytes()
        v = rng.random((3, 4, 5), dtype=np.float32)
        ary = drv.np_to_array(v, "C", allowSurfaceBind=True)
        assert (ary.width, ary.height, ary.depth, ary.flags) == (5, 4, 3, 2)
        assert array_bytes(ary) == v.tobytes()
        last(1, MEMCPY3D)   # went through Memcpy3D
        d = rng.random(9)
        ary = drv.np_to_array(d, "C")
        assert (ary.width, ary.num_channels, ary.format) == (9, 2, drv.array_format.SIGNED_INT32)
        assert array_bytes(ary) == d.tobytes()
        raises(ValueError, lambda: drv.np_to_array(a, "K"), "order")
        raises(ValueError, lambda: drv.np_to_array(np.zeros((2, 2, 2, 2), np.float32), "C"), "1 to 3")
        raises(ValueError, lambda: drv.np_to_array(np.zeros((0, 3), np.float32), "C"), "empty")
        raises(TypeError, lambda: drv.np_to_array(np.zeros(3, np.int64), "C"), "int64")
        m = rng.random((4, 6), dtype=np.float32)
        ary = drv.matrix_to_array(m)
        assert (ary.width, ary.height) == (6, 4) and array_bytes(ary) == m.tobytes()
        raises(TypeError, lambda: drv.matrix_to_array(m.astype(np.float64)), "float64")
        ary = drv.matrix_to_array(m.astype(np.float64), allow_double_hack=True)
        assert ary.num_channels == 2
        raises(ValueError, lambda: drv.matrix_to_array(m[0]), "2-D")
        assert fk["errors"] == 0, fk.last_error()
    """)


# ---------------------------------------------------------------------------
# texture and surface objects
# ---------------------------------------------------------------------------

def test_texture_over_an_array_packs_the_descriptors(fake_lib):
    run(fake_lib, """
        A, Fm = drv.address_mode, drv.filter_mode
        ary = drv.Array(drv.ArrayDescriptor3D(8, 8, 4, drv.array_format.UNSIGNED_INT8, 4,
                                              drv.array3d_flags.LAYERED))
        view = drv.ResourceViewDescriptor(drv.resource_view_format.UINT_4X8, 8, 8, 2,
                                          first_layer=1, last_layer=2)
        t = drv.TextureObject(ary, address_mode=(A.WRAP, A.MIRROR), filter_mode=Fm.LINEAR,
                              normalized_coordinates=True,
                              read_mode=drv.texture_read_mode.NORMALIZED_FLOAT,
                              border_color=(0.5, 1, 2, 3), max_anisotropy=4, view=view)
        r = last(4, RES_DESC)
        assert (r.resType, r.res.hArray, r.flags) == (0, ary.handle, 0)
        x = last(5, TEX_DESC)
        assert list(x.addressMode) == [0, 2, 2] and x.filterMode == 1
        assert x.flags == 0x02, x.flags       # normalized, not read as integer
        assert x.maxAnisotropy == 4 and list(x.borderColor) == [0.5, 1, 2, 3]
        v = last_view()
        assert (v.format, v.width, v.height, v.depth, v.firstLayer, v.lastLayer) == \\
            (0x03, 8, 8, 2, 1, 2)
        assert int(t) == t.handle and t.handle and t.resource is ary
        # element-type reads of an integer format set CU_TRSF_READ_AS_INTEGER
        t2 = drv.TextureObject(ary)
        x = last(5, TEX_DESC)
        assert x.flags == 0x01 and list(x.addressMode) == [1, 1, 1] and x.filterMode == 0
        assert last_view() is None
        # the array lives as long as the texture
        del ary
        gc.collect()
        assert acounters()["live_arrays"] == 1
        e0 = fk["errors"]
        raises(ValueError, lambda: drv.TextureObject(t.resource, address_mode=A.WRAP),
               "normalized_coordinates")
        raises(ValueError, lambda: drv.TextureObject(t.resource, filter_mode=Fm.LINEAR),
               "LINEAR")
        raises(ValueError, lambda: drv.TextureObject(t.resource, address_mode=7), "address_mode")
        raises(ValueError, lambda: drv.TextureObject(t.resource, address_mode=(1, 1, 1, 1)),
               "1 to 3")
        raises(ValueError, lambda: drv.TextureObject(t.resource, border_color=(1, 2)),
               "border_color")
        raises(ValueError, lambda: drv.TextureObject(t.resource, dtype=np.uint8), "dtype")
        raises(TypeError, lambda: drv.TextureObject(t.resource, view=(1, 2)), "view")
        assert fk["errors"] == e0
        t.destroy()
        t.destroy()
        m = drv.module_from_buffer(image("kernel k 8"))
        launches = fk["launches"]
        raises(ValueError, lambda: m.get_function("k")(t, block=(1, 1, 1)), "destroyed")
        assert fk["launches"] == launches
        del t, t2
        gc.collect()
        c = acounters()
        assert c["live_tex"] == 0 and c["live_arrays"] == 0, c
    """)


def test_texture_over_linear_and_pitched_memory(fake_lib):
    run(fake_lib, """
        buf = drv.mem_alloc(4096)
        t = drv.TextureObject(buf, np.float32, num_channels=2)
        r = last(4, RES_DESC)
        assert (r.resType, r.res.linear.devPtr, r.res.linear.format, r.res.linear.numChannels,
                r.res.linear.sizeInBytes) == (2, int(buf), 0x20, 2, 4096)
        assert last(5, TEX_DESC).flags == 0    # floats: no READ_AS_INTEGER
        drv.TextureObject(buf, format=drv.array_format.SIGNED_INT32, nbytes=1024)
        assert last(4, RES_DESC).res.linear.sizeInBytes == 1024
        e0 = fk["errors"]
        raises(ValueError, lambda: drv.TextureObject(buf, np.float32, nbytes=4100),
               "nbytes (4100) exceeds the 4096-byte")
        raises(ValueError, lambda: drv.TextureObject(int(buf) + 4, np.float32, nbytes=64),
               "TEXTURE_ALIGNMENT")
        raises(ValueError, lambda: drv.TextureObject(int(buf), np.float32), "nbytes is needed")
        raises(ValueError, lambda: drv.TextureObject(buf, np.float32, nbytes=6), "whole number")
        raises(TypeError, lambda: drv.TextureObject(buf), "dtype= or format=")
        raises(TypeError, lambda: drv.TextureObject(buf, np.float64), "float64")
        raises(ValueError, lambda: drv.TextureObject(buf, np.float32, num_channels=3), "num_channels")
        raises(ValueError, lambda: drv.TextureObject(buf, np.float32, width=4), "pitch=")

        alloc, pitch = drv.mem_alloc_pitch(100, 10, 4)
        t = drv.TextureObject(alloc, np.uint16, width=50, height=10, pitch=pitch,
                              filter_mode=drv.filter_mode.LINEAR,
                              read_mode=drv.texture_read_mode.NORMALIZED_FLOAT)
        r = last(4, RES_DESC)
        p = r.res.pitch2D
        assert (r.resType, p.devPtr, p.format, p.numChannels, p.width, p.height,
                p.pitchInBytes) == (3, int(alloc), 0x02, 1, 50, 10, pitch)
        raises(ValueError, lambda: drv.TextureObject(alloc, np.uint16, width=50, height=10,
                                                     pitch=100), "pitch (100 bytes)")
        raises(ValueError, lambda: drv.TextureObject(alloc, np.uint16, width=50, height=11,
                                                     pitch=pitch), "height")
        raises(ValueError, lambda: drv.TextureObject(alloc, np.float32, width=129, height=2,
                                                     pitch=pitch), "width")
        raises(ValueError, lambda: drv.TextureObject(alloc, np.uint16, height=2, pitch=pitch),
               "width= and height=")
        raises(ValueError, lambda: drv.TextureObject(
            alloc, np.int32, width=8, height=2, pitch=pitch, filter_mode=drv.filter_mode.LINEAR,
            read_mode=drv.texture_read_mode.NORMALIZED_FLOAT), "LINEAR")
        raises(ValueError, lambda: drv.TextureObject(alloc, np.float32, view=drv.ResourceViewDescriptor()),
               "view")
        assert fk["errors"] == e0, fk.last_error()
    """)


def test_surface_objects_and_kernel_arguments(fake_lib):
    run(fake_lib, """
        plain = drv.Array(drv.ArrayDescriptor(8, 8, drv.array_format.FLOAT, 1))
        raises(ValueError, lambda: drv.SurfaceObject(plain), "SURFACE_LDST")
        raises(TypeError, lambda: drv.SurfaceObject(drv.mem_alloc(16)), "Array")
        ary = drv.Array(drv.ArrayDescriptor3D(8, 8, 0, drv.array_format.FLOAT, 1,
                                              drv.array3d_flags.SURFACE_LDST))
        s = drv.SurfaceObject(ary)
        r = last(4, RES_DESC)
        assert (r.resType, r.res.hArray) == (0, ary.handle)
        t = drv.TextureObject(ary)
        mod = drv.module_from_buffer(image("kernel texk 8,8,4"))
        f = mod.get_function("texk")
        f(t, s, np.int32(5), block=(1, 1, 1))
        want = expected_params([np.uint64(t.handle), np.uint64(s.handle), np.int32(5)])
        assert fk.last_launch()["params"] == want
        f.prepare("QQi")
        f.prepared_call((1, 1), (1, 1, 1), int(t), int(s), 6)
        assert fk.last_launch()["params"][:16] == want[:16]
        c = acounters()
        assert (c["live_tex"], c["live_surf"]) == (1, 1), c
        del t, s
        gc.collect()
        c = acounters()
        assert (c["live_tex"], c["live_surf"], c["tex_destroyed"], c["surf_destroyed"]) == \\
            (0, 0, 1, 1), c
        try:
            mod.get_texref("tex")
        except drv.NotSupportedError as e:
            assert "TextureObject" in str(e), e
        else:
            raise AssertionError("get_texref did not raise")
        assert fk["errors"] == 0, fk.last_error()
    """)


def test_exit_with_live_arrays_and_textures_is_clean(fake_lib):
    r = run(fake_lib, """
        ary = drv.np_to_array(np.ones((4, 4), np.float32), "C")
        t = drv.TextureObject(ary)
        s = drv.SurfaceObject(drv.np_to_array(np.ones((4, 4), np.float32), "C", True))
        c = drv.Memcpy2D()
        c.set_src_host(np.zeros(4))
    """)
    assert r.stderr == "", r.stderr
