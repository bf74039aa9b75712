"""CPU tests of the cuRAND generators (gpuarr.curandom, _curand_plan,
_curand): the template renders and compiles under NVRTC for every kind,
dtype and distribution; the dtype table; argument checks before any launch
(the launch itself is recorded, not run); finding libcurand and the headers,
and the errors when they are missing."""
import os

import numpy as np
import pytest

from gpuarr import _curand, _curand_plan, curandom
from gpuarr._errors import UnsupportedDtypeError

KINDS = sorted(_curand_plan.KINDS)
CLASSES = {"xorwow": curandom.XORWOWRandomNumberGenerator,
           "mrg32k3a": curandom.MRG32k3aRandomNumberGenerator,
           "sobol32": curandom.Sobol32RandomNumberGenerator,
           "scrambled_sobol32": curandom.ScrambledSobol32RandomNumberGenerator,
           "sobol64": curandom.Sobol64RandomNumberGenerator,
           "scrambled_sobol64": curandom.ScrambledSobol64RandomNumberGenerator}


def curand_headers():
    """``_curand.include_dirs()``, or None when cuRAND's headers (or the
    CCCL headers they need) are not installed."""
    try:
        return _curand.include_dirs()
    except _curand.CurandNotFoundError:
        return None


def _has_nvrtc():
    try:
        from gpuarr.compiler import find_compiler
        return find_compiler()[0] == "nvrtc"
    except Exception:
        return False


def _has_lib():
    try:
        _curand.load()
        return True
    except _curand.CurandNotFoundError:
        return False


# ---------------------------------------------------------------------------
# the template

def test_sources_render_deterministically_with_every_kernel():
    for kind in KINDS:
        src, kernels = _curand_plan.kernel_source(kind)
        assert (src, kernels) == _curand_plan.kernel_source(kind)
        assert "#include <curand_kernel.h>" in src
        assert _curand_plan.KINDS[kind]["state"] in src
        for name in kernels:
            assert name + "(" in src
        # one fill kernel per (distribution, dtype, pair form)
        fills = [n for n in kernels if n.startswith("ga_curand_")
                 and not n.startswith(("ga_curand_init", "ga_curand_skip"))]
        seeded = _curand_plan.KINDS[kind]["seeded"]
        wide = kind.endswith("64")
        assert len(fills) == 3 + wide + 4 * (2 if seeded else 1) + 1 + 3
        skips = [n for n in kernels if n.startswith("ga_curand_skip")]
        assert len(skips) == 2 * (1 + seeded + (kind == "mrg32k3a"))


@pytest.mark.skipif(not _has_nvrtc(), reason="NVRTC is not installed")
@pytest.mark.skipif(curand_headers() is None,
                    reason="cuRAND's headers are not installed "
                           "(pip install nvidia-curand nvidia-cuda-cccl)")
@pytest.mark.parametrize("kind", KINDS)
def test_kernels_compile_under_nvrtc(kind):
    from gpuarr.compiler import compile
    src, kernels = _curand_plan.kernel_source(kind)
    image = compile(src, arch="sm_90", no_extern_c=True, cache_dir=False,
                    include_dirs=list(curand_headers()))
    assert isinstance(image, bytes) and len(image) > 1000
    for name in kernels:
        assert name.encode() in image
    assert b"ga_curand_state_size" in image


_PTX_TYPE = {"P": ".u64", "Q": ".u64", "I": ".u32", "i": ".u32",
             "f": ".f32", "d": ".f64"}


@pytest.mark.skipif(not _has_nvrtc(), reason="NVRTC is not installed")
@pytest.mark.skipif(curand_headers() is None,
                    reason="cuRAND's headers are not installed "
                           "(pip install nvidia-curand nvidia-cuda-cccl)")
@pytest.mark.parametrize("kind", KINDS)
def test_ptx_signatures_match_the_prepare_formats(kind):
    """Each kernel's PTX parameters are the types its ``prepare`` format
    packs (a mismatch would misplace arguments on the GPU)."""
    import re
    from gpuarr.compiler import compile
    src, kernels = _curand_plan.kernel_source(kind)
    ptx = compile(src, arch="sm_90", no_extern_c=True, cache_dir=False,
                  include_dirs=list(curand_headers()), target="ptx").decode()
    entries = dict(re.findall(r"\.visible \.entry (\w+)\(([^)]*)\)", ptx))
    assert set(entries) == set(kernels)
    for name, chars in kernels.items():
        types = re.findall(r"\.param (\.\w+)", entries[name])
        assert types == [_PTX_TYPE[c] for c in chars], name
    assert ".maxntid 1024, 1, 1" in ptx


# ---------------------------------------------------------------------------
# the dtype table

F4, F8, I4, U4, I8, U8 = (np.dtype(t) for t in (np.float32, np.float64, np.int32,
                                                 np.uint32, np.int64, np.uint64))


@pytest.mark.parametrize("kind", KINDS)
def test_dtypes_per_distribution(kind):
    fk = _curand_plan.fill_kernel
    wide = kind.endswith("64")
    assert fk(kind, "uniform", F4)[0] == "ga_curand_uniform_f4"
    assert fk(kind, "uniform", F8)[0] == "ga_curand_uniform_f8"
    assert fk(kind, "uniform", I4)[0] == fk(kind, "uniform", U4)[0] == "ga_curand_raw_u4"
    for dt in (I8, U8):
        if wide:
            assert fk(kind, "uniform", dt)[0] == "ga_curand_raw_u8"
        else:
            with pytest.raises(UnsupportedDtypeError):
                fk(kind, "uniform", dt)
    seeded = _curand_plan.KINDS[kind]["seeded"]
    for dist, extra in (("normal", ""), ("log_normal", "ff")):
        assert fk(kind, dist, F4) == ("ga_curand_%s_f4" % dist, "PPQ" + extra)
        name, chars = fk(kind, dist, F4, pairs=True)
        if seeded:
            assert name == "ga_curand_%s2_f4" % dist and chars.endswith("i")
        else:
            assert name == "ga_curand_%s_f4" % dist
        for dt in (I4, U4, np.dtype(np.float16), np.dtype(np.complex64)):
            with pytest.raises(UnsupportedDtypeError):
                fk(kind, dist, dt)
    assert fk(kind, "poisson", U4) == ("ga_curand_poisson_u4", "PPQd")
    for dt in (F4, F8, U4):
        assert fk(kind, "poisson_inplace", dt) == (
            "ga_curand_poisson_inplace_%s%d" % (dt.kind, dt.itemsize), "PPQ")
    for dt in (I4, U8, I8):
        with pytest.raises(UnsupportedDtypeError):
            fk(kind, "poisson_inplace", dt)
    for dt in (I4, F4, U8):
        with pytest.raises(TypeError):
            fk(kind, "poisson", dt)
    for bad in (np.int8, np.bool_, np.float16, np.complex128, "S3"):
        with pytest.raises(NotImplementedError):
            fk(kind, "uniform", bad)
    with pytest.raises(ValueError):
        fk(kind, "gamma", F4)
    with pytest.raises(ValueError):
        fk("philox", "uniform", F4)


def test_unsupported_dtype_error_is_both():
    assert issubclass(UnsupportedDtypeError, TypeError)
    assert issubclass(UnsupportedDtypeError, NotImplementedError)
    assert curandom.UnsupportedDtypeError is UnsupportedDtypeError


# ---------------------------------------------------------------------------
# the methods: checks before any launch, launches recorded

class _Flags:
    def __init__(self, c, f):
        self.c_contiguous, self.f_contiguous = c, f


class _Out:
    """The attributes the fill methods read (no memory)."""

    def __init__(self, dtype, size, ptr=1 << 20, c=True, f=False):
        self.dtype = np.dtype(dtype)
        self.size = size
        self.shape = (size,)
        self.ptr = ptr
        self.flags = _Flags(c, f)


def _generator(kind):
    """A generator object without its GPU part; launches are recorded."""
    g = object.__new__(CLASSES[kind])
    g.block_count, g.generators_per_block = 2, 64
    g.launches = []
    g._launch = lambda name, stream, *args: g.launches.append((name, args))
    return g


@pytest.mark.parametrize("kind", KINDS)
def test_fills_launch_the_right_kernel(kind):
    g = _generator(kind)
    seeded = _curand_plan.KINDS[kind]["seeded"]
    g.fill_uniform(_Out(F4, 10))
    g.fill_uniform(_Out(I4, 3))
    g.fill_normal(_Out(F8, 10))
    g.fill_normal(_Out(F4, 9))
    g.fill_normal(_Out(F4, 10, ptr=(1 << 20) + 4))
    g.fill_log_normal(_Out(F4, 4), 0.5, 2)
    g.fill_poisson(_Out(U4, 5), 3)
    g.fill_poisson(_Out(F8, 7))               # each element its own mean
    g.fill_uniform(_Out(F4, 0))               # empty: nothing launched
    g.fill_uniform(_Out(F4, 6, c=False, f=True))
    p = 1 << 20
    two = "2" if seeded else ""
    expect = [
        ("ga_curand_uniform_f4", (p, 10)),
        ("ga_curand_raw_u4", (p, 3)),
        ("ga_curand_normal%s_f8" % two, (p, 5, 1) if seeded else (p, 10)),
        ("ga_curand_normal_f4", (p, 9)),
        ("ga_curand_normal%s_f4" % two, (p + 4, 5, 0) if seeded else (p + 4, 10)),
        ("ga_curand_log_normal%s_f4" % two,
         (p, 2, 0.5, 2.0, 1) if seeded else (p, 4, 0.5, 2.0)),
        ("ga_curand_poisson_u4", (p, 5, 3.0)),
        ("ga_curand_poisson_inplace_f8", (p, 7)),
        ("ga_curand_uniform_f4", (p, 6)),
    ]
    assert g.launches == expect
    assert type(g.launches[5][1][2]) is np.float32
    g.launches.clear()
    g.fill_log_normal(_Out(F8, 3), 1, 0.5)
    assert type(g.launches[0][1][2]) is np.float64
    if kind.endswith("64"):
        g.fill_uniform(_Out(U8, 2))
        assert g.launches[-1][0] == "ga_curand_raw_u8"


@pytest.mark.parametrize("kind", KINDS)
def test_bad_arguments_raise_before_any_launch(kind):
    g = _generator(kind)
    with pytest.raises(UnsupportedDtypeError):
        g.fill_uniform(_Out(np.int16, 10))
    with pytest.raises(UnsupportedDtypeError):
        g.fill_uniform(_Out(np.int8, 0))      # even when empty
    with pytest.raises(UnsupportedDtypeError):
        g.fill_normal(_Out(I4, 10))
    with pytest.raises(UnsupportedDtypeError):
        g.fill_log_normal(_Out(U4, 10), 0, 1)
    with pytest.raises(UnsupportedDtypeError):
        g.fill_poisson(_Out(F4, 10), 2.0)
    with pytest.raises(UnsupportedDtypeError):
        g.fill_poisson(_Out(I4, 10))
    with pytest.raises(UnsupportedDtypeError):
        g.gen_uniform(10, np.complex64)
    with pytest.raises(UnsupportedDtypeError):
        g.gen_normal(10, np.int32)
    with pytest.raises(UnsupportedDtypeError):
        g.gen_poisson(10, np.int32, 2.0)
    with pytest.raises(TypeError):
        g.gen_poisson(10, np.uint32, None)    # no in-place form for gen_
    for lam in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            g.fill_poisson(_Out(U4, 10), lam)
        with pytest.raises(ValueError):
            g.gen_poisson(10, np.uint32, lam)
    for lam in ("3", True, [2.0]):
        with pytest.raises(TypeError):
            g.fill_poisson(_Out(U4, 10), lam)
    with pytest.raises(ValueError):
        g.fill_log_normal(_Out(F4, 10), 0.0, -1.0)
    with pytest.raises(ValueError):
        g.gen_log_normal(10, np.float32, 0.0, -0.5)
    with pytest.raises(TypeError):
        g.fill_log_normal(_Out(F4, 10), "0", 1.0)
    with pytest.raises(TypeError):
        g.fill_uniform(np.zeros(10, np.float32))   # a host array
    with pytest.raises(TypeError):
        g.fill_normal([1.0, 2.0])
    bits = 32 if kind in ("sobol32", "scrambled_sobol32") else 64
    with pytest.raises(ValueError):
        g.call_skip_ahead(-1)
    with pytest.raises(ValueError):
        g.call_skip_ahead(1 << bits)
    with pytest.raises(TypeError):
        g.call_skip_ahead(1.5)
    with pytest.raises(TypeError):
        g.call_skip_ahead_array(np.zeros(g.state_count, np.int8))
    with pytest.raises(TypeError):
        g.call_skip_ahead_array(np.zeros(g.state_count + 1, "u%d" % (bits // 8)))
    with pytest.raises(TypeError):
        g.call_skip_ahead_array(5)
    with pytest.raises(TypeError):
        g.call_skip_ahead_array(np.zeros(g.state_count, np.float32))
    assert g.launches == []
    g.call_skip_ahead((1 << bits) - 1)
    assert g.launches == [("ga_curand_skipahead", (128, (1 << bits) - 1))]


def test_sequence_skips_exist_where_cuRAND_has_them():
    for kind in KINDS:
        g = _generator(kind)
        seeded = _curand_plan.KINDS[kind]["seeded"]
        assert hasattr(g, "call_skip_ahead_sequence") == seeded
        assert hasattr(g, "call_skip_ahead_sequence_array") == seeded
        assert hasattr(g, "call_skip_ahead_subsequence") == (kind == "mrg32k3a")
        assert g.has_box_muller == seeded
    g = _generator("mrg32k3a")
    g.call_skip_ahead_sequence(2)
    g.call_skip_ahead_subsequence(3)
    assert [n for n, _ in g.launches] == ["ga_curand_skipahead_sequence",
                                          "ga_curand_skipahead_subsequence"]


@pytest.mark.parametrize("kind", KINDS)
def test_constructor_offsets_checked_first(kind):
    cls = CLASSES[kind]
    bits = 32 if kind in ("sobol32", "scrambled_sobol32") else 64
    with pytest.raises(ValueError):
        cls(offset=-1)
    with pytest.raises(ValueError):
        cls(offset=1 << bits)
    with pytest.raises(TypeError):
        cls(offset=2.0)


# ---------------------------------------------------------------------------
# libcurand and the headers

def test_version_formula(monkeypatch):
    monkeypatch.setattr(_curand, "version", lambda: 10405)
    assert curandom.get_curand_version() == (10, 40, 5)
    monkeypatch.setattr(_curand, "version", lambda: 3020)
    assert curandom.get_curand_version() == (3, 2, 0)


def test_direction_vector_set_values():
    s = curandom.direction_vector_set
    assert (s.VECTOR_32, s.SCRAMBLED_VECTOR_32, s.VECTOR_64,
            s.SCRAMBLED_VECTOR_64) == (101, 102, 103, 104)


def test_candidates_cover_wheels_and_toolkit(monkeypatch, tmp_path):
    from gpuarr import _toolchain
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [str(tmp_path)])
    monkeypatch.setenv("CUDA_PATH", "/opt/cuda-x")
    c = _curand.candidates()
    assert c[0] == str(tmp_path / "cu13" / "lib" / "libcurand.so.10")
    assert str(tmp_path / "curand" / "lib" / "libcurand.so.10") in c
    assert "/opt/cuda-x/lib64/libcurand.so.10" in c
    assert "/usr/local/cuda/lib64/libcurand.so.10" in c


def test_missing_library_names_the_wheel(monkeypatch):
    _curand.reset()
    monkeypatch.setattr(_curand, "candidates", lambda: [])
    monkeypatch.setattr(_curand, "_SONAMES", ("libcurand-none.so.99",))
    try:
        with pytest.raises(_curand.CurandNotFoundError) as info:
            _curand.load()
        assert "pip install nvidia-curand" in str(info.value)
        # why the loader refused the bare soname
        assert "libcurand-none.so.99: " in str(info.value)
        assert isinstance(info.value, RuntimeError)
        with pytest.raises(_curand.CurandNotFoundError):
            curandom.get_curand_version()
        with pytest.raises(_curand.CurandNotFoundError):
            curandom.direction_vectors_host(4)
    finally:
        _curand.reset()


def _touch(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()


def test_header_search(monkeypatch, tmp_path):
    """curand_kernel.h and the CCCL headers are looked for in
    _toolchain.default_includes(), in its order (the toolkit first)."""
    from gpuarr import _toolchain
    monkeypatch.setattr(_toolchain, "nvidia_dirs", lambda: [str(tmp_path)])
    monkeypatch.setattr(_toolchain, "toolkit_roots", lambda: [str(tmp_path / "tk")])
    monkeypatch.setattr(_toolchain, "_memo", {})

    def again():
        _curand.reset()
        _toolchain._memo.clear()
        return _curand.include_dirs()

    try:
        with pytest.raises(_curand.CurandNotFoundError) as info:
            again()
        assert "curand_kernel.h" in str(info.value)
        assert "pip install nvidia-curand" in str(info.value)
        inc = tmp_path / "cu13" / "include"
        _touch(str(inc / "curand_kernel.h"))
        with pytest.raises(_curand.CurandNotFoundError) as info:
            again()
        assert "nvidia-cuda-cccl" in str(info.value)
        assert str(inc) in str(info.value)          # where it looked
        # the wheel's own CCCL
        _touch(str(inc / "cccl" / "cuda" / "std" / "type_traits"))
        _touch(str(inc / "cccl" / "nv" / "target"))
        assert again() == (str(inc), str(inc / "cccl"))
        # a toolkit comes first, as in every NVRTC compile: its CCCL, then
        # its curand_kernel.h too
        tk = tmp_path / "tk" / "include"
        _touch(str(tk / "cuda_runtime.h"))
        _touch(str(tk / "cccl" / "cuda" / "std" / "type_traits"))
        _touch(str(tk / "cccl" / "nv" / "target"))
        assert again() == (str(inc), str(tk / "cccl"))
        _touch(str(tk / "curand_kernel.h"))
        assert again() == (str(tk), str(tk / "cccl"))
        assert again() == _toolchain.default_includes()[:2]
        # the CUDA 12 wheels' directories
        for d in (inc, tk):
            os.remove(str(d / "curand_kernel.h"))
        _touch(str(tmp_path / "curand" / "include" / "curand_kernel.h"))
        assert again() == (str(tmp_path / "curand" / "include"), str(tk / "cccl"))
    finally:
        _curand.reset()


def test_curand_headers_are_among_the_default_includes():
    from gpuarr import _toolchain
    found = curand_headers()
    if found is None:
        pytest.skip("cuRAND's headers are not installed")
    places = _toolchain.default_includes()
    assert all(d in places for d in found)
    first = [d for d in places
             if os.path.isfile(os.path.join(d, "curand_kernel.h"))][0]
    assert found[0] == first


@pytest.mark.skipif(not _has_lib(), reason="libcurand is not installed "
                                           "(pip install nvidia-curand)")
def test_host_tables():
    assert _curand.version() >= 10000
    v = curandom.direction_vectors_host(20003)
    assert v.shape == (20003, 32) and v.dtype == np.uint32
    # dimension 0: the powers of two, from the top bit down
    assert (v[0] == (1 << (31 - np.arange(32))).astype(np.uint32)).all()
    np.testing.assert_array_equal(v[20000:], v[:3])
    assert len(np.unique(v[:, 1])) > 1
    for vs in (curandom.direction_vector_set.VECTOR_64,
               curandom.direction_vector_set.SCRAMBLED_VECTOR_64):
        w = curandom.direction_vectors_host(3, vs)
        assert w.shape == (3, 64) and w.dtype == np.uint64
    s = curandom.direction_vectors_host(
        2, curandom.direction_vector_set.SCRAMBLED_VECTOR_32)
    assert not np.array_equal(s, v[:2])
    c32 = _curand.scramble_constants(32)
    c64 = _curand.scramble_constants(64)
    assert c32.shape == c64.shape == (20000,)
    assert c32.dtype == np.uint32 and c64.dtype == np.uint64
    assert curandom.direction_vectors_host(0).shape == (0, 32)
    np.testing.assert_array_equal(curandom.direction_vectors_host(3, None), v[:3])
    with pytest.raises(ValueError):
        curandom.direction_vectors_host(-1)
    with pytest.raises(TypeError):
        curandom.direction_vectors_host(2.5)
    with pytest.raises(ValueError):
        _curand.direction_vectors(7)
    with pytest.raises(ValueError):
        _curand.scramble_constants(16)


def _nvcc():
    import shutil
    return shutil.which("nvcc") or next(
        (p for p in ("/usr/local/cuda/bin/nvcc",) if os.path.exists(p)), None)


@pytest.mark.skipif(_nvcc() is None, reason="nvcc is not installed")
@pytest.mark.skipif(curand_headers() is None,
                    reason="cuRAND's headers are not installed "
                           "(pip install nvidia-curand nvidia-cuda-cccl)")
def test_reference_program_compiles(tmp_path):
    """tests/data/curand_ref.cu, which the GPU tests build and run, compiles
    (object file only: no GPU, no libcurand needed)."""
    import subprocess
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                       "curand_ref.cu")
    cmd = [_nvcc(), "-c", "-arch=sm_90", "-I", curand_headers()[0], "-o",
           str(tmp_path / "curand_ref.o"), src]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]


# ---------------------------------------------------------------------------
# the constructors and fills against stand-ins for the GPU parts

class _Dev:
    """A stand-in GPUArray: a host array with a made-up address."""
    _next = [1 << 30]

    def __init__(self, host):
        self.host = host
        self.dtype, self.shape, self.size = host.dtype, host.shape, host.size
        self.ptr = self.gpudata = _Dev._next[0]
        _Dev._next[0] += 1 << 20
        self.flags = _Flags(host.flags.c_contiguous, host.flags.f_contiguous)


class _Fn:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def prepared_async_call(self, grid, block, stream, *args):
        self.log.append((self.name, grid, block, stream, args))


@pytest.fixture
def stand_ins(monkeypatch):
    """Launches recorded; memory, context and libcurand's tables faked."""
    from gpuarr import _creation, _percontext, _transfer
    log = []

    class Fns(dict):
        def __missing__(self, name):
            return _Fn(name, log)

    ctx = object()
    monkeypatch.setattr(_curand_plan, "module",
                        lambda kind: (None, Fns(), 48, 64, 2))
    monkeypatch.setattr(_percontext, "current_context", lambda: ctx)
    monkeypatch.setattr(_creation, "empty",
                        lambda shape, dtype: _Dev(np.zeros(shape, dtype)))
    monkeypatch.setattr(_creation, "to_gpu", lambda a: _Dev(np.asarray(a)))
    monkeypatch.setattr(_transfer, "copy_into",
                        lambda out, src, stream=None: log.append(("copy", out, src)))
    monkeypatch.setattr(_curand, "direction_vectors", lambda vs: np.full(
        (_curand.DIMENSIONS, 32 if vs in (101, 102) else 64), vs,
        np.uint32 if vs in (101, 102) else np.uint64))
    monkeypatch.setattr(_curand, "scramble_constants", lambda bits: np.arange(
        _curand.DIMENSIONS, dtype="u%d" % (bits // 8)))
    return log


def test_pseudo_constructors_launch_curand_init(stand_ins):
    log = stand_ins
    seen = []

    def getter(n):
        seen.append(n)
        return _Dev(np.arange(n, dtype=np.int32))

    for cls in (curandom.XORWOWRandomNumberGenerator,
                curandom.MRG32k3aRandomNumberGenerator):
        log.clear()
        g = cls(seed_getter=getter, offset=7)
        assert (g.block_count, g.generators_per_block, g.state_count) == (2, 64, 128)
        assert g._state.size == 128 * 48
        assert seen[-1] == 128
        (name, grid, block, stream, args), = log
        assert (name, grid, block, stream) == ("ga_curand_init", (2, 1), (64, 1, 1), None)
        assert args[0] == g._state.ptr and args[1] == 128 and args[3] == 7
        g2 = cls()                                  # numpy's global seeds
        assert log[-1][4][1] == 128
        with pytest.raises(TypeError):
            cls(seed_getter=lambda n: _Dev(np.zeros(n, np.float32)))
        with pytest.raises(TypeError):
            cls(seed_getter=lambda n: _Dev(np.zeros(n - 1, np.int32)))
        with pytest.raises(TypeError):
            cls(seed_getter=lambda n: np.zeros(n, np.int32))    # host memory
        # a fill: state pointer first, one thread per state
        log.clear()
        out = g2.gen_normal(10, np.float64)
        (name, grid, block, stream, args), = log
        assert name == "ga_curand_normal2_f8"
        assert args == (g2._state.ptr, out.ptr, 5, 1)


@pytest.mark.parametrize("kind", ["sobol32", "scrambled_sobol32", "sobol64",
                                  "scrambled_sobol64"])
def test_sobol_constructors_take_cuRANDs_tables(stand_ins, kind):
    log = stand_ins
    cls = CLASSES[kind]
    bits = 64 if kind.endswith("64") else 32
    scrambled = kind.startswith("scrambled")
    g = cls(offset=5)
    (name, grid, block, stream, args), = log
    assert name == "ga_curand_init" and args[0] == g._state.ptr and args[1] == 128
    assert args[-1] == 5 and len(args) == (5 if scrambled else 4)
    vs = {"sobol32": 101, "scrambled_sobol32": 102, "sobol64": 103,
          "scrambled_sobol64": 104}[kind]
    assert g._set == vs
    # explicit tables: checked, passed by address
    log.clear()
    dv = _Dev(np.zeros((128, bits), "u%d" % (bits // 8)))
    kw = {"dir_vector": dv}
    if scrambled:
        sv = _Dev(np.zeros(128, "u%d" % (bits // 8)))
        kw["scramble_vector"] = sv
    cls(**kw)
    args = log[-1][4]
    assert args[2] == dv.ptr and (not scrambled or args[3] == sv.ptr)
    cls(dir_vector=_Dev(np.zeros((128, bits), "i%d" % (bits // 8))))  # signed
    with pytest.raises(TypeError):
        cls(dir_vector=_Dev(np.zeros((127, bits), "u%d" % (bits // 8))))
    with pytest.raises(TypeError):
        cls(dir_vector=_Dev(np.zeros((128, 96 - bits), "u%d" % (bits // 8))))
    if scrambled:
        with pytest.raises(TypeError):
            cls(scramble_vector=_Dev(np.zeros(128, np.float32)))


def test_non_contiguous_output_goes_through_a_temporary(stand_ins):
    log = stand_ins
    g = curandom.XORWOWRandomNumberGenerator(
        seed_getter=lambda n: _Dev(np.zeros(n, np.int32)))
    log.clear()
    out = _Dev(np.zeros(12, np.float32))
    out.flags = _Flags(False, False)
    out.shape = (3, 2)
    out.size = 6
    g.fill_normal(out)
    (name, _, _, _, args), (copy, dst, tmp) = log
    assert name == "ga_curand_normal2_f4" and args[2] == 3   # 6 values, 3 pairs
    assert copy == "copy" and dst is out and tmp.shape == (3, 2)
    assert args[1] == tmp.ptr


def test_strided_in_place_poisson_copies_the_means_first(stand_ins):
    log = stand_ins
    g = curandom.MRG32k3aRandomNumberGenerator(
        seed_getter=lambda n: _Dev(np.zeros(n, np.int32)))
    log.clear()
    out = _Dev(np.zeros(8, np.float32))
    out.flags = _Flags(False, False)
    out.shape, out.size = (4,), 4
    g.fill_poisson(out)
    (c1, tmp, src), (name, _, _, _, args), (c2, dst, tmp2) = log
    assert (c1, src, c2, dst) == ("copy", out, "copy", out)
    assert tmp is tmp2 and name == "ga_curand_poisson_inplace_f4"
    assert args[1:] == (tmp.ptr, 4)


def test_generators_belong_to_their_context(stand_ins, monkeypatch):
    from gpuarr import _percontext
    from gpuarr._errors import LogicError
    g = curandom.Sobol32RandomNumberGenerator()
    other = object()
    monkeypatch.setattr(_percontext, "current_context", lambda: other)
    with pytest.raises(LogicError):
        g.fill_uniform(_Dev(np.zeros(4, np.float32)))


@pytest.mark.parametrize("kind", KINDS)
def test_launch_shape_caps_sobol_states_at_the_dimensions(kind):
    shape = _curand_plan.launch_shape
    sobol = not _curand_plan.KINDS[kind]["seeded"]
    # an H200: 132 multiprocessors, kernels of 1024 threads
    assert shape(kind, 132, 1024) == ((132, 128) if sobol else (132, 1024))
    assert shape(kind, 16, 1024) == (16, 1024)          # 16384 fit
    assert shape(kind, 20, 1024) == ((20, 992) if sobol else (20, 1024))
    assert shape(kind, 1000, 1024) == ((625, 32) if sobol else (1000, 1024))
    if not sobol:
        return
    for blocks in (1, 2, 7, 19, 20, 21, 132, 624, 625, 626, 5000):
        for per_block in (1, 31, 32, 33, 100, 512, 1024):
            b, t = shape(kind, blocks, per_block)
            assert 1 <= b <= blocks and 1 <= t <= per_block
            assert b * t <= _curand.DIMENSIONS
            if blocks * per_block <= _curand.DIMENSIONS:
                assert (b, t) == (blocks, per_block)
            else:
                assert t % min(32, per_block) == 0
                # no larger whole-warp block would fit
                assert b * (t + min(32, per_block)) > _curand.DIMENSIONS \
                    or t == per_block


@pytest.mark.parametrize("kind", KINDS)
def test_sobol_states_on_a_132_multiprocessor_device(stand_ins, monkeypatch, kind):
    """A fake H200: the Sobol forms get 132 blocks of 128 threads, state
    k takes dimension k of cuRAND's tables (no dimension twice), and a
    fill of more than 2 * 20000 values launches that shape; XORWOW and
    MRG32k3a keep one state per thread of every multiprocessor."""
    from gpuarr import _creation
    log = stand_ins

    class Fns(dict):
        def __missing__(self, name):
            return _Fn(name, log)

    monkeypatch.setattr(_curand_plan, "module",
                        lambda kind: (None, Fns(), 48, 1024, 132))
    uploaded = []

    def to_gpu(a):
        uploaded.append(_Dev(np.array(a)))
        return uploaded[-1]

    monkeypatch.setattr(_creation, "to_gpu", to_gpu)
    bits = 64 if kind.endswith("64") else 32
    dt = "u%d" % (bits // 8)
    table = np.arange(_curand.DIMENSIONS * bits, dtype=dt).reshape(-1, bits)
    monkeypatch.setattr(_curand, "direction_vectors", lambda vs: table)
    monkeypatch.setattr(_curand, "scramble_constants", lambda b: np.arange(
        _curand.DIMENSIONS, dtype="u%d" % (b // 8)) * 3)
    sobol = not _curand_plan.KINDS[kind]["seeded"]
    g = CLASSES[kind](offset=1) if sobol else CLASSES[kind](
        seed_getter=lambda n: _Dev(np.zeros(n, np.int32)), offset=1)
    S = g.state_count
    assert S == g.block_count * g.generators_per_block
    if not sobol:
        assert (g.block_count, g.generators_per_block) == (132, 1024)
        return
    assert (g.block_count, g.generators_per_block) == (132, 128)
    assert S == 16896 <= _curand.DIMENSIONS
    assert g._state.size == S * 48
    (name, grid, block, stream, args), = log
    assert (name, grid, block) == ("ga_curand_init", (132, 1), (128, 1, 1))
    assert args[1] == S
    dv = next(u for u in uploaded if u.ptr == args[2]).host
    np.testing.assert_array_equal(dv, table[:S])
    assert len(np.unique(dv, axis=0)) == S
    if kind.startswith("scrambled"):
        sc = next(u for u in uploaded if u.ptr == args[3]).host
        assert len(np.unique(sc)) == S
    log.clear()
    out = g.gen_uniform(2 * _curand.DIMENSIONS + 5, np.uint32)
    (name, grid, block, stream, args), = log
    assert (name, grid, block) == ("ga_curand_raw_u4", (132, 1), (128, 1, 1))
    assert args == (g._state.ptr, out.ptr, 2 * _curand.DIMENSIONS + 5)


class _Stream:
    """A stand-in stream that records its synchronizations in ``log``."""

    def __init__(self, log):
        self.log = log

    def synchronize(self):
        self.log.append(("sync", self))


def test_temporaries_outlive_the_streams_work(stand_ins):
    """The pool does not track streams: a call on a stream that made a
    temporary (the C-ordered copy of a strided output, the uploaded skips
    of a numpy array) synchronizes that stream after its last launch;
    calls without one, or without a temporary, do not."""
    log = stand_ins
    g = curandom.MRG32k3aRandomNumberGenerator(
        seed_getter=lambda n: _Dev(np.zeros(n, np.int32)))
    s = _Stream(log)

    def strided():
        out = _Dev(np.zeros(8, np.float32))
        out.flags = _Flags(False, False)
        out.shape, out.size = (4,), 4
        return out

    for call in (lambda out, st: g.fill_uniform(out, stream=st),
                 lambda out, st: g.fill_poisson(out, stream=st),
                 lambda out, st: g.fill_log_normal(out, 0.0, 1.0, stream=st)):
        log.clear()
        call(strided(), s)
        assert log[-1] == ("sync", s)
        assert [e[0] for e in log].count("sync") == 1
        assert log[-2][0] == "copy" and log[-3][3] is s     # launch on s
        log.clear()
        call(strided(), None)
        assert all(e[0] != "sync" for e in log)
        log.clear()
        call(_Dev(np.zeros(4, np.float32)), s)           # contiguous: none
        assert all(e[0] != "sync" for e in log) and log[-1][3] is s
    n = g.state_count
    for skip in (g.call_skip_ahead_array, g.call_skip_ahead_sequence_array,
                 g.call_skip_ahead_subsequence_array):
        log.clear()
        skip(np.arange(n, dtype=np.uint64), stream=s)
        (name, _, _, stream, args), sync = log
        assert name.endswith("_array") and stream is s and sync == ("sync", s)
        log.clear()
        skip(np.arange(n, dtype=np.uint64))
        assert len(log) == 1
        log.clear()
        skip(_Dev(np.arange(n, dtype=np.uint64)), stream=s)
        assert len(log) == 1 and log[0][3] is s
