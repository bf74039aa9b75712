"""Texture and surface objects on a real GPU (the kernels, fixtures and
helpers of tests/test_array_gpu.py): texture reads in kernels, point and
linear filtering against a host computation of the same interpolation,
normalized coordinates, every address mode, normalized-float reads of
8/16-bit integers, 3-D and layered textures, surface writes then reads,
kernel argument checks, get_texref's error and every bad-input error."""
import numpy as np
import pytest

from test_array_gpu import KERNELS, rng, random_of, to_dev, from_dev, launch  # noqa: F401

pytestmark = pytest.mark.gpu


# ---------------------------------------------------------------------------
# textures
# ---------------------------------------------------------------------------

def _lin_weights(x, n):
    """Texel indices and weights of CUDA's linear filtering at unnormalized
    coordinate x (9-bit fixed point weights), clamped to [0, n)."""
    xb = x - 0.5
    i = np.floor(xb).astype(np.int64)
    a = xb - i
    a = np.round(a * 256) / 256
    return np.clip(i, 0, n - 1), np.clip(i + 1, 0, n - 1), a


def test_texture_linear_memory_fetch(drv, mod):
    g = rng()
    n = 1000
    data = random_of(np.float32, n, g)
    d = to_dev(drv, data)
    t = drv.TextureObject(d, np.float32)
    out = drv.mem_alloc(4 * n)
    drv.memset_d32(out, 0x7FC00000, n)
    launch(mod.get_function("fetch1d"), n, out, t)
    assert (from_dev(drv, out, n, np.float32) == data).all()
    ints = random_of(np.int32, n, g)
    di = to_dev(drv, ints)
    ti = drv.TextureObject(di, format=drv.array_format.SIGNED_INT32, nbytes=4 * 600)
    outi = drv.mem_alloc(4 * n)
    drv.memset_d32(outi, 0x13, n)
    launch(mod.get_function("fetch1d_int"), n, outi, ti)
    got = from_dev(drv, outi, n, np.int32)
    assert (got[:600] == ints[:600]).all() and (got[600:] == 0).all()   # past the end: 0
    assert t.resource is d and int(t) == t.handle


def test_texture_point_and_linear_1d_array(drv, mod):
    g = rng()
    n = 37
    data = random_of(np.float32, n, g)
    ary = drv.np_to_array(data, "C")
    xr = g.uniform(-3, n + 3, 500)
    xr = xr[np.abs(xr - np.round(xr)) > 0.01]      # away from texel edges
    xs = np.concatenate([np.arange(n) + 0.5, xr]).astype(np.float32)
    dx = to_dev(drv, xs)
    out = drv.mem_alloc(4 * len(xs))
    f = mod.get_function("sample1d")
    tp = drv.TextureObject(ary)
    launch(f, len(xs), out, tp, dx)
    idx = np.clip(np.floor(xs).astype(int), 0, n - 1)
    assert (from_dev(drv, out, len(xs), np.float32) == data[idx]).all()
    tl = drv.TextureObject(ary, filter_mode=drv.filter_mode.LINEAR)
    launch(f, len(xs), out, tl, dx)
    i0, i1, a = _lin_weights(xs.astype(np.float64), n)
    want = (1 - a) * data[i0] + a * data[i1]
    tol = np.abs(data[i1] - data[i0]) / 256 + 1e-4 * np.abs(want) + 1e-5
    assert (np.abs(from_dev(drv, out, len(xs), np.float32) - want) <= tol).all()


def test_texture_bilinear_2d_pitched_memory(drv, mod):
    g = rng()
    w, h = 45, 21
    data = random_of(np.float32, (h, w), g)
    alloc, pitch = drv.mem_alloc_pitch(w * 4, h, 4)
    c = drv.Memcpy2D()
    c.set_src_host(data)
    c.src_pitch = w * 4
    c.set_dst_device(alloc)
    c.dst_pitch = pitch
    c.width_in_bytes, c.height = w * 4, h
    c()
    t = drv.TextureObject(alloc, np.float32, width=w, height=h, pitch=pitch,
                          filter_mode=drv.filter_mode.LINEAR)
    m = 2000
    xs = g.uniform(-2, w + 2, m).astype(np.float32)
    ys = g.uniform(-2, h + 2, m).astype(np.float32)
    out = drv.mem_alloc(4 * m)
    launch(mod.get_function("sample2d"), m, out, t, to_dev(drv, xs), to_dev(drv, ys))
    x0, x1, a = _lin_weights(xs.astype(np.float64), w)
    y0, y1, b = _lin_weights(ys.astype(np.float64), h)
    want = ((1 - a) * (1 - b) * data[y0, x0] + a * (1 - b) * data[y0, x1]
            + (1 - a) * b * data[y1, x0] + a * b * data[y1, x1])
    spread = np.max(np.abs(data)) * 2
    got = from_dev(drv, out, m, np.float32)
    assert np.allclose(got, want, rtol=0, atol=spread * 2 / 256), np.max(np.abs(got - want))


@pytest.mark.parametrize("modes", [("WRAP", "CLAMP"), ("MIRROR", "BORDER"),
                                   ("CLAMP", "WRAP"), ("BORDER", "MIRROR")])
def test_texture_address_modes_normalized(drv, mod, modes):
    g = rng()
    w, h = 16, 8
    data = random_of(np.float32, (h, w), g)
    ary = drv.np_to_array(data, "C")
    A = drv.address_mode
    border = (g.uniform(-5, 5), 0.0, 0.0, 0.0)
    t = drv.TextureObject(ary, address_mode=[A[m] for m in modes], normalized_coordinates=True,
                          border_color=border)
    jx = np.arange(-w, 2 * w)
    jy = np.arange(-h, 2 * h)
    JX, JY = np.meshgrid(jx, jy)
    xs = ((JX + 0.5) / w).astype(np.float32).ravel()
    ys = ((JY + 0.5) / h).astype(np.float32).ravel()
    n = len(xs)
    out = drv.mem_alloc(4 * n)
    launch(mod.get_function("sample2d"), n, out, t, to_dev(drv, xs), to_dev(drv, ys))

    def index(j, size, mode):
        if mode == "WRAP":
            return j % size, np.ones_like(j, bool)
        if mode == "CLAMP":
            return np.clip(j, 0, size - 1), np.ones_like(j, bool)
        if mode == "MIRROR":
            r = j % (2 * size)
            return np.where(r < size, r, 2 * size - 1 - r), np.ones_like(j, bool)
        inside = (j >= 0) & (j < size)
        return np.clip(j, 0, size - 1), inside

    ix, okx = index(JX.ravel(), w, modes[0])
    iy, oky = index(JY.ravel(), h, modes[1])
    want = np.where(okx & oky, data[iy, ix], np.float32(border[0]))
    assert (from_dev(drv, out, n, np.float32) == want).all()


@pytest.mark.parametrize("dtype,scale", [(np.uint8, 255.0), (np.int8, 127.0),
                                         (np.uint16, 65535.0), (np.int16, 32767.0)])
def test_texture_normalized_float_reads(drv, mod, dtype, scale):
    g = rng()
    w, h = 19, 9
    data = random_of(dtype, (h, w), g)
    ary = drv.np_to_array(data, "C")
    t = drv.TextureObject(ary, read_mode=drv.texture_read_mode.NORMALIZED_FLOAT)
    X, Y = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    xs, ys = X.astype(np.float32).ravel(), Y.astype(np.float32).ravel()
    n = len(xs)
    out = drv.mem_alloc(4 * n)
    f = mod.get_function("sample2d")
    launch(f, n, out, t, to_dev(drv, xs), to_dev(drv, ys))
    want = np.maximum(data.ravel().astype(np.float64) / scale, -1.0)
    np.testing.assert_allclose(from_dev(drv, out, n, np.float32), want, rtol=1e-6, atol=1e-6)
    # linear filtering of normalized integers, between two texels; the most
    # negative integer is left out here: whether the filter takes it as
    # -1.0 or as min / scale (just below) is the hardware's choice (under
    # compute-sanitizer the unclamped value is seen), not gpuarr's
    if np.dtype(dtype).kind == "i":
        data = np.maximum(data, -int(scale)).astype(dtype)
        ary = drv.np_to_array(data, "C")
    tl = drv.TextureObject(ary, read_mode=drv.texture_read_mode.NORMALIZED_FLOAT,
                           filter_mode=drv.filter_mode.LINEAR)
    xs2 = (X[:, :-1] + 0.25).astype(np.float32).ravel()    # a quarter past texel j: weights 0.75, 0.25
    ys2 = Y[:, :-1].astype(np.float32).ravel()
    m = len(xs2)
    launch(f, m, out, tl, to_dev(drv, xs2), to_dev(drv, ys2))
    v = np.maximum(data.astype(np.float64) / scale, -1.0)
    want = 0.75 * v[:, :-1] + 0.25 * v[:, 1:]
    np.testing.assert_allclose(from_dev(drv, out, m, np.float32), want.ravel(), atol=2e-3)


def test_texture_element_type_uchar_and_float4(drv, mod):
    g = rng()
    w, h = 11, 5
    data = random_of(np.uint8, (h, w), g)
    t = drv.TextureObject(drv.np_to_array(data, "C"))
    X, Y = np.meshgrid(np.arange(w) + 0.5, np.arange(h) + 0.5)
    xs, ys = to_dev(drv, X.astype(np.float32).ravel()), to_dev(drv, Y.astype(np.float32).ravel())
    n = w * h
    out = drv.mem_alloc(n)
    drv.memset_d8(out, 0x5A, n)
    launch(mod.get_function("sample2d_uchar"), n, out, t, xs, ys)
    assert (from_dev(drv, out, n, np.uint8) == data.ravel()).all()
    f4 = random_of(np.float32, (h, w * 4), g)
    ary = drv.Array(drv.ArrayDescriptor(w, h, drv.array_format.FLOAT, 4))
    c = drv.Memcpy2D()
    c.set_src_host(f4)
    c.src_pitch = w * 16
    c.set_dst_array(ary)
    c.width_in_bytes, c.height = w * 16, h
    c()
    t4 = drv.TextureObject(ary)
    out4 = drv.mem_alloc(16 * n)
    launch(mod.get_function("sample2d_f4"), n, out4, t4, xs, ys)
    assert (from_dev(drv, out4, (n, 4), np.float32) == f4.reshape(n, 4)).all()


def test_texture_3d_and_layered(drv, mod):
    g = rng()
    vol = random_of(np.float32, (4, 5, 6), g)
    t = drv.TextureObject(drv.np_to_array(vol, "C"))
    Z, Y, X = np.meshgrid(np.arange(4), np.arange(5), np.arange(6), indexing="ij")
    n = vol.size
    out = drv.mem_alloc(4 * n)
    launch(mod.get_function("sample3d"), n, out, t,
           *(to_dev(drv, (c + 0.5).astype(np.float32).ravel()) for c in (X, Y, Z)))
    assert (from_dev(drv, out, n, np.float32) == vol.ravel()).all()
    lay = drv.Array(drv.ArrayDescriptor3D(6, 5, 4, drv.array_format.FLOAT, 1,
                                          drv.array3d_flags.LAYERED))
    c = drv.Memcpy3D()
    c.set_src_host(vol)
    c.src_pitch, c.src_height = 24, 5
    c.set_dst_array(lay)
    c.width_in_bytes, c.height, c.depth = 24, 5, 4
    c()
    tl = drv.TextureObject(lay)
    launch(mod.get_function("sample_layered"), n, out, tl,
           to_dev(drv, (X + 0.5).astype(np.float32).ravel()),
           to_dev(drv, (Y + 0.5).astype(np.float32).ravel()),
           to_dev(drv, Z.astype(np.int32).ravel()))
    assert (from_dev(drv, out, n, np.float32) == vol.ravel()).all()


def test_texture_errors(drv, context):
    dev = context.get_device()
    palign = dev.get_attribute(drv.device_attribute.TEXTURE_PITCH_ALIGNMENT)
    talign = dev.get_attribute(drv.device_attribute.TEXTURE_ALIGNMENT)
    buf = drv.mem_alloc(1 << 16)
    with pytest.raises(ValueError, match="nbytes"):
        drv.TextureObject(buf, np.float32, nbytes=(1 << 16) + 4)
    with pytest.raises(ValueError, match="TEXTURE_ALIGNMENT"):
        drv.TextureObject(int(buf) + talign // 2, np.float32, nbytes=64)
    with pytest.raises(ValueError, match="TEXTURE_PITCH_ALIGNMENT"):
        drv.TextureObject(buf, np.float32, width=4, height=4, pitch=palign * 4 + 4)
    with pytest.raises(ValueError, match="height"):
        drv.TextureObject(buf, np.float32, width=16, height=(1 << 16) // (palign * 4) + 1,
                          pitch=palign * 4)
    with pytest.raises(ValueError, match="width"):
        drv.TextureObject(buf, np.float32, width=palign + 1, height=2, pitch=palign * 4)
    with pytest.raises(TypeError, match="dtype= or format="):
        drv.TextureObject(buf)
    with pytest.raises(TypeError, match="float64"):
        drv.TextureObject(buf, np.float64)
    ary = drv.np_to_array(np.ones((4, 4), np.int32), "C")
    with pytest.raises(ValueError, match="normalized_coordinates"):
        drv.TextureObject(ary, address_mode=drv.address_mode.WRAP)
    with pytest.raises(ValueError, match="LINEAR"):
        drv.TextureObject(ary, filter_mode=drv.filter_mode.LINEAR)
    with pytest.raises(ValueError, match="address_mode"):
        drv.TextureObject(ary, address_mode=9)
    with pytest.raises(ValueError, match="border_color"):
        drv.TextureObject(ary, border_color=(1.0,))
    with pytest.raises(ValueError, match="Array has its own"):
        drv.TextureObject(ary, np.int32)
    with pytest.raises(TypeError):
        drv.TextureObject("not memory", np.float32, nbytes=4)


# ---------------------------------------------------------------------------
# surfaces, kernel arguments, texture references
# ---------------------------------------------------------------------------

def test_surface_write_then_read(drv, mod):
    g = rng()
    w, h = 29, 13
    data = random_of(np.float32, (h, w), g)
    ary = drv.np_to_array(data, "C", allowSurfaceBind=True)
    s = drv.SurfaceObject(ary)
    assert s.resource is ary and int(s) == s.handle
    mod.get_function("surf_scale")(s, np.float32(3.0), np.int32(w), np.int32(h),
                                   block=(16, 8, 1), grid=((w + 15) // 16, (h + 7) // 8))
    out = drv.mem_alloc(data.nbytes)
    drv.memset_d32(out, 0x7FC00000, data.size)
    mod.get_function("surf_read")(out, s, np.int32(w), np.int32(h),
                                  block=(16, 8, 1), grid=((w + 15) // 16, (h + 7) // 8))
    got = from_dev(drv, out, (h, w), np.float32)
    np.testing.assert_allclose(got, 3.0 * data + 1.0, rtol=1e-6, atol=1e-6)   # fma
    want = got
    back = np.zeros_like(data)
    c = drv.Memcpy2D()
    c.set_src_array(ary)
    c.set_dst_host(back)
    c.dst_pitch = 4 * w
    c.width_in_bytes, c.height = 4 * w, h
    c()
    assert (back == want).all()
    s.destroy()
    s.destroy()


def test_surface_errors(drv):
    plain = drv.np_to_array(np.zeros((4, 4), np.float32), "C")
    with pytest.raises(ValueError, match="SURFACE_LDST"):
        drv.SurfaceObject(plain)
    with pytest.raises(TypeError, match="Array"):
        drv.SurfaceObject(drv.mem_alloc(64))


def test_texture_kernel_argument_size_is_checked(drv, mod):
    ary = drv.np_to_array(np.zeros(8, np.float32), "C")
    t = drv.TextureObject(ary)
    f = mod.get_function("sample1d")
    if f.param_info is None:
        pytest.skip("the driver does not report kernel parameters")
    with pytest.raises(TypeError, match="argument 1"):
        f(drv.mem_alloc(32), np.int32(0), drv.mem_alloc(32), np.int32(8), block=(8, 1, 1))
    assert f.param_info[1][1] == 8
    out = drv.mem_alloc(32)
    f(out, t, to_dev(drv, np.arange(8, dtype=np.float32) + 0.5), np.int32(8), block=(8, 1, 1))


def test_get_texref_points_to_texture_objects(drv, mod):
    with pytest.raises(drv.NotSupportedError, match="TextureObject"):
        mod.get_texref("tex")
    with pytest.raises(drv.NotSupportedError, match="SurfaceObject"):
        mod.get_surfref("surf")


def test_lifetimes_release_in_context(drv, mod):
    """The texture keeps its array alive; both are destroyed without error
    when dropped (the fake libcuda counts the releases and their contexts:
    tests/test_array_fake.py; device memory figures are no measure here,
    beside other test workers)."""
    import gc
    f = mod.get_function("sample1d")
    for k in range(3):
        data = np.arange(4096, dtype=np.float32) * (k + 1)
        t = drv.TextureObject(drv.np_to_array(data, "C"))     # the texture keeps it
        gc.collect()
        out = drv.mem_alloc(4 * 4096)
        f(out, t, to_dev(drv, np.arange(4096, dtype=np.float32) + 0.5), np.int32(4096),
          block=(256, 1, 1), grid=(16, 1))
        assert np.array_equal(from_dev(drv, out, 4096, np.float32), data)
        del t
        gc.collect()
    drv.Context.synchronize()
