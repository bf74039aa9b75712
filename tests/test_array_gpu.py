"""Pitched memory, 2-D/3-D copies, CUDA arrays, texture and surface objects
on a real GPU, with numpy as the reference: every copy direction and kind
(sub-regions, odd widths, pitched memory, streams), arrays of every format
and 1/2/4 channels in 1-D/2-D/3-D/layered shapes, texture reads in kernels
(point and linear filtering against a host computation, normalized
coordinates, every address mode, normalized-float reads of 8/16-bit
integers), surface writes and reads, and every bad-input error."""
import numpy as np
import pytest

pytestmark = pytest.mark.gpu

KERNELS = r"""
extern "C" {
__global__ void fetch1d(float *out, cudaTextureObject_t t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, i);
}

__global__ void fetch1d_int(int *out, cudaTextureObject_t t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i);
}

__global__ void sample1d(float *out, cudaTextureObject_t t, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float>(t, x[i]);
}

__global__ void sample2d(float *out, cudaTextureObject_t t, const float *x,
                         const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, x[i], y[i]);
}

__global__ void sample2d_f4(float4 *out, cudaTextureObject_t t, const float *x,
                            const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, x[i], y[i]);
}

__global__ void sample2d_uchar(unsigned char *out, cudaTextureObject_t t, const float *x,
                               const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<unsigned char>(t, x[i], y[i]);
}

__global__ void sample3d(float *out, cudaTextureObject_t t, const float *x,
                         const float *y, const float *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, x[i], y[i], z[i]);
}

__global__ void sample_layered(float *out, cudaTextureObject_t t, const float *x,
                               const float *y, const int *layer, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float>(t, x[i], y[i], layer[i]);
}

__global__ void surf_scale(cudaSurfaceObject_t s, float a, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        float v = surf2Dread<float>(s, x * (int)sizeof(float), y);
        surf2Dwrite(a * v + 1.0f, s, x * (int)sizeof(float), y);
    }
}

__global__ void surf_read(float *out, cudaSurfaceObject_t s, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) out[y * w + x] = surf2Dread<float>(s, x * (int)sizeof(float), y);
}
}
"""


def rng():
    return np.random.default_rng()


def random_of(dtype, shape, g=None):
    g = g or rng()
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (g.standard_normal(shape) * 10).astype(dt)
    info = np.iinfo(dt)
    return g.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


def to_dev(drv, a):
    d = drv.mem_alloc(max(a.nbytes, 1))
    drv.memcpy_htod(d, np.ascontiguousarray(a))
    return d


def from_dev(drv, d, shape, dtype):
    out = np.empty(shape, dtype)
    out.reshape(-1).view(np.uint8)[:] = 0x5A          # poisoned first
    drv.memcpy_dtoh(out, d)
    return out


def launch(f, n, *args):
    f(*args, np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1))


# ---------------------------------------------------------------------------
# pitched memory and 2-D memsets
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("access", [4, 8, 16])
def test_mem_alloc_pitch(drv, context, access):
    alloc, pitch = drv.mem_alloc_pitch(1001, 37, access)
    assert pitch >= 1001 and alloc.size == pitch * 37
    assert pitch % context.get_device().get_attribute(
        drv.device_attribute.TEXTURE_PITCH_ALIGNMENT) == 0
    data = random_of(np.uint8, (37, pitch))
    drv.memcpy_htod(alloc, data)
    assert (from_dev(drv, alloc, (37, pitch), np.uint8) == data).all()


def test_mem_alloc_pitch_errors(drv):
    for bad in (0, 1, 2, 3, 5, 32):
        with pytest.raises(ValueError, match="access_size"):
            drv.mem_alloc_pitch(64, 4, bad)
    with pytest.raises(ValueError, match="width and height"):
        drv.mem_alloc_pitch(64, 0, 4)


@pytest.mark.parametrize("bits,dtype", [(8, np.uint8), (16, np.uint16), (32, np.uint32)])
@pytest.mark.parametrize("use_stream", [False, True])
def test_memset_d2d(drv, bits, dtype, use_stream):
    es = bits // 8
    alloc, pitch = drv.mem_alloc_pitch(333 * es, 19, 4)
    base = random_of(np.uint8, alloc.size)
    drv.memcpy_htod(alloc, base)
    value = int(random_of(dtype, ()))
    x0, y0, w, h = 5, 3, 201, 11
    dest = int(alloc) + y0 * pitch + x0 * es
    name = "memset_d2d%d" % bits
    if use_stream:
        s = drv.Stream()
        getattr(drv, name + "_async")(dest, pitch, value, w, h, stream=s)
        s.synchronize()
    else:
        getattr(drv, name)(dest, pitch, value, w, h)
    got = from_dev(drv, alloc, alloc.size, np.uint8).reshape(19, pitch)
    want = base.reshape(19, pitch).copy()
    row = np.frombuffer(dtype(value).tobytes() * w, np.uint8)
    want[y0:y0 + h, x0 * es:x0 * es + w * es] = row
    assert (got == want).all()


def test_memset_d2d_errors(drv):
    alloc, pitch = drv.mem_alloc_pitch(256, 4, 4)
    with pytest.raises(ValueError, match="exceeds pitch"):
        drv.memset_d2d8(alloc, pitch, 1, pitch + 1, 2)
    with pytest.raises(ValueError, match="do not fit"):
        drv.memset_d2d32(alloc, pitch, 1, 8, 5)
    with pytest.raises(ValueError, match="width"):
        drv.memset_d2d16_async(alloc, pitch, 1, pitch // 2 + 1, 2)
    with pytest.raises(OverflowError):
        drv.memset_d2d8(alloc, pitch, 256, 4, 1)


# ---------------------------------------------------------------------------
# Memcpy2D
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.complex128])
def test_memcpy2d_host_device_host_subregions(drv, dtype):
    g = rng()
    es = np.dtype(dtype).itemsize
    host = random_of(np.float64 if dtype == np.complex128 else dtype, (23, 41), g)
    host = host.astype(dtype)
    dev, pitch = drv.mem_alloc_pitch(41 * es, 30, 4)
    drv.memset_d8(dev, 0, dev.size)
    up = drv.Memcpy2D()
    up.set_src_host(host)
    up.src_x_in_bytes, up.src_y, up.src_pitch = 3 * es, 4, 41 * es
    up.set_dst_device(dev)
    up.dst_x_in_bytes, up.dst_y, up.dst_pitch = 7 * es, 2, pitch
    up.width_in_bytes, up.height = 29 * es, 17        # odd width
    up()
    raw = from_dev(drv, dev, dev.size, np.uint8).reshape(30, pitch)
    want = np.zeros((30, pitch), np.uint8)
    want[2:19, 7 * es:36 * es] = np.ascontiguousarray(host[4:21, 3:32]).view(np.uint8)
    assert (raw == want).all()
    out = np.full((20, 33), -3, dtype=dtype) if dtype != np.uint8 else np.full((20, 33), 77, np.uint8)
    down = drv.Memcpy2D()
    down.set_src_device(dev)
    down.src_x_in_bytes, down.src_y, down.src_pitch = 7 * es, 2, pitch
    down.set_dst_host(out)
    down.dst_x_in_bytes, down.dst_y, down.dst_pitch = es, 1, 33 * es
    down.width_in_bytes, down.height = 29 * es, 17
    down(aligned=False)
    expect = (np.full((20, 33), -3, dtype=dtype) if dtype != np.uint8
              else np.full((20, 33), 77, np.uint8))
    expect[1:18, 1:30] = host[4:21, 3:32]
    assert (out == expect).all()


def test_memcpy2d_device_to_device_and_async(drv):
    g = rng()
    src = random_of(np.float32, (50, 70), g)
    a, pa = drv.mem_alloc_pitch(70 * 4, 50, 4)
    b, pb = drv.mem_alloc_pitch(90 * 4, 60, 16)
    c = drv.Memcpy2D()
    c.set_src_host(src)
    c.src_pitch = 280
    c.set_dst_device(a)
    c.dst_pitch = pa
    c.width_in_bytes, c.height = 280, 50
    c()
    drv.memset_d32(b, 0, b.size // 4)
    d = drv.Memcpy2D()
    d.set_src_device(a)
    d.src_pitch, d.src_x_in_bytes, d.src_y = pa, 4 * 9, 5
    d.set_dst_device(b)
    d.dst_pitch, d.dst_x_in_bytes, d.dst_y = pb, 4 * 13, 7
    d.width_in_bytes, d.height = 4 * 51, 39
    s = drv.Stream()
    d(s)
    out = drv.pagelocked_zeros((60, pb // 4), np.float32)
    e = drv.Memcpy2D()
    e.set_src_device(b)
    e.src_pitch = pb
    e.set_dst_host(out)
    e.dst_pitch = pb
    e.width_in_bytes, e.height = pb, 60
    e(s)
    s.synchronize()
    want = np.zeros((60, pb // 4), np.float32)
    want[7:46, 13:64] = src[5:44, 9:60]
    assert (out == want).all()


def test_memcpy2d_unified_side(drv):
    g = rng()
    src = drv.pagelocked_empty((12, 16), np.int32)
    src[:] = random_of(np.int32, (12, 16), g)
    dev = drv.mem_alloc(12 * 16 * 4)
    c = drv.Memcpy2D()
    c.set_src_unified(src)
    c.src_pitch = 64
    c.set_dst_device(dev)
    c.dst_pitch = 64
    c.width_in_bytes, c.height = 64, 12
    c()
    assert (from_dev(drv, dev, (12, 16), np.int32) == src).all()
    out = drv.pagelocked_zeros((12, 16), np.int32)
    c2 = drv.Memcpy2D()
    c2.set_src_device(dev)
    c2.src_pitch = 64
    c2.set_dst_unified(out)
    c2.dst_pitch = 64
    c2.width_in_bytes, c2.height = 64, 12
    c2()
    assert (out == src).all()


def test_memcpy2d_errors(drv):
    host = np.zeros((4, 16), np.uint8)
    dev = drv.mem_alloc(64)
    c = drv.Memcpy2D()
    c.width_in_bytes, c.height = 16, 4
    with pytest.raises(ValueError, match="src is not set"):
        c()
    c.set_src_host(host)
    c.set_dst_device(dev)
    c.src_pitch = c.dst_pitch = 16
    c()
    c.src_y = 1
    with pytest.raises(ValueError, match="ends at byte 80 of a 64-byte host buffer"):
        c()
    c.src_y, c.dst_pitch = 0, 15
    with pytest.raises(ValueError, match="dst_pitch"):
        c()
    c.dst_pitch, c.dst_y = 16, 1
    with pytest.raises(ValueError, match="device allocation"):
        c()
    with pytest.raises(ValueError, match="writable"):
        c.set_dst_host(bytes(64))
    with pytest.raises(TypeError):
        c.set_src_array(dev)
    with pytest.raises(ValueError, match="unaligned"):
        c(stream=drv.Stream(), aligned=False)
    with pytest.raises(TypeError):
        c.set_src_host(object())


# ---------------------------------------------------------------------------
# Memcpy3D, peer copies
# ---------------------------------------------------------------------------

def test_memcpy3d_host_device_host(drv):
    g = rng()
    host = random_of(np.int16, (9, 11, 13), g)
    dev = drv.mem_alloc(8 * 10 * 64)          # 8 slices of 10 rows of 64 bytes
    drv.memset_d8(dev, 0, dev.size)
    c = drv.Memcpy3D()
    c.set_src_host(host)
    c.src_x_in_bytes, c.src_y, c.src_z = 2 * 2, 1, 2
    c.src_pitch, c.src_height = 26, 11
    c.set_dst_device(dev)
    c.dst_x_in_bytes, c.dst_y, c.dst_z = 6, 2, 1
    c.dst_pitch, c.dst_height = 64, 10
    c.width_in_bytes, c.height, c.depth = 2 * 9, 7, 6
    c()
    raw = from_dev(drv, dev, dev.size, np.uint8).reshape(8, 10, 64)
    want = np.zeros((8, 10, 64), np.uint8)
    want[1:7, 2:9, 6:24] = np.ascontiguousarray(host[2:8, 1:8, 2:11]).view(np.uint8)
    assert (raw == want).all()
    out = np.full((6, 7, 9), -1, np.int16)
    b = drv.Memcpy3D()
    b.set_src_device(dev)
    b.src_x_in_bytes, b.src_y, b.src_z, b.src_pitch, b.src_height = 6, 2, 1, 64, 10
    b.set_dst_host(out)
    b.dst_pitch, b.dst_height = 18, 7
    b.width_in_bytes, b.height, b.depth = 18, 7, 6
    s = drv.Stream()
    b(s)
    s.synchronize()
    assert (out == host[2:8, 1:8, 2:11]).all()
    b.depth = 8
    with pytest.raises(ValueError, match="device allocation"):
        b()
    b.depth, b.src_height = 6, 5
    with pytest.raises(ValueError, match="src_height"):
        b()


def test_peer_copies_between_two_contexts_of_one_device(drv, context):
    g = rng()
    data = random_of(np.uint8, 4096, g)
    other = context.get_device().make_context()
    try:
        far = drv.mem_alloc(4096)
        drv.memcpy_htod(far, data)
        other.pop()
        near = drv.mem_alloc(4096)
        drv.memset_d8(near, 0, 4096)
        drv.memcpy_peer(near, far, 3000, dest_context=context, src_context=other)
        got = from_dev(drv, near, 4096, np.uint8)
        assert (got[:3000] == data[:3000]).all() and (got[3000:] == 0).all()
        s = drv.Stream()
        drv.memcpy_peer_async(int(near) + 1, far, 4000, src_context=other, stream=s)
        s.synchronize()
        got = from_dev(drv, near, 4096, np.uint8)
        assert (got[1:4001] == data[:4000]).all()
        with pytest.raises(ValueError, match="do not fit"):
            drv.memcpy_peer(near, far, 4097, src_context=other)
        with pytest.raises(TypeError, match="src_context"):
            drv.memcpy_peer(near, far, 16, src_context=3)
        # a 3-D peer copy of a pitched sub-block
        c = drv.Memcpy3DPeer()
        c.set_src_device(far)
        c.set_src_context(other)
        c.src_pitch, c.src_height, c.src_x_in_bytes, c.src_y, c.src_z = 64, 8, 3, 2, 1
        drv.memset_d8(near, 0, 4096)
        c.set_dst_device(near)
        c.set_dst_context(context)
        c.dst_pitch, c.dst_height = 32, 4
        c.width_in_bytes, c.height, c.depth = 29, 4, 5
        c()
        got = from_dev(drv, near, 4096, np.uint8)[:5 * 4 * 32].reshape(5, 4, 32)
        src = data.reshape(8, 8, 64)[1:6, 2:6, 3:32]
        assert (got[:, :, :29] == src).all() and (got[:, :, 29:] == 0).all()
        c(s)
        s.synchronize()
        del c, far
    finally:
        other.detach()


# ---------------------------------------------------------------------------
# arrays
# ---------------------------------------------------------------------------

FORMATS = [(np.uint8, "UNSIGNED_INT8"), (np.uint16, "UNSIGNED_INT16"),
           (np.uint32, "UNSIGNED_INT32"), (np.int8, "SIGNED_INT8"),
           (np.int16, "SIGNED_INT16"), (np.int32, "SIGNED_INT32"),
           (np.float16, "HALF"), (np.float32, "FLOAT")]


@pytest.mark.parametrize("dtype,fmt", FORMATS)
@pytest.mark.parametrize("nch", [1, 2, 4])
def test_array_2d_round_trip_every_format(drv, dtype, fmt, nch):
    assert drv.dtype_to_array_format(dtype) == drv.array_format[fmt]
    assert drv.array_format_to_dtype(drv.array_format[fmt]) == dtype
    w, h = 13, 7
    ary = drv.Array(drv.ArrayDescriptor(w, h, drv.array_format[fmt], nch))
    d = ary.get_descriptor()
    assert (d.width, d.height, d.format, d.num_channels) == (w, h, drv.array_format[fmt], nch)
    data = random_of(dtype, (h, w * nch))
    es = np.dtype(dtype).itemsize * nch
    up = drv.Memcpy2D()
    up.set_src_host(data)
    up.src_pitch = w * es
    up.set_dst_array(ary)
    up.width_in_bytes, up.height = w * es, h
    up()
    out = np.zeros_like(data)
    out.view(np.uint8)[:] = 0xA5
    down = drv.Memcpy2D()
    down.set_src_array(ary)
    down.src_x_in_bytes, down.src_y = 2 * es, 1
    down.set_dst_host(out)
    down.dst_pitch = w * es
    down.width_in_bytes, down.height = (w - 3) * es, h - 2
    down()
    assert (out.view(np.uint8).reshape(h, -1)[:h - 2, :(w - 3) * es] ==
            data.view(np.uint8).reshape(h, -1)[1:h - 1, 2 * es:(w - 1) * es]).all()
    assert (out.view(np.uint8).reshape(h, -1)[h - 2:] == 0xA5).all()


@pytest.mark.parametrize("dtype,fmt", FORMATS[::3])
def test_array_1d_copies(drv, dtype, fmt):
    g = rng()
    ary = drv.Array(drv.ArrayDescriptor(101, 0, drv.array_format[fmt], 2))
    es = np.dtype(dtype).itemsize * 2
    data = random_of(dtype, 202, g)
    drv.memcpy_htoa(ary, 0, data)
    out = np.zeros(90, dtype)
    drv.memcpy_atoh(out, ary, 10 * es)
    assert (out.view(np.uint8) == data.view(np.uint8)[10 * es:10 * es + out.nbytes]).all()
    dev = drv.mem_alloc(101 * es)
    drv.memcpy_atod(dev, ary, 0, 101 * es)
    assert (from_dev(drv, dev, 202, dtype).view(np.uint8) == data.view(np.uint8)).all()
    other = random_of(dtype, 202, g)
    dev2 = to_dev(drv, other)
    drv.memcpy_dtoa(ary, es, dev2, 50 * es)
    back = np.zeros(202, dtype)
    drv.memcpy_atoh(back, ary, 0)
    want = data.view(np.uint8).copy()
    want[es:51 * es] = other.view(np.uint8)[:50 * es]
    assert (back.view(np.uint8) == want).all()


def test_array_3d_and_layered_round_trips(drv):
    g = rng()
    vol = random_of(np.float32, (5, 6, 7), g)
    a3 = drv.np_to_array(vol, "C")
    d = a3.get_descriptor_3d()
    assert (d.width, d.height, d.depth, d.flags) == (7, 6, 5, 0)
    out = np.full_like(vol, np.nan)
    c = drv.Memcpy3D()
    c.set_src_array(a3)
    c.set_dst_host(out)
    c.dst_pitch, c.dst_height = 28, 6
    c.width_in_bytes, c.height, c.depth = 28, 6, 5
    c()
    assert (out == vol).all()
    F = drv.array3d_flags
    lay = drv.Array(drv.ArrayDescriptor3D(9, 4, 3, drv.array_format.SIGNED_INT16, 4, F.LAYERED))
    assert lay.get_descriptor_3d().flags & F.LAYERED
    data = random_of(np.int16, (3, 4, 36), g)
    up = drv.Memcpy3D()
    up.set_src_host(data)
    up.src_pitch, up.src_height = 72, 4
    up.set_dst_array(lay)
    up.width_in_bytes, up.height, up.depth = 72, 4, 3
    up()
    back = np.zeros_like(data)
    dn = drv.Memcpy3D()
    dn.set_src_array(lay)
    dn.src_z = 1
    dn.set_dst_host(back)
    dn.dst_pitch, dn.dst_height = 72, 4
    dn.width_in_bytes, dn.height, dn.depth = 72, 4, 2
    dn()
    assert (back[:2] == data[1:]).all() and (back[2] == 0).all()
    # array to array and array to device
    a3b = drv.Array(drv.ArrayDescriptor3D(7, 6, 5, drv.array_format.FLOAT, 1))
    aa = drv.Memcpy3D()
    aa.set_src_array(a3)
    aa.set_dst_array(a3b)
    aa.width_in_bytes, aa.height, aa.depth = 28, 6, 5
    aa()
    dev = drv.mem_alloc(vol.nbytes)
    ad = drv.Memcpy3D()
    ad.set_src_array(a3b)
    ad.set_dst_device(dev)
    ad.dst_pitch, ad.dst_height = 28, 6
    ad.width_in_bytes, ad.height, ad.depth = 28, 6, 5
    ad()
    assert (from_dev(drv, dev, vol.shape, np.float32) == vol).all()


def test_np_matrix_gpuarray_to_array(drv):
    import gpuarr
    g = rng()
    m = random_of(np.float32, (6, 9), g)
    for ary in (drv.np_to_array(m, "C"), drv.matrix_to_array(m, "C"),
                drv.gpuarray_to_array(gpuarr.to_gpu(m), "C")):
        assert (ary.width, ary.height) == (9, 6)
        out = np.zeros_like(m)
        c = drv.Memcpy2D()
        c.set_src_array(ary)
        c.set_dst_host(out)
        c.dst_pitch = 36
        c.width_in_bytes, c.height = 36, 6
        c()
        assert (out == m).all()
    f = np.asfortranarray(m)
    ary = drv.np_to_array(f, "F")
    assert (ary.width, ary.height) == (6, 9)
    ary = drv.np_to_array(random_of(np.float64, (3, 4), g), "C")
    assert (ary.format, ary.num_channels) == (drv.array_format.SIGNED_INT32, 2)
    with pytest.raises(TypeError, match="no CUDA array format"):
        drv.np_to_array(np.zeros((2, 2), np.int64), "C")
    with pytest.raises(ValueError, match="order"):
        drv.np_to_array(m, "A")
    with pytest.raises(TypeError):
        drv.matrix_to_array(m.astype(np.float64))
    with pytest.raises(ValueError, match="contiguous"):
        drv.gpuarray_to_array(gpuarr.to_gpu(m)[:, ::2], "C")


def test_array_errors(drv):
    with pytest.raises(ValueError, match="num_channels"):
        drv.Array(drv.ArrayDescriptor(4, 4, drv.array_format.FLOAT, 3))
    with pytest.raises(ValueError, match="width"):
        drv.Array(drv.ArrayDescriptor3D(0, 4, 4))
    with pytest.raises(TypeError, match="ArrayDescriptor"):
        drv.Array({"width": 4})
    with pytest.raises(drv.LogicError):
        drv.Array(drv.ArrayDescriptor(4, 4, 0x7F, 1))          # no such format
    two = drv.Array(drv.ArrayDescriptor(8, 8, drv.array_format.FLOAT, 1))
    with pytest.raises(ValueError, match="1-D arrays only"):
        drv.memcpy_htoa(two, 0, np.zeros(4, np.float32))
    one = drv.Array(drv.ArrayDescriptor(8, 0, drv.array_format.FLOAT, 1))
    with pytest.raises(ValueError, match="exceed"):
        drv.memcpy_htoa(one, 4, np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="exceed"):
        drv.memcpy_atod(drv.mem_alloc(64), one, 0, 33)
    c = drv.Memcpy2D()
    c.set_src_array(two)
    c.set_dst_host(np.zeros(64, np.float32))
    c.dst_pitch = 32
    c.width_in_bytes, c.height = 32, 9
    with pytest.raises(ValueError, match="height 8"):
        c()
    two.free()
    two.free()
    with pytest.raises(ValueError, match="freed"):
        c()
    with pytest.raises(ValueError, match="freed"):
        drv.TextureObject(two)
