"""PyCUDA's tools, characterize and vec names on the CPU: the C type table
against PyCUDA's, the registry's rules, CUDA's vector types against the
device compiler's own sizeof/alignof (NVRTC, no GPU), user kernels with
vector-type pointers, PyCUDA's occupancy arithmetic on hand-computed cases,
aligned host arrays."""
import warnings

import numpy as np
import pytest

from _util import FakeArray, kernel_compiler

from gpuarr import _dtypes, characterize, tools
from gpuarr import driver as drv
from gpuarr._kernelargs import KernelArguments, parse_c_arg
from gpuarr.elementwise import ElementwiseKernel, ScalarArg, VectorArg
from gpuarr.gpuarray import vec

# PyCUDA's dtype_to_ctype on 64-bit Linux (pycuda.compyte.dtypes'
# fill_registry_with_c_types, then the two pycuda::complex names): the
# first name registered for each dtype.
PYCUDA_NAMES = {
    "bool": "bool", "int8": "signed char", "uint8": "unsigned char",
    "int16": "short", "uint16": "unsigned short", "int32": "int",
    "uint32": "unsigned", "int64": "long", "uint64": "unsigned long",
    "float32": "float", "float64": "double",
    "complex64": "pycuda::complex<float>",
    "complex128": "pycuda::complex<double>",
}


def _every_numpy_type():
    seen = {}
    for t in set(np.sctypeDict.values()):
        try:
            dt = np.dtype(t)
        except TypeError:
            continue
        seen.setdefault(dt.str + t.__name__, (t, dt))
    return [v for _, v in sorted(seen.items())]


@pytest.mark.parametrize("t,dt", _every_numpy_type(),
                         ids=lambda x: getattr(x, "__name__", str(x)))
def test_dtype_to_ctype_matches_pycudas_table_for_every_numpy_type(t, dt):
    want = PYCUDA_NAMES.get(dt.name) if dt.kind in "biufc" else None
    if want is None:
        with pytest.raises(ValueError, match="has no C type name"):
            tools.dtype_to_ctype(t)
    else:
        assert tools.dtype_to_ctype(t) == want
        assert tools.dtype_to_ctype(dt) == want
        assert tools.dtype_to_ctype(dt.str) == want


def test_dtype_to_ctype_fp_tex_hack_and_none():
    hack = {np.float32: "fp_tex_float", np.float64: "fp_tex_double",
            np.complex64: "fp_tex_cfloat", np.complex128: "fp_tex_cdouble"}
    for t, name in hack.items():
        assert tools.dtype_to_ctype(t, with_fp_tex_hack=True) == name
    assert tools.dtype_to_ctype(np.int32, with_fp_tex_hack=True) == "int"
    with pytest.raises(ValueError, match="None"):
        tools.dtype_to_ctype(None)
    with pytest.raises(ValueError):
        tools.dtype_to_ctype(np.float16)   # PyCUDA has no name for it


def test_registry_lookup_register_and_conflicts():
    assert tools.get_or_register_dtype("long") == np.int64
    assert tools.get_or_register_dtype(["unsigned", "unsigned int"]) == np.uint32
    assert tools.get_or_register_dtype("  unsigned   int ") == np.uint32
    with pytest.raises(KeyError):
        tools.get_or_register_dtype("no_such_type_t")
    with pytest.raises(ValueError):
        tools.get_or_register_dtype(["int", "float"])
    pair = np.dtype([("a", np.int32), ("b", np.float64)], align=True)
    got = tools.get_or_register_dtype(["tt_pair", "struct tt_pair"], pair)
    assert got == pair and got.itemsize == 16
    assert tools.dtype_to_ctype(pair) == "tt_pair"
    # an equal dtype registered again gives the object registered first
    again = tools.get_or_register_dtype(
        "tt_pair_alias", np.dtype([("a", np.int32), ("b", np.float64)],
                                  align=True))
    assert again is got
    assert tools.dtype_to_ctype(pair) == "tt_pair"
    assert tools.get_or_register_dtype("tt_pair_alias") is got
    with pytest.raises(RuntimeError, match="already registered"):
        tools.get_or_register_dtype("tt_pair", np.float32)
    with pytest.raises(RuntimeError):
        tools.get_or_register_dtype("float", np.float64)
    with pytest.raises(TypeError):
        tools.get_or_register_dtype([], np.float32)
    with pytest.raises(TypeError):
        tools.get_or_register_dtype("tt_obj", np.dtype([("o", object)]))
    # a registered struct is storable (arrays) but no arithmetic dtype
    assert _dtypes.canonical(pair) == pair
    with pytest.raises(TypeError):
        _dtypes.check_supported(pair)
    with pytest.raises(TypeError):
        _dtypes.canonical(np.dtype([("q", np.int8), ("r", np.int8)]))


def test_register_dtype_is_deprecated_and_refuses_aliases():
    dt = np.dtype([("u", np.uint16), ("v", np.uint16)])
    with pytest.warns(DeprecationWarning):
        tools.register_dtype(dt, "tt_u16pair")
    assert tools.dtype_to_ctype(dt) == "tt_u16pair"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(RuntimeError, match="has the C name 'tt_u16pair' already"):
            tools.register_dtype(dt, "tt_u16pair2")
        tools.register_dtype(dt, "tt_u16pair2", alias_ok=True)
    assert tools.get_or_register_dtype("tt_u16pair2") == dt
    assert tools.dtype_to_ctype(dt) == "tt_u16pair"


# CUDA's vector_types.h (Linux, 64-bit long): sizeof and alignof
def _cuda_table():
    sizes = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "int": 4,
             "uint": 4, "long": 8, "ulong": 8, "longlong": 8,
             "ulonglong": 8, "float": 4, "double": 8}
    out = {}
    for base, s in sizes.items():
        for n in (1, 2, 3, 4):
            align = min(16, n * s) if n in (2, 4) else s
            out["%s%d" % (base, n)] = (n * s, align)
    return out


CUDA_VEC = _cuda_table()


def test_vec_dtypes_have_cudas_sizes_fields_and_alignment():
    assert len(CUDA_VEC) == 48
    for name, (size, align) in CUDA_VEC.items():
        dt = getattr(vec, name)
        n = int(name[-1])
        assert dt.itemsize == size, name
        assert dt.names == ("x", "y", "z", "w")[:n], name
        scalar = dt.fields["x"][0]
        assert [dt.fields[f][1] for f in dt.names] == \
            [k * scalar.itemsize for k in range(n)], name
        assert vec.cuda_alignment(dt) == align == vec.cuda_alignment(name), name
        assert tools.dtype_to_ctype(dt) in (name, name.replace("longlong", "long"))
        # PyCUDA's dtypes (no numpy alignment) are the same dtypes
        plain = np.dtype([(f, scalar) for f in dt.names])
        assert plain == dt and tools.dtype_to_ctype(plain) == tools.dtype_to_ctype(dt)
    assert vec.float4.fields["w"][0] == np.float32
    assert vec.long2 == vec.longlong2
    assert vec.types[(np.dtype(np.float32), 3)] is vec.float3
    with pytest.raises(KeyError):
        vec.cuda_alignment(np.float32)


def test_vec_types_match_the_device_compilers_sizeof_and_alignof():
    comp = kernel_compiler()
    if comp is None:
        pytest.skip("no CUDA compiler (NVRTC or nvcc)")
    lines = ["static_assert(sizeof(%s) == %d && alignof(%s) == %d, \"%s\");"
             % (name, size, name, align, name)
             for name, (size, align) in sorted(CUDA_VEC.items())]
    comp("\n".join(lines) + '\nextern "C" __global__ void k() {}\n')


def test_vec_make_filled_zeros_ones():
    a = vec.make_float3(1, 2.5, -3)
    assert a.dtype == vec.float3 and a.shape == ()
    assert (a["x"], a["y"], a["z"]) == (1.0, 2.5, -3.0)
    b = vec.make_int4(1, 2, z=3, w=4)
    assert tuple(b[()]) == (1, 2, 3, 4) and b.dtype == vec.int4
    assert tuple(vec.zeros_double2()[()]) == (0.0, 0.0)
    assert tuple(vec.ones_uchar4()[()]) == (1, 1, 1, 1)
    assert tuple(vec.filled_short3(7)[()]) == (7, 7, 7)
    with pytest.raises(TypeError):
        vec.make_float3(1, 2)
    with pytest.raises(TypeError):
        vec.make_float2(1, 2, w=3)
    host = np.zeros(5, vec.float4)
    host["y"] = np.arange(5)
    assert host.view(np.float32).reshape(5, 4)[:, 1].tolist() == list(range(5))


def test_kernel_arguments_take_vector_type_pointers():
    a = parse_c_arg("const float3 *__restrict__ pts")
    assert isinstance(a, VectorArg) and not isinstance(a, ScalarArg)
    assert a.dtype == vec.float3 and a.declarator() == "float3 *pts"
    assert parse_c_arg("double2 v[]").dtype == vec.double2
    by_value = parse_c_arg("const float4 v")
    assert isinstance(by_value, ScalarArg) and by_value.dtype == vec.float4
    assert by_value.declarator() == "float4 v"
    with pytest.raises(ValueError, match="unknown C type"):
        parse_c_arg("tt_never_registered *p")
    ka = KernelArguments("float3 *a, float4 *b, float s", "k")
    assert ka.params(" *") == [("float3 *", "a"), ("float4 *", "b"),
                               ("float", "s")]
    assert ka.chars == "PPf"
    good = [FakeArray(vec.float3, (7,), ptr=1 << 20),
            FakeArray(vec.float4, (7,), ptr=(1 << 20) + 256), 1.5]
    vals, n = ka.pack(good)
    assert n == 7 and vals[:2] == [1 << 20, (1 << 20) + 256]
    # float4 needs 16-byte alignment, float3 only 4: refused before a launch
    with pytest.raises(ValueError, match="multiple of 16"):
        ka.pack([good[0], FakeArray(vec.float4, (7,), ptr=(1 << 20) + 8), 1.0])
    ka.pack([FakeArray(vec.float3, (7,), ptr=(1 << 20) + 4), good[1], 1.0])
    with pytest.raises(ValueError, match="multiple of 4"):
        ka.pack([FakeArray(vec.float3, (7,), ptr=(1 << 20) + 2), good[1], 1.0])
    with pytest.raises(TypeError, match="declared"):
        ka.pack([good[1], good[1], 1.0])
    # VectorArg/ScalarArg objects of registered structs are accepted
    ElementwiseKernel([VectorArg(vec.float2, "p")], "p[i].x = 0")
    k = ElementwiseKernel([ScalarArg(vec.float2, "s"), VectorArg(np.float32, "p")],
                          "p[i] = s.x")
    assert k._arguments.chars == "8sP"


def test_struct_arguments_keep_the_declared_type_name():
    comp = kernel_compiler()
    # long2 and longlong2 are one dtype but two C++ types
    a = parse_c_arg("longlong2 *p")
    assert a.dtype == vec.long2 and a.declarator() == "longlong2 *p"
    assert parse_c_arg("ulong3 s").declarator() == "ulong3 s"
    assert parse_c_arg("long long *q").declarator() == "long long *q"
    k = ElementwiseKernel("longlong2 *p, long2 *q, ulonglong2 s",
                          "p[i] = make_longlong2(q[i].x + s.x, q[i].y)",
                          "tt_names")
    assert k._arguments.params(" *")[:2] == [("longlong2 *", "p"),
                                            ("long2 *", "q")]
    if comp is not None:
        comp(k.get_source())


def test_struct_scalars_by_value_are_packed_from_scalars_tuples_bytes():
    ka = KernelArguments("float3 s, double2 d, float *p", "k")
    assert ka.chars == "12s16sP"
    arr = FakeArray(np.float32, (5,))
    want_s = vec.make_float3(1, 2, 3)[()]
    for s in (want_s, vec.make_float3(1, 2, 3), (1, 2, 3),
              np.array([1, 2, 3], np.float32).tobytes()):
        vals, n = ka.pack([s, (0.5, -1.0), arr])
        assert n == 5 and vals[2] == arr.ptr
        assert type(vals[0]) is np.void and vals[0].dtype == vec.float3
        assert vals[0].tobytes() == want_s.tobytes()
        assert vals[1].tobytes() == np.array([0.5, -1.0]).tobytes()
    bad = [vec.make_float4(1, 2, 3, 4), np.zeros(2, vec.float3), b"123",
           (1, 2), 3.0, "xyz", arr]
    for b in bad:
        with pytest.raises(TypeError, match="'s'"):
            ka.pack([b, (0.5, -1.0), arr])


def test_prepare_types_take_pycudas_struct_format():
    from gpuarr._argtypes import parse_arg_types
    assert parse_arg_types("P12si") == [("P", 8), ("V", 12), ("i", 4)]
    assert parse_arg_types(["P", "16s", vec.double2, vec.uchar3]) == \
        [("P", 8), ("V", 16), ("V", 16), ("V", 3)]
    for bad in ("3i", "0s", "P12", "12"):
        with pytest.raises(ValueError):
            parse_arg_types(bad)
    with pytest.raises(TypeError):
        parse_arg_types([np.dtype([("o", object)])])


def test_user_struct_kernels_compile_under_nvrtc():
    comp = kernel_compiler()
    if comp is None:
        pytest.skip("no CUDA compiler (NVRTC or nvcc)")
    dt = tools.get_or_register_dtype(
        "tt_particle", np.dtype([("pos", vec.float3), ("mass", np.float32)],
                                align=True))
    k = ElementwiseKernel(
        "tt_particle *p, float3 *a, float4 *out, double2 *d",
        "out[i] = make_float4(a[i].x * p[i].mass, a[i].y, a[i].z, "
        "(float)(d[i].x + d[i].y))",
        "tt_kernel",
        preamble="struct tt_particle { float3 pos; float mass; };")
    assert k.args[0].dtype == dt
    for dense in (False, True):
        comp(k.get_source(dense=dense))
    byval = ElementwiseKernel(
        "tt_particle q, float3 s, float *out",
        "out[i] = q.mass * s.x + q.pos.y", "tt_byval",
        preamble="struct tt_particle { float3 pos; float mass; };")
    comp(byval.get_source())
    from gpuarr.reduction import ReductionKernel
    r = ReductionKernel(np.float32, "0", "a+b", "p[i].x * p[i].y + q[i].w",
                        "float3 *p, float4 *q")
    comp(r.get_source((1001,)))


# ---------------------------------------------------------------------------
# occupancy (PyCUDA's arithmetic, hand-computed)

class H100:
    max_threads = 1024
    warp_size = 32
    warps_per_mp = 64
    thread_blocks_per_mp = 32
    registers = 65536
    shared_memory = 49152
    smem_alloc_granularity = 128
    smem_granularity = 32
    register_allocation_unit = "warp"


@pytest.mark.parametrize("threads,smem,regs,tb,by,warps,occ", [
    (256, 0, 0, 8, "warps", 64, 1.0),       # 8 warps: 64 // 8 blocks
    (128, 0, 64, 8, "regs", 32, 0.5),       # 4*32*64 = 8192 regs a block
    (64, 10000, 0, 4, "smem", 8, 0.125),    # 10000 -> 10112 bytes
    (64, 0, 0, 32, "device", 64, 1.0),      # tie 32/32: "device" < "warps"
    (33, 0, 0, 32, "device", 64, 1.0),      # 33 threads take 2 warps
    (1024, 0, 32, 2, "regs", 64, 1.0),      # 32*32*32 = 32768: 2 of regs, 2 of warps
    (1000, 128, 16, 2, "warps", 64, 1.0),
])
def test_occupancy_record_hand_computed(threads, smem, regs, tb, by, warps, occ):
    r = tools.OccupancyRecord(H100(), threads, shared_mem=smem, registers=regs)
    assert (r.tb_per_mp, r.limited_by, r.warps_per_mp) == (tb, by, warps)
    assert r.occupancy == pytest.approx(occ)
    assert min(r.tb_per_mp_limits) == (tb, by)


def test_occupancy_record_block_unit_and_errors():
    class Old(H100):
        register_allocation_unit = "block"
        registers = 8192
        warps_per_mp = 24
        thread_blocks_per_mp = 8
        smem_alloc_granularity = 512
        shared_memory = 16384
    # 100 threads: 4 warps -> ceil(8 / 4) * 4 = 8 -> 8 * 16 * 10 = 1280 regs
    r = tools.OccupancyRecord(Old(), 100, shared_mem=1, registers=10)
    assert r.tb_per_mp_limits == [(8, "device"), (6, "warps"), (6, "regs"),
                                  (32, "smem")]
    assert (r.tb_per_mp, r.limited_by) == (6, "regs")
    assert r.occupancy == pytest.approx(24 / 24)
    with pytest.raises(ValueError, match="too many threads"):
        tools.OccupancyRecord(H100(), 1025)
    with pytest.raises(ValueError, match="too many registers"):
        tools.OccupancyRecord(H100(), 1024, registers=65)
    with pytest.raises(ValueError, match="too much smem"):
        tools.OccupancyRecord(H100(), 32, shared_mem=49153)
    with pytest.raises(ValueError):
        tools.OccupancyRecord(H100(), 0)


def test_device_data_alignment_helpers_without_a_device():
    dd = tools.DeviceData.__new__(tools.DeviceData)
    assert [dd.align_bytes(w) for w in (4, 8, 16)] == [64, 128, 128]
    assert dd.align(65) == 128 and dd.align(64) == 64 and dd.align(1, 8) == 128
    assert dd.align_words(4) == 16 and dd.align_words(8) == 16
    assert dd.align_dtype(17, 4) == 32 and dd.align_dtype(16, 8) == 16
    assert dd.coalesce(17) == 32 and dd.coalesce(16) == 16
    assert [tools.DeviceData.make_valid_tex_channel_count(n)
            for n in (1, 2, 3, 4)] == [1, 2, 4, 4]
    with pytest.raises(ValueError):
        dd.align_bytes(2)
    with pytest.raises(ValueError):
        tools.DeviceData.make_valid_tex_channel_count(5)


def test_bitlog2():
    for n in (1, 2, 3, 4, 7, 8, 1023, 1024, 2 ** 40 + 1):
        assert tools.bitlog2(n) == int(np.floor(np.log2(float(n)))), n
    with pytest.raises(ValueError):
        tools.bitlog2(0)


def test_sizeof_kernel_compiles_under_nvrtc():
    from gpuarr import kernels
    comp = kernel_compiler()
    if comp is None:
        pytest.skip("no CUDA compiler (NVRTC or nvcc)")
    for type_name, preamble in [("float3", ""), ("struct tt_s", "struct tt_s "
                                "{ char c; double d; };"), ("void *", "")]:
        src = kernels.render("sizeof.cu.mako", preamble=preamble,
                             type_name=type_name)
        assert "write_size" in src and type_name in src
        comp(src)
    with pytest.raises(TypeError):
        characterize.sizeof("")
    with pytest.raises(TypeError):
        characterize.sizeof("int", preamble=None)


def test_platform_bits():
    import gpuarr
    assert gpuarr.characterize is characterize
    assert characterize.platform_bits() == 64
    assert set(characterize.__all__) >= {"platform_bits", "has_stack",
                                         "has_double_support", "sizeof"}


# ---------------------------------------------------------------------------
# aligned host arrays (no driver needed)

@pytest.mark.parametrize("alignment", [1, 16, 64, 4096, 1 << 16])
@pytest.mark.parametrize("order", ["C", "F"])
def test_aligned_empty_and_zeros(alignment, order):
    for shape, dtype in [((3, 5), np.float64), (7, np.int16), ((), np.complex64),
                         ((2, 0, 3), np.float32), ((4, 3), vec.float3)]:
        a = drv.aligned_empty(shape, dtype, order=order, alignment=alignment)
        assert a.ctypes.data % alignment == 0
        assert a.shape == (shape if isinstance(shape, tuple) else (shape,))
        assert a.dtype == np.dtype(dtype)
        if a.ndim > 1 and a.size:
            assert a.flags.f_contiguous if order == "F" else a.flags.c_contiguous
        z = drv.aligned_zeros(shape, dtype, order, alignment)
        assert z.ctypes.data % alignment == 0
        assert not np.frombuffer(z.tobytes(), np.uint8).any()
        z[...] = np.ones((), dtype)
        like = drv.aligned_zeros_like(z, alignment=alignment)
        assert like.shape == z.shape and like.dtype == z.dtype
        assert like.ctypes.data % alignment == 0
        assert not np.frombuffer(like.tobytes(), np.uint8).any()
        assert drv.aligned_empty_like(z, alignment).flags.f_contiguous == \
            z.flags.f_contiguous
    assert drv.aligned_empty(3).dtype == np.float32


def test_aligned_empty_errors():
    with pytest.raises(ValueError):
        drv.aligned_empty((2, -1))
    with pytest.raises(ValueError):
        drv.aligned_empty(4, alignment=48)
    with pytest.raises(ValueError):
        drv.aligned_empty(4, alignment=0)
    with pytest.raises(ValueError):
        drv.aligned_empty(4, order="K")
    with pytest.raises(TypeError):
        drv.aligned_empty((2.5,))
    with pytest.raises(ValueError, match="could not detect array order"):
        drv.aligned_empty_like(np.zeros((4, 4))[::2, ::2])
