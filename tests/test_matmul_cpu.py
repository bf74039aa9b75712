"""CPU tests of the matrix products: the integer kernel renders and
compiles for every integer dtype; the layouts cuBLAS is given (which
strides pass as they are, which are copied) agree with a column-major
reading done here in numpy; numpy's errors for matmul, dot, tensordot,
einsum and multi_dot are raised before anything touches the driver (there
is none here); einsum's parser and multi_dot's order agree with numpy's;
a missing cuBLAS names its wheel."""

import numpy as np
import pytest

from _util import batch_sources, kernel_compiler

import gpuarr
from gpuarr import _blas, _contract, _matmul
from gpuarr import _matmulkernels as mk

COMPILE = kernel_compiler()
needs_compiler = pytest.mark.skipif(
    COMPILE is None, reason="neither gpuarr.compiler (NVRTC/nvcc) nor nvcc "
                            "is available")


def fake(shape, dtype=np.float32, strides=None):
    """A GPUArray over a made-up address (no device needed)."""
    return gpuarr.GPUArray(shape, dtype, gpudata=1 << 20, strides=strides)


@needs_compiler
def test_every_integer_kernel_compiles():
    specs = [mk.int_gemm_spec(dt, 5, 7, 3, 2, (1, 2, 3), (4, 5, 6), (7, 8, 9))
             for dt in mk.INT_DTYPES]
    assert len({s.kkey for s in specs}) == len(specs)
    COMPILE(batch_sources(specs))


def test_integer_spec_grid_and_tail():
    s = mk.int_gemm_spec(np.dtype(np.int16), 40, 3, 9, 10 ** 6,
                         (1, 2, 3), (4, 5, 6), (7, 8, 9))
    assert s.grid == (1, 3, mk.GRID_LIMIT)
    assert s.tail == (40, 3, 9, 10 ** 6, 1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert len(s.chars) == 3 + len(s.tail)
    with pytest.raises(TypeError):
        mk.int_gemm_spec(np.dtype(np.float32), 1, 1, 1, 1, (0,) * 3, (0,) * 3,
                         (0,) * 3)


def _read(mem, r, c, lay, ld):
    """The r x c matrix a column-major reader sees at ``mem`` (flat)."""
    if lay == _matmul._ROW:     # stored as the c x r transpose
        return np.array([[mem[j + i * ld] for j in range(c)] for i in range(r)])
    return np.array([[mem[i + j * ld] for j in range(c)] for i in range(r)])


@pytest.mark.parametrize("case", range(9))
def test_matrix_layouts_read_back_the_matrix(case):
    base = np.arange(400.0)
    views = [lambda b: b[:60].reshape(6, 10),                 # C order
             lambda b: b[:60].reshape(10, 6).T,               # F order
             lambda b: b[:120].reshape(6, 20)[:, 3:13],       # row pitch
             lambda b: b[:200].reshape(20, 10).T[:, ::2],     # column pitch
             lambda b: b[:10].reshape(1, 10),                 # one row
             lambda b: b[:30:3].reshape(10, 1),               # strided column
             lambda b: b[:30:3].reshape(1, 10),               # strided row
             lambda b: b[:1].reshape(1, 1),
             lambda b: b[:120].reshape(6, 20)[:, ::2]]        # neither
    v = views[case](base)
    st = tuple(s // 8 for s in v.strides)
    got = _matmul._layout_of(v.shape[0], v.shape[1], *st)
    if case == 8:
        assert got is None
        return
    lay, ld = got
    off = (v.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 8
    np.testing.assert_array_equal(_read(base[off:], *v.shape, lay, ld), v)
    assert ld >= (v.shape[1] if lay == _matmul._ROW else v.shape[0])


def test_negative_or_zero_strides_are_not_read_as_they_are():
    assert _matmul._layout_of(4, 5, -5, 1) is None
    assert _matmul._layout_of(4, 5, 0, 1) is None
    assert _matmul._layout_of(4, 5, 5, -1) is None


def _err(fn, *args, **kw):
    try:
        fn(*args, **kw)
    except Exception as exc:         # noqa: BLE001 - compared below
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize("shapes", [((), (3,)), ((3,), ()), ((2, 3), (2, 3)),
                                    ((2, 3, 4), (3, 4, 5)), ((4,), (3,)),
                                    ((5, 2, 3), (4, 3, 1))])
def test_matmul_errors_are_numpys(shapes):
    sa, sb = shapes
    want = _err(np.matmul, np.ones(sa), np.ones(sb))
    got = _err(gpuarr.matmul, fake(sa, np.float64), fake(sb, np.float64))
    assert want is not None and got is not None
    assert issubclass(got[0], want[0]) and got[1] == want[1]


def test_matmul_out_and_casting_errors():
    a, b = fake((2, 2), np.float64), fake((2, 2), np.float64)
    with pytest.raises(ValueError, match="Output operand 0 has a mismatch"):
        gpuarr.matmul(a, b, out=fake((3, 3), np.float64))
    want = _err(np.matmul, np.ones((2, 2)), np.ones((2, 2)),
                out=np.ones((2, 2), np.int32))
    got = _err(gpuarr.matmul, a, b, out=fake((2, 2), np.int32))
    assert issubclass(got[0], TypeError) and got[1] == want[1]
    want = _err(np.matmul, np.ones((2, 2)), np.ones((2, 2)), dtype=np.int32)
    got = _err(gpuarr.matmul, a, b, dtype=np.int32)
    assert issubclass(got[0], TypeError) and got[1] == want[1]


def test_operator_refuses_host_arrays():
    with pytest.raises(TypeError, match="get()"):
        fake((2, 2)) @ np.ones((2, 2), np.float32)
    with pytest.raises(TypeError):
        np.ones((2, 2), np.float32) @ fake((2, 2))
    with pytest.raises(TypeError):
        np.matmul(fake((2, 2)), np.ones((2, 2), np.float32))


@pytest.mark.parametrize("args", [((2, 3), (2, 3)), ((2, 3, 4), (5, 3, 2)),
                                  ((3,), (4, 2))])
def test_dot_alignment_errors_are_numpys(args):
    sa, sb = args
    want = _err(np.dot, np.ones(sa), np.ones(sb))
    got = _err(gpuarr.dot, fake(sa, np.float64), fake(sb, np.float64))
    assert got == want


def test_dot_out_must_be_exact():
    want = _err(np.dot, np.ones((2, 3)), np.ones((3, 2)),
                out=np.ones((2, 2), np.float32))
    got = _err(gpuarr.dot, fake((2, 3), np.float64), fake((3, 2), np.float64),
               out=fake((2, 2), np.float32))
    assert got == want


@pytest.mark.parametrize("axes", [2, 1, 0, ([1, 0], [0, 1]), (2, 0), ([0], [1]),
                                  ((0, 1), (0,))])
def test_tensordot_axes_as_numpy(axes):
    sa, sb = (3, 4, 5), (4, 3, 2)
    try:
        want = np.tensordot(np.ones(sa), np.ones(sb), axes).shape
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            _matmul.tensordot_axes(sa, sb, axes)
        return
    xa, xb = _matmul.tensordot_axes(sa, sb, axes)
    free = [sa[i] for i in range(3) if i not in xa] + \
        [sb[i] for i in range(3) if i not in xb]
    assert tuple(free) == want


EINSUM = ["ij,jk->ik", "ij,jk", "ii->i", "ii", "ij->ji", "...ij,...jk->...ik",
          "bij,bjk->bik", "i,i", "i,j->ij", "ijk,kj->i", "Ba,ab", "...i,...i",
          "ij,ij->ij", "a,b,c->abc", "ij,jk,kl->il", " i j , j k "]
SHAPES = {"i": 3, "j": 4, "k": 5, "l": 2, "a": 3, "b": 2, "c": 4, "B": 2}


def _shapes(sub):
    ins = sub.replace(" ", "").split("->")[0].split(",")
    out = []
    for t in ins:
        lead = (6, 1) if "..." in t else ()
        out.append(lead + tuple(SHAPES[c] if not (c == "j" and "ii" in t)
                                else 3 for c in t.replace("...", "")))
    return out


@pytest.mark.parametrize("sub", EINSUM)
def test_einsum_parse_gives_numpys_shape(sub):
    shapes = _shapes(sub)
    if "ii" in sub:
        shapes = [(3, 3)]
    want = np.einsum(sub, *[np.ones(s) for s in shapes]).shape
    labels, olab, sizes = _contract.parse_einsum(sub, shapes)
    assert tuple(sizes[c] for c in olab) == want


@pytest.mark.parametrize("bad", [("ij,jk", [(2, 3)]), ("ij->x", [(2, 3)]),
                                 ("ij,jk->ik", [(2, 3), (4, 5)]),
                                 ("...ij,jk->ik", [(2, 3, 4), (4, 5)]),
                                 ("ij->ii", [(2, 2)]), ("i1", [(2, 2)]),
                                 ("ijk", [(2, 2)]), ("ii->i", [(2, 3)])])
def test_einsum_errors_are_numpys_kind(bad):
    sub, shapes = bad
    with pytest.raises(ValueError) as want:
        np.einsum(sub, *[np.ones(s) for s in shapes])
    with pytest.raises(ValueError) as got:
        gpuarr.einsum(sub, *[fake(s, np.float64) for s in shapes])
    words = [w for w in ("never appeared", "more dimensions", "ellipsis",
                         "multiple times", "letters", "too many", "match",
                         "operands") if w in str(want.value)]
    assert words and any(w in str(got.value) for w in words), (want.value, got.value)


def test_einsum_casting_is_numpys_safe_rule():
    with pytest.raises(TypeError, match="could not be cast"):
        gpuarr.einsum("ij,jk", fake((2, 3), np.float64), fake((3, 4), np.float64),
                      dtype=np.float32)


@pytest.mark.parametrize("dims", [[10, 30, 5, 60], [3, 50, 2, 80, 4],
                                  [40, 20, 30, 10, 30], [2, 3, 4, 5, 6, 7]])
def test_multi_dot_order_costs_as_numpys(dims):
    split = _contract._chain_order(dims)

    def cost(i, j):
        if i == j:
            return 0
        s = split[i][j]
        return cost(i, s) + cost(s + 1, j) + dims[i] * dims[s + 1] * dims[j + 1]
    from numpy.linalg._linalg import _multi_dot_matrix_chain_order
    arrays = [np.empty((dims[i], dims[i + 1])) for i in range(len(dims) - 1)]
    _, m = _multi_dot_matrix_chain_order(arrays, return_costs=True)
    assert cost(0, len(dims) - 2) == m[0, -1]


def test_matrix_power_errors():
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        gpuarr.linalg.matrix_power(fake((2, 3)), 2)
    with pytest.raises(np.linalg.LinAlgError, match="at least two"):
        gpuarr.linalg.matrix_power(fake((3,)), 2)
    with pytest.raises(TypeError, match="integer"):
        gpuarr.linalg.matrix_power(fake((3, 3)), 1.5)


def test_tf32_switch_is_scoped():
    assert not gpuarr.linalg.tf32_allowed()
    with gpuarr.linalg.allow_tf32():
        assert gpuarr.linalg.tf32_allowed()
        with gpuarr.linalg.allow_tf32(False):
            assert not gpuarr.linalg.tf32_allowed()
        assert gpuarr.linalg.tf32_allowed()
    assert not gpuarr.linalg.tf32_allowed()


def test_cublas_search_and_missing_library(monkeypatch, tmp_path):
    monkeypatch.setenv("CUDA_PATH", str(tmp_path))
    paths = _blas.candidates()
    assert str(tmp_path / "lib64" / "libcublas.so.13") in paths
    assert any(p.endswith("cu13/lib/libcublas.so.13") for p in paths) or \
        not any("nvidia" in p for p in paths)
    from gpuarr import _cublas
    if _cublas.is_open():
        pytest.skip("a libcublas is loaded in this process")
    _blas.reset()
    monkeypatch.setattr(_blas, "candidates", lambda: [str(tmp_path / "nope.so")])
    monkeypatch.setattr(_blas, "_SONAMES", ("libcublas-not-here.so",))
    with pytest.raises(_blas.CublasNotFoundError, match="pip install nvidia-cublas"):
        _blas.load()
    _blas.reset()


def test_status_errors_name_the_call():
    with pytest.raises(_blas.CublasError) as e:
        _blas.check(7, "cublasGemmEx_64")
    assert e.value.name == "CUBLAS_STATUS_INVALID_VALUE"
    assert "cublasGemmEx_64" in str(e.value)
    _blas.check(0, "cublasGemmEx_64")
