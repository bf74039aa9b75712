"""gpuarr._image: kernel parameter counts read from cubin and PTX images.

No GPU is needed: the images are compiled here for an explicit arch (NVRTC,
else nvcc; the tests that compile are skipped, with the reason, when
neither is found).
"""
import os
import shutil
import struct
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from gpuarr import _image, compiler
from gpuarr.compiler import CompilerNotFoundError

_TYPES = ["char", "short", "int", "double", "float *", "long long", "S3",
          "S24", "bool", "unsigned char"]

SOURCE = r"""
struct S3 { char a, b, c; };
struct S24 { double d[3]; };
struct Big { double d[1000]; };       // 8000 bytes: a bank over 4 KB
extern "C" __global__ void k0() {}
extern "C" __global__ void k1(float *a) { a[0] = 1; }
extern "C" __global__ void k5(float *a, char c, short s, double d, S24 t)
{
    a[0] = c + s + d + t.d[1];
}
extern "C" __global__ void k40(%s) {}
extern "C" __global__ void big(Big b, int n) {}
extern "C" __global__ void unused(int n, float *a, S3 s) {}
template <typename T> __global__ void tk(T *a, int n) { a[n] = 0; }
template __global__ void tk<float>(float *, int);
""" % ", ".join("%s p%d" % (_TYPES[k % len(_TYPES)], k) for k in range(40))

EXPECTED = {"k0": 0, "k1": 1, "k5": 5, "k40": 40, "big": 2, "unused": 3,
            "_Z2tkIfEvPT_i": 2}

_built = {}


def _build(arch, target):
    key = (arch, target)
    if key not in _built:
        try:
            _built[key] = compiler.compile(SOURCE, arch=arch, no_extern_c=True,
                                           cache_dir=False, target=target)
        except CompilerNotFoundError as exc:
            _built[key] = exc
    image = _built[key]
    if isinstance(image, Exception):
        pytest.skip("no CUDA compiler: %s" % image)
    return image


@pytest.fixture(scope="module")
def cubin():
    return _build("sm_90", "cubin")


@pytest.fixture(scope="module")
def ptx():
    return _build("sm_90", "ptx")


def _info_sections(elf):
    """``{kernel name: (offset, size)}`` of the .nv.info.<kernel> sections."""
    return {name[len(b".nv.info."):].decode(): (off, size)
            for name, off, size in _image._sections(elf)
            if name.startswith(b".nv.info.")}


def _records(elf, kernel):
    """``[(position in the image, format, attribute, value)]`` of a kernel."""
    off, size = _info_sections(elf)[kernel]
    out, p = [], off
    while p < off + size:
        fmt, attr, value = struct.unpack_from("<BBH", elf, p)
        out.append((p, fmt, attr, value))
        p += 4 + (value if fmt == 4 else 0)
    return out


# ---------------------------------------------------------------------------
# Counts
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("arch", ["sm_75", "sm_90", "sm_100"])
def test_cubin_counts_every_kernel(arch):
    image = _build(arch, "cubin")
    assert _image.image_kind(image) == "cubin"
    assert _image.param_counts(image) == EXPECTED


def test_cubin_with_a_trailing_nul_as_module_from_buffer_passes_it(cubin):
    assert _image.param_counts(cubin + b"\0") == EXPECTED
    assert _image.param_counts(bytearray(cubin)) == EXPECTED
    assert _image.param_counts(memoryview(cubin)) == EXPECTED


def test_large_parameters_come_as_version_2_records(cubin):
    # Where the parameters take more than 4 KB the compiler describes them
    # with EIATTR_KPARAM_INFO_V2 (0x45) instead of EIATTR_KPARAM_INFO
    # (0x17): both must be counted.
    attrs = {name: [a for _, fmt, a, _ in _records(cubin, name) if fmt == 4]
             for name in ("big", "k5")}
    assert attrs["big"].count(0x45) == 2 and 0x17 not in attrs["big"]
    assert attrs["k5"].count(0x17) == 5 and 0x45 not in attrs["k5"]


def test_ptx_counts_every_kernel(ptx):
    assert _image.image_kind(ptx) == "ptx"
    assert _image.param_counts(ptx) == EXPECTED
    assert _image.param_counts(ptx + b"\0") == EXPECTED


def test_ptx_written_by_hand():
    text = b"""
// .entry commented_out(.param .u32 a)
/* .entry also_commented(.param .u32 a, .param .u32 b) */
.version 8.0
.target sm_90
.address_size 64
.visible .entry no_list
{
    ret;
}
.visible .entry empty_list ( )
{
    ret;
}
.weak .entry spread(
    .param .u64 .ptr .global .align 4 spread_param_0,
    .param .align 8 .b8 spread_param_1[48],   // a struct
    .param .f32 spread_param_2
)
{
    ret;
}
"""
    assert _image.param_counts(text) == {"no_list": 0, "empty_list": 0, "spread": 3}


def test_ptx_declared_twice_with_different_counts_is_unknown():
    text = b""".version 8.0
.target sm_90
.entry twice(.param .u32 a);
.entry twice(.param .u32 a, .param .u32 b) { ret; }
.entry once(.param .u32 a) { ret; }
"""
    assert _image.param_counts(text) == {"once": 1}


# ---------------------------------------------------------------------------
# What is not counted
# ---------------------------------------------------------------------------

def test_fatbin_is_unknown(cubin):
    # A fatbin header (magic 0xBA55ED50) with a cubin inside: not read.
    fatbin = struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(cubin)) + cubin
    assert _image.image_kind(fatbin) == "fatbin"
    assert _image.param_counts(fatbin) is None


NVCC = shutil.which("nvcc") or next(
    (p for p in ["/usr/local/cuda/bin/nvcc"] if os.path.exists(p)), None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
def test_images_from_nvcc(tmp_path):
    # nvcc's cubin and PTX are counted as NVRTC's are; its fatbin is not read.
    src = tmp_path / "k.cu"
    src.write_text(SOURCE)
    images = {}
    for kind in ("cubin", "ptx", "fatbin"):
        out = tmp_path / ("k." + kind)
        r = subprocess.run([NVCC, "-" + kind, "-arch=sm_90", "-o", str(out), str(src)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        images[kind] = out.read_bytes()
        assert _image.image_kind(images[kind]) == kind
    assert _image.param_counts(images["cubin"]) == EXPECTED
    assert _image.param_counts(images["ptx"]) == EXPECTED
    assert _image.param_counts(images["fatbin"]) is None


@pytest.mark.parametrize("image", [
    b"", b"\0", b"FAKE\nkernel k 8,4\n", b"\x00\x01\x02\x03" * 64,
    b".entry k(.param .u32 a)",            # no .version: not PTX
    "\u00e9.version 8.0\n".encode(),        # not ASCII
    b".version 8.0\n\0.entry k(.param .u32 a)",
])
def test_unknown_images(image):
    assert _image.image_kind(image) is None
    assert _image.param_counts(image) is None


def test_elf_of_another_machine_is_unknown():
    with open(sys.executable, "rb") as f:
        head = f.read(1 << 16)
    if head[:4] != b"\x7fELF":
        pytest.skip("the Python executable is not an ELF file")
    assert _image.param_counts(head) is None


def test_truncated_or_zeroed_cubin(cubin):
    shoff, = struct.unpack_from("<Q", cubin, 0x28)
    shnum, = struct.unpack_from("<H", cubin, 0x3C)
    headers_end = shoff + 64 * shnum
    for n in (4, 63, 64, shoff + 10, headers_end - 1):
        assert _image.param_counts(cubin[:n]) is None
    # The second half of one kernel's records zeroed (format 0 is no
    # format): that kernel is left out, the others are still read.
    off, size = _info_sections(cubin)["k40"]
    half = off + size // 2 // 4 * 4
    zeroed = cubin[:half] + bytes(off + size - half) + cubin[off + size:]
    rest = dict(EXPECTED)
    del rest["k40"]
    assert _image.param_counts(zeroed) == rest


def test_a_kernel_whose_records_disagree_is_left_out(cubin):
    records = _records(cubin, "k5")
    kparams = [p for p, fmt, attr, _ in records if fmt == 4 and attr == 0x17]
    bank = [p for p, fmt, attr, _ in records if fmt == 3 and attr == 0x19]
    assert len(kparams) == 5 and len(bank) == 1
    rest = dict(EXPECTED)
    del rest["k5"]

    def patched(pos, fmt, value):
        data = bytearray(cubin)
        struct.pack_into(fmt, data, pos, value)
        return bytes(data)

    # Ordinals 0..4 with one of them changed to 7: a gap.
    assert _image.param_counts(patched(kparams[0] + 8, "<H", 7)) == rest
    # The last parameter no longer ends where the bank does.
    assert _image.param_counts(patched(bank[0] + 2, "<H", 1000)) == rest
    # A record of a format whose length is not known.
    assert _image.param_counts(patched(records[0][0], "<B", 9)) == rest
    # One parameter's record dropped (its attribute changed): the bank
    # size or the ordinals give it away.
    for pos in kparams:
        data = bytearray(cubin)
        data[pos + 1] = 0x7e
        assert _image.param_counts(bytes(data)) == rest


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_corrupt_cubin_never_raises(cubin, data):
    image = bytearray(cubin)
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(image) - 1))
        image[pos] = data.draw(st.integers(0, 255))
    out = _image.param_counts(bytes(image))
    assert out is None or all(isinstance(k, str) and isinstance(v, int) and v >= 0
                              for k, v in out.items())


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=512))
def test_random_bytes_never_raise(blob):
    for image in (blob, b"\x7fELF" + blob, b".version 8.0\n" + blob):
        out = _image.param_counts(image)
        assert out is None or isinstance(out, dict)
