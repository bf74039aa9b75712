"""Advanced indexing without a GPU: numpy's key rules (gpuarr._indexkey)
against numpy's own results, and the indexing kernels' sources.

Every key is checked twice: the plan's result shape (and exception class)
against numpy's ``a[key]``, and the plan's element selection, emulated on
the host the way the kernels address memory (element offsets from the
view's pointer through its strides, index positions in C order), against
numpy's values.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from _util import batch_sources, kernel_compiler

from gpuarr import _indexkey, _indexkernels as ik

rng = np.random.default_rng(7)


def numpy_result(a, key):
    try:
        return a[key]
    except IndexError as e:
        return e


def index_arrays(view, plan):
    """Host mirror of _indexing._index_arrays: (array, view axis, size)."""
    out = []
    for adv in plan.advanced:
        if adv.kind == "mask":
            for d, co in enumerate(np.nonzero(adv.value)):
                out.append((co, adv.view_axes[d]))
        else:
            out.append((np.asarray(adv.value), adv.view_axes[0]))
    return out


def emulate(a, key):
    """``a[key]`` computed as the kernels compute it (a: C-contiguous)."""
    plan = _indexkey.parse(a.shape, key)
    if type(plan) is tuple:
        return a[plan]
    view = a[plan.basic]
    isz = a.itemsize
    base = (view.__array_interface__["data"][0]
            - a.__array_interface__["data"][0]) // isz if view.size else 0
    arrs = index_arrays(view, plan)
    b = _indexkey.broadcast_index_shapes([x.shape for x, _ in arrs])
    pre, post = _indexkey.result_axes(view.ndim, plan)
    adv = np.zeros(b, np.int64)
    for k, (x, ax) in enumerate(arrs):
        n = view.shape[ax]
        v = np.broadcast_to(x, b).astype(np.int64)
        j = np.where(v < 0, v + n, v)
        bad = (j < 0) | (j >= n)
        if bad.any():
            first = np.flatnonzero(bad.ravel())[0]
            axis = plan.advanced[0].axis  # only used for the class here
            raise IndexError("index %d is out of bounds for axis %d with "
                             "size %d" % (v.ravel()[first], axis, n))
        adv += j * (view.strides[ax] // isz)
    shape = (tuple(view.shape[x] for x in pre) + b
             + tuple(view.shape[x] for x in post))
    if not _size(shape):
        return np.empty(shape, a.dtype)

    def grid(axes):
        off = np.zeros(tuple(view.shape[x] for x in axes), np.int64)
        for d, x in enumerate(axes):
            r = np.arange(view.shape[x]) * (view.strides[x] // isz)
            off = off + r.reshape((-1,) + (1,) * (len(axes) - d - 1))
        return off

    gp, gq = grid(pre), grid(post)
    off = (base + gp.reshape(gp.shape + (1,) * (len(b) + len(post)))
           + adv.reshape(adv.shape + (1,) * len(post)) + gq)
    return a.ravel()[off.reshape(shape)]


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def check(a, key):
    want = numpy_result(a, key)
    try:
        got = emulate(a, key)
    except IndexError as e:
        got = e
    if isinstance(want, IndexError):
        assert isinstance(got, IndexError), (key, got)
        return
    assert not isinstance(got, Exception), (key, got)
    assert got.shape == want.shape, (key, got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


A = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)

KEYS = [
    [1, 0], np.array([[1, 0], [0, 1]]), (slice(None), [2, 0, 1]),
    (Ellipsis, [4, -1]), ([1, 0], slice(None), [3, 2]), ([1, 0], [2, 1]),
    (slice(None), [0, 2], [3, 1]), (0, slice(None), [3, 1]),
    ([0, 1], None, [0, 1]), ([0, 1], Ellipsis, [0, 1]),
    (slice(None), [0, 1], Ellipsis, [0, 1]), (None, [1], None),
    A[0, 0, 0] < 3, A[0, :, 0, 0] > 3, (slice(None), A[0, :, :, 0] % 3 == 0),
    (A[:, :, 0, 0] % 2 == 0, [1, 2]), (True,), (False,), (slice(1), True, 2),
    ([0, 1], True, [1, 2]), (np.array(1), slice(None), [0, 1]),
    ([], ), (np.array([], np.int64), 0), ([[]],), ([2],), ([-3],),
    (slice(None), [5]), ([1, 0], [0, 1, 2]), np.zeros(3, bool), [0.5],
    (Ellipsis, Ellipsis, [0]), ([0], [0], [0], [0], [0]),
    (slice(None, None, -1), [0, -1], slice(None, None, -2)),
    (A[..., 0] > 40,), (A[0, 0] > 2, slice(None), None),
    (Ellipsis, A[0, 0, 0] > 1), (slice(None), None, A[0, :, :, 0] > 4, 0),
    np.array([1, 0], np.uint8), ([[0], [1]], slice(None), [[0, 1, 2]]),
]


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_keys_against_numpy(key):
    check(A, key)


def test_strided_views():
    base = np.arange(7 * 9 * 4).reshape(7, 9, 4)
    check(base, (slice(6, 0, -2), [1, -1, 3], slice(None, None, 3)))
    check(base, (slice(None, None, -1), slice(None), [0, 3]))


def test_basic_keys_stay_basic():
    for key in (0, (1, 2), slice(None), (Ellipsis, None), (None, 1, -1)):
        assert type(_indexkey.parse(A.shape, key)) is tuple


def test_messages():
    with pytest.raises(IndexError, match="boolean index did not match "
                       "indexed array along axis 1; size of axis is 3 but "
                       "size of corresponding boolean axis is 4"):
        _indexkey.parse(A.shape, (slice(None), np.ones(4, bool)))
    with pytest.raises(IndexError, match=r"shape mismatch: indexing arrays "
                       r"could not be broadcast together with shapes "
                       r"\(2,\) \(3,\) "):
        _indexkey.broadcast_index_shapes([(2,), (3,)])
    with pytest.raises(IndexError, match="only integers, slices"):
        _indexkey.parse(A.shape, [0.5])
    with pytest.raises(IndexError, match="too many indices"):
        _indexkey.parse(A.shape, ([0], [0], [0], [0], [0]))


_shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def keys(draw, shape):
    key = []
    axis = 0
    used_ell = False
    for _ in range(draw(st.integers(0, len(shape) + 2))):
        kind = draw(st.sampled_from(
            ["slice", "int", "array", "mask", "none", "ell", "bool"]))
        if kind == "none":
            key.append(None)
        elif kind == "bool":
            key.append(draw(st.booleans()))
        elif kind == "ell" and not used_ell:
            used_ell = True
            key.append(Ellipsis)
        elif axis < len(shape):
            n = shape[axis]
            if kind == "slice":
                key.append(slice(draw(st.integers(-5, 5)),
                                 draw(st.integers(-5, 5)),
                                 draw(st.sampled_from([1, 2, -1, -2]))))
            elif kind == "int":
                key.append(draw(st.integers(-n - 1, n)))
            elif kind == "array":
                m = draw(st.integers(0, 3))
                key.append(np.array(draw(st.lists(
                    st.integers(-n - 1, max(n, 0)), min_size=m,
                    max_size=m)), np.int64))
            else:
                k = draw(st.integers(1, len(shape) - axis))
                mshape = shape[axis:axis + k]
                key.append(rng.random(mshape) < 0.5)
                axis += k - 1
            axis += 1
    return tuple(key)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_random_keys_against_numpy(data):
    shape = data.draw(_shapes)
    a = np.arange(_size(shape), dtype=np.int32).reshape(shape)
    check(a, data.draw(keys(shape)))


# ---------------------------------------------------------------------------
# kernel sources

def _specs():
    out = [ik.count_spec()]
    for action in ("gather", "scatter", "coords", "offsets"):
        for nd in (0, 1, 3):
            out.append(ik.select_spec(action, 4, nd))
    out.append(ik.select_spec("gather", 16, 2))
    out.append(ik.offsets_spec([np.int64, np.int32, np.uint8]))
    out.append(ik.offsets_spec([np.int16], "wrap"))
    out.append(ik.offsets_spec([np.uint64], "clip"))
    for kind in ("gather", "scatter"):
        for npre, npost, wide in ((0, 0, False), (1, 2, True), (2, 1, False)):
            out.append(ik.move_spec(kind, 8, npre, npost, wide))
            out.append(ik.move_spec(kind, 1, npre, npost, wide, np.int32))
    out.append(ik.move_spec("gather", 16, 0, 1, False, np.uint64, "wrap"))
    out.append(ik.move_spec("gather", 2, 1, 0, False, np.int8, "clip"))
    out.append(ik.offsets_spec([np.int64], check_only=True))
    ops = ik.AT_OPS
    for k, dt in enumerate((np.int16, np.uint16, np.float16,
                            np.int32, np.uint64, np.float32, np.float64,
                            np.complex64)):
        for j in range(2):
            op = ops[(k + j) % len(ops)]
            out.append(ik.at_spec(np.dtype(dt), op, j, 1 - j, bool(j),
                                  np.int64 if j else None))
    out.append(ik.at_spec(np.dtype(np.complex128), "add", 1, 1, False,
                          np.uint32))
    # the scatter that checks its own indices (into a scratch copy)
    out.append(ik.at_spec(np.dtype(np.float32), "add", 0, 0, False,
                          np.int64, checked=True))
    out.append(ik.at_spec(np.dtype(np.float16), "maximum", 1, 2, True,
                          np.int16, checked=True))
    return out


def _params(src, name):
    head = src[src.index(name + "("):]
    head = head[:head.index(")")]
    return head.count(",") + 1


@pytest.mark.parametrize("spec", _specs(), ids=lambda s: repr(s.kkey))
def test_argument_counts(spec):
    assert _params(spec.source(), spec.name) == len(spec.chars)


COMPILE = kernel_compiler()


@pytest.mark.skipif(COMPILE is None, reason="neither gpuarr.compiler "
                    "(NVRTC/nvcc) nor nvcc is available")
def test_sources_compile():
    COMPILE(batch_sources(_specs()))


def test_spec_errors():
    with pytest.raises(ValueError, match="items of 3 bytes"):
        ik.move_spec("gather", 3, 0, 0, False)
    with pytest.raises(TypeError, match="not integers"):
        ik.offsets_spec([np.float32])
    with pytest.raises(ValueError, match="clipmode"):
        ik.offsets_spec([np.int64], "bogus")
    with pytest.raises(ValueError):
        ik.offsets_spec([np.int64] * (ik.MAX_ARRAYS + 1))
    with pytest.raises(ValueError):
        ik.select_spec("bogus", 4, 1)


# ---------------------------------------------------------------------------
# selection functions: errors raised before any device work

def _fake(h):
    import gpuarr.gpuarray as ga
    return ga.GPUArray(h.shape, h.dtype, gpudata=h.ctypes.data,
                       strides=h.strides)


def test_selection_errors_before_launch():
    from gpuarr import _selection as sel
    h = np.zeros((3, 4), np.float32)
    g = _fake(h)
    with pytest.raises(ValueError, match="clipmode"):
        sel.take(g, [0], axis=0, mode="nearest")
    with pytest.raises(ValueError, match="clipmode"):
        sel.put(g, [0], 1.0, mode="nearest")
    with pytest.raises(ValueError, match="0d arrays"):
        sel.nonzero(_fake(np.zeros((), np.float32)))
    with pytest.raises(np.exceptions.AxisError):
        sel.take(g, [0], axis=2)
    with pytest.raises(TypeError, match="GPUArray"):
        sel.take(h, [0])
    with pytest.raises(ValueError, match="0-length"):
        sel.choose([0], [])
    np.testing.assert_raises(TypeError, sel.take, g, [0.5], 0)


def test_at_spec_refuses_complex128_extrema():
    with pytest.raises(NotImplementedError, match="16-byte"):
        ik.at_spec(np.complex128, "maximum", 0, 0, False)
    with pytest.raises(ValueError):
        ik.at_spec(np.float32, "divide", 0, 0, False)
    for dt in (np.bool_, np.int8, np.uint8):
        with pytest.raises(ValueError, match="1-byte"):
            ik.at_spec(dt, "add", 0, 0, False)
    ik.at_spec(np.complex128, "add", 0, 0, False)
