"""CPU checks of gpuarr.gpuarray: everything that needs no device.

"Fake" GPUArrays are built over the address of a host numpy buffer
(``GPUArray(shape, dtype, gpudata=<int>, strides=...)`` never touches the
driver), so every view's ``ptr``, ``shape`` and ``strides`` can be compared
with the numpy view made by the same operation on that buffer.
"""
import ctypes
import gc
import weakref
import pickle

import numpy as np
import pytest

import gpuarr
from gpuarr import gpuarray as ga
from gpuarr import tools, _array, _creation, _interop, _layout, _transfer, _ufunc

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
          np.uint32, np.uint64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]


def _no_repr(self):  # pytest's failure reports must not call .get() on fakes
    return "<fake GPUArray %s %s strides=%s ptr=0x%x>" % (
        self.shape, self.dtype, self.strides, self.ptr)


@pytest.fixture(autouse=True)
def _fake_repr(monkeypatch):
    monkeypatch.setattr(ga.GPUArray, "__repr__", _no_repr)


def fake(h):
    """A GPUArray describing the memory of numpy array ``h``."""
    return ga.GPUArray(h.shape, h.dtype, gpudata=h.ctypes.data,
                       strides=h.strides)


def same_layout(g, h):
    """``g`` (GPUArray) views the same elements as numpy's ``h``."""
    assert g.shape == h.shape
    assert g.dtype == h.dtype
    assert g.size == h.size
    assert g.ndim == h.ndim
    assert g.nbytes == h.nbytes
    if h.size:
        assert g.ptr == h.ctypes.data
        # strides of length-1 axes carry no information
        for n, s, t in zip(h.shape, g.strides, h.strides):
            if n != 1:
                assert s == t, (g.strides, h.strides)
        assert g.flags.c_contiguous == h.flags.c_contiguous
        assert g.flags.f_contiguous == h.flags.f_contiguous


# ---------------------------------------------------------------------------
# construction

def test_fake_construction_touches_no_driver():
    h = np.empty((3, 4), np.float32)
    g = fake(h)
    assert g.ptr == h.ctypes.data and g.gpudata == h.ctypes.data
    assert g.strides == (16, 4) and g.itemsize == 4 and g.nbytes == 48
    assert g.flags.c_contiguous and not g.flags.f_contiguous and g.flags.forc
    assert g.mem_size == 12 and g.base is None


@pytest.mark.parametrize("dtype", DTYPES)
def test_supported_dtypes(dtype):
    g = ga.GPUArray((2, 3), dtype, gpudata=4096)
    assert g.dtype == np.dtype(dtype)
    assert g.strides == np.empty((2, 3), dtype).strides


@pytest.mark.parametrize("dtype", [object, "U3", "S2", "M8[s]", "m8[s]",
                                   np.longdouble, "V8", [("a", "f4")]])
def test_unsupported_dtypes(dtype):
    if np.dtype(dtype) == np.float64:  # longdouble is double on some platforms
        pytest.skip("longdouble is float64 here")
    with pytest.raises(TypeError):
        ga.GPUArray((2,), dtype, gpudata=4096)


def test_shape_arguments():
    assert ga.GPUArray(5, np.int8, gpudata=64).shape == (5,)
    assert ga.GPUArray(np.int64(5), np.int8, gpudata=64).shape == (5,)
    assert ga.GPUArray([2, 3], np.int8, gpudata=64).shape == (2, 3)
    assert ga.GPUArray((), np.int8, gpudata=64).shape == ()
    with pytest.raises(ValueError):
        ga.GPUArray((2, -1), np.int8, gpudata=64)
    with pytest.raises(TypeError):
        ga.GPUArray((2.0,), np.int8, gpudata=64)
    with pytest.raises(ValueError):
        ga.GPUArray((2, 3), np.int8, gpudata=64, strides=(1,))
    with pytest.raises(ValueError):
        ga.GPUArray((2, 3), np.int8, gpudata=64, order="X")


def test_order_f_and_explicit_strides():
    g = ga.GPUArray((3, 4, 5), np.float64, gpudata=4096, order="F")
    assert g.strides == np.empty((3, 4, 5), order="F").strides
    assert g.flags.f_contiguous and not g.flags.c_contiguous
    g = ga.GPUArray((3, 4), np.float64, gpudata=4096, strides=(-8, 24))
    assert not g.flags.forc


def test_zero_size_and_0d():
    g = ga.GPUArray((0, 3), np.float32, gpudata=0)
    assert g.size == 0 and g.nbytes == 0
    assert g.flags.c_contiguous and g.flags.f_contiguous
    z = ga.GPUArray((), np.float32, gpudata=4096)
    assert z.shape == () and z.size == 1 and z.strides == ()
    assert z.flags.c_contiguous and z.flags.f_contiguous
    # a zero-size array allocates nothing, even with no driver
    e = ga.GPUArray((4, 0), np.float64)
    assert e.ptr == 0 and e.gpudata is None


@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 1), (1, 4), (2, 3, 4),
                                   (2, 1, 3), (0,), (2, 0, 3)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_contiguity_flags(shape, order):
    h = np.empty(shape, np.float32, order=order)
    for v in [h, h.T, h[..., ::2] if h.ndim else h, h[::-1] if h.ndim else h]:
        g = ga.GPUArray(v.shape, v.dtype, gpudata=4096, strides=v.strides)
        assert g.flags.c_contiguous == v.flags.c_contiguous, v.strides
        assert g.flags.f_contiguous == v.flags.f_contiguous, v.strides


def test_large_shapes_use_python_ints():
    n = 3 * 2 ** 31
    g = ga.GPUArray((n,), np.float32, gpudata=1 << 40)
    assert g.size == n and g.nbytes == 4 * n
    v = g[2 ** 32 + 7:]
    assert v.ptr == (1 << 40) + 4 * (2 ** 32 + 7)
    assert v.shape == (n - 2 ** 32 - 7,)
    r = g.reshape(3, -1)
    assert r.shape == (3, 2 ** 31) and r.strides == (4 * 2 ** 31, 4)


# ---------------------------------------------------------------------------
# indexing

KEYS = [
    0, -1, 2, (1, 2), (1, 2, 3), (-1, -2, -3), slice(None), slice(1, 3),
    slice(None, None, -1), slice(None, None, 2), slice(3, 0, -2),
    slice(10, 20), slice(-100, 100), (slice(None), 1), (Ellipsis, 1),
    (1, Ellipsis), (Ellipsis,), Ellipsis, (None,), (None, 1), (1, None, 2),
    (Ellipsis, None), (None, Ellipsis, None), (slice(None, None, -1), None, 0),
    (slice(1, None), slice(None, None, -2), slice(2, 4)),
    (np.int64(1), np.int8(-1)), (slice(0, 0),), (slice(4, 1),),
    (0, slice(None, None, -3), Ellipsis), (), (Ellipsis, 0, 0, 0),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("layout", ["C", "F", "neg", "strided"])
def test_getitem_matches_numpy(key, layout):
    base = np.empty((4, 5, 6), np.float32)
    h = {"C": base, "F": np.asfortranarray(base),
         "neg": base[::-1, :, ::-1], "strided": base[::2, 1:, ::3]}[layout]
    g = fake(h)
    try:
        want = h[key]
    except IndexError:
        with pytest.raises(IndexError):
            g[key]
        return
    if isinstance(want, np.generic):  # numpy gives a scalar; ask for the view
        want = h[(key if isinstance(key, tuple) else (key,)) + (Ellipsis,)]
    same_layout(g[key], want)


@pytest.mark.parametrize("key", [5, -6, (0, 7), (0, 0, -8)])
def test_getitem_out_of_bounds(key):
    h = np.empty((5, 6, 7))
    with pytest.raises(IndexError):
        h[key]
    with pytest.raises(IndexError, match="out of bounds"):
        fake(h)[key]


def test_getitem_errors():
    h = np.empty((3, 4))
    g = fake(h)
    with pytest.raises(IndexError, match="too many indices"):
        g[1, 2, 3]
    with pytest.raises(IndexError, match="single ellipsis"):
        g[..., ...]
    with pytest.raises(IndexError):
        g[1.5]
    with pytest.raises(IndexError):
        g["a"]
    with pytest.raises(IndexError, match="out of bounds"):
        g[:, -5]
    z = fake(np.empty(()))
    with pytest.raises(IndexError):
        z[0]
    same_layout(z[...], np.empty(())[...])


def test_views_keep_base():
    h = np.empty((4, 5))
    g = fake(h)
    v = g[1:][::2]
    assert v.base is g
    assert g.T.base is g


# ---------------------------------------------------------------------------
# reshape

RESHAPES = [
    ((12,), (3, 4)), ((12,), (-1, 2)), ((3, 4), (12,)), ((3, 4), (4, 3)),
    ((3, 4), (2, 2, 3)), ((3, 4), (3, 4, 1)), ((3, 4), (1, 3, 1, 4, 1)),
    ((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)), ((2, 3, 4), (24,)),
    ((2, 1, 3), (3, 2)), ((1,), ()), ((), (1, 1)), ((0, 3), (3, 0)),
    ((0, 3), (-1,)), ((6,), (6, 1)), ((6,), (1, 6)),
]


@pytest.mark.parametrize("shape,newshape", RESHAPES, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("layout", ["C", "F", "T", "neg", "sliced", "inner"])
def test_reshape_view_or_copy_like_numpy(shape, newshape, order, layout):
    full = np.arange(max(np.prod(shape, dtype=int), 1) * 4, dtype=np.float64)
    n = int(np.prod(shape, dtype=int))
    if layout == "C":
        h = full[:n].reshape(shape)
    elif layout == "F":
        h = np.asfortranarray(full[:n].reshape(shape))
    elif layout == "T":
        h = full[:n].reshape(shape[::-1]).T
    elif layout == "neg":
        h = full[:n][::-1].reshape(shape)
    elif layout == "sliced":
        h = full[: 2 * n : 2].reshape(shape) if n else full[:0].reshape(shape)
    else:  # every other element of the last axis of a bigger array
        big = full[: 2 * n].reshape(shape[:-1] + (2 * shape[-1],)) if shape else full[:1].reshape(())
        h = big[..., ::2] if shape else big
    g = fake(h)
    r = h.reshape(newshape, order=order)
    resolved = _layout.resolve_newshape(h.size, tuple(newshape))
    strides = g._reshape_strides(resolved, order)
    numpy_view = h.size == 0 or np.shares_memory(r, h)
    if h.size == 0:
        assert strides is not None
        return
    assert (strides is not None) == numpy_view, (h.strides, strides)
    if numpy_view:
        v = g.reshape(newshape, order=order)
        same_layout(v, r)
        assert v.base is g


def test_reshape_argument_forms():
    g = fake(np.empty((2, 6)))
    assert g.reshape(3, 4).shape == (3, 4)
    assert g.reshape((3, 4)).shape == (3, 4)
    assert g.reshape([4, 3]).shape == (4, 3)
    assert g.reshape(-1).shape == (12,)
    assert g.reshape(np.int64(12)).shape == (12,)
    assert gpuarr.reshape(g, (4, -1)).shape == (4, 3)
    assert g.ravel().shape == (12,)
    f = fake(np.empty((2, 6), order="F"))
    assert f.ravel(order="F").strides == (8,)
    assert f.ravel(order="K").strides == (8,)
    assert f.ravel(order="A").strides == (8,)


@pytest.mark.parametrize("newshape,msg", [
    ((5,), "cannot reshape array of size 12 into shape"),
    ((-1, -1), "can only specify one unknown dimension"),
    ((-2, -6), "can only specify one unknown dimension"),
    ((5, -1), "cannot reshape array of size 12 into shape"),
])
def test_reshape_errors(newshape, msg):
    with pytest.raises(ValueError):
        np.empty(12).reshape(newshape)
    with pytest.raises(ValueError, match=msg):
        fake(np.empty(12)).reshape(newshape)
    with pytest.raises(ValueError):
        fake(np.empty(12)).reshape(12, order="X")


def test_reshape_zero_size_unknown():
    with pytest.raises(ValueError):
        fake(np.empty((0, 3))).reshape(-1, 0)
    assert fake(np.empty((0, 3))).reshape(-1).shape == (0,)


# ---------------------------------------------------------------------------
# transpose, swapaxes, squeeze, expand_dims, broadcast_to, view, real/imag

@pytest.mark.parametrize("axes", [None, (0, 1, 2), (2, 0, 1), (1, 0, 2),
                                  (-1, 0, 1), (2, 1, 0)])
def test_transpose(axes):
    h = np.empty((2, 3, 4), np.int16)[:, ::-1]
    g = fake(h)
    if axes is None:
        same_layout(g.transpose(), h.transpose())
        same_layout(g.T, h.T)
        same_layout(gpuarr.transpose(g), np.transpose(h))
    else:
        same_layout(g.transpose(axes), h.transpose(axes))
        same_layout(g.transpose(*axes), h.transpose(*axes))
        same_layout(gpuarr.transpose(g, axes), np.transpose(h, axes))


def test_transpose_errors():
    g = fake(np.empty((2, 3, 4)))
    with pytest.raises(ValueError, match="axes don't match"):
        g.transpose(0, 1)
    with pytest.raises(ValueError, match="repeated axis"):
        g.transpose(0, 1, 1)
    with pytest.raises(np.exceptions.AxisError):
        g.transpose(0, 1, 3)
    same_layout(fake(np.empty(())).T, np.empty(()).T)


@pytest.mark.parametrize("a,b", [(0, 1), (0, 2), (-1, 0), (1, 1)])
def test_swapaxes(a, b):
    h = np.empty((2, 3, 4))[::2]
    same_layout(fake(h).swapaxes(a, b), h.swapaxes(a, b))
    same_layout(gpuarr.swapaxes(fake(h), a, b), np.swapaxes(h, a, b))
    with pytest.raises(np.exceptions.AxisError):
        fake(h).swapaxes(0, 3)


@pytest.mark.parametrize("axis", [None, 0, 2, (0, 2), -1, (0, -1)])
def test_squeeze(axis):
    h = np.empty((1, 3, 1, 4, 1))[..., ::-1, :]
    same_layout(fake(h).squeeze(axis), h.squeeze(axis))
    same_layout(gpuarr.squeeze(fake(h), axis), np.squeeze(h, axis))


def test_squeeze_errors():
    g = fake(np.empty((1, 3)))
    with pytest.raises(ValueError, match="size not equal to one"):
        g.squeeze(1)
    with pytest.raises(np.exceptions.AxisError):
        g.squeeze(2)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, (0, 1), (0, -1), (1, 3)])
def test_expand_dims(axis):
    h = np.empty((3, 4))[:, ::2]
    same_layout(gpuarr.expand_dims(fake(h), axis), np.expand_dims(h, axis))
    h = np.empty((3, 4))
    same_layout(gpuarr.expand_dims(fake(h), axis), np.expand_dims(h, axis))


def test_expand_dims_errors():
    g = fake(np.empty((3, 4)))
    with pytest.raises(np.exceptions.AxisError):
        gpuarr.expand_dims(g, 3)
    with pytest.raises(ValueError):
        gpuarr.expand_dims(g, (0, 0))


@pytest.mark.parametrize("shape,to", [((3,), (4, 3)), ((1,), (5,)),
                                      ((2, 1), (2, 5)), ((), (3, 2)),
                                      ((3, 1), (2, 3, 4)), ((3,), (3,)),
                                      ((1, 0), (4, 0))])
def test_broadcast_to(shape, to):
    h = np.empty(shape, np.float32)
    same_layout(gpuarr.broadcast_to(fake(h), to), np.broadcast_to(h, to))
    same_layout(fake(h).broadcast_to(to), np.broadcast_to(h, to))


@pytest.mark.parametrize("shape,to", [((3,), (4,)), ((2, 3), (3,)),
                                      ((2, 1), (3, 4))])
def test_broadcast_to_errors(shape, to):
    with pytest.raises(ValueError):
        np.broadcast_to(np.empty(shape), to)
    with pytest.raises(ValueError):
        gpuarr.broadcast_to(fake(np.empty(shape)), to)


def test_broadcast_shapes_like_numpy():
    cases = [((3, 1), (1, 4)), ((5, 1, 3), (4, 1)), ((), (2, 3)), ((0,), (1,)),
             ((2, 3), (2, 3), (1, 3))]
    for shapes in cases:
        assert _layout.broadcast_shapes(*shapes, operands=True) == np.broadcast_shapes(*shapes)
    with pytest.raises(ValueError, match="could not be broadcast"):
        _layout.broadcast_shapes((3,), (4,), operands=True)


@pytest.mark.parametrize("src,dst", [(np.float32, np.int32), (np.float64, np.int32),
                                     (np.int32, np.int64), (np.complex64, np.float32),
                                     (np.uint8, np.int16), (np.int16, np.uint8),
                                     (np.float64, np.complex128)])
def test_view_dtype(src, dst):
    for h in [np.empty((3, 4), src), np.empty((4, 6), src)[::2],
              np.empty((3, 4), src, order="F")[:, :1]]:
        try:
            r = h.view(dst)
        except ValueError:
            with pytest.raises(ValueError):
                fake(h).view(dst)
            continue
        same_layout(fake(h).view(dst), r)


def test_view_errors():
    with pytest.raises(ValueError):
        fake(np.empty((), np.float32)).view(np.int8)
    assert fake(np.empty((), np.float32)).view(np.int32).dtype == np.int32
    with pytest.raises(ValueError):
        fake(np.empty((3, 4), np.float32).T).view(np.float64)
    with pytest.raises(TypeError):
        fake(np.empty(3)).view(object)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_real_imag_views(dtype):
    h = np.empty((3, 4), dtype)[:, ::-2]
    same_layout(fake(h).real, h.real)
    same_layout(fake(h).imag, h.imag)


def test_real_of_real_is_self():
    g = fake(np.empty(3))
    assert g.real is g


# ---------------------------------------------------------------------------
# protocols

def test_cuda_array_interface_contents():
    h = np.empty((3, 4), np.float32)
    cai = fake(h).__cuda_array_interface__
    assert cai["shape"] == (3, 4)
    assert cai["typestr"] == "<f4"
    assert cai["data"] == (h.ctypes.data, False)
    assert cai["strides"] is None
    assert cai["version"] == 3
    assert cai["stream"] == 1
    t = fake(h).T.__cuda_array_interface__
    assert t["strides"] == (4, 16) and t["shape"] == (4, 3)
    n = fake(h)[::-1].__cuda_array_interface__
    assert n["strides"] == (-16, 4)
    assert n["data"][0] == h[::-1].ctypes.data
    e = ga.GPUArray((0, 2), np.complex128, gpudata=0).__cuda_array_interface__
    assert e["data"] == (0, False) and e["typestr"] == "<c16"
    z = fake(np.empty((), np.int8)).__cuda_array_interface__
    assert z["shape"] == () and z["strides"] is None and z["typestr"] == "|i1"


class _CAIObject:
    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


def test_asarray_wraps_cuda_array_interface():
    h = np.empty((4, 5), np.float32)[::-1, ::2]
    src = _CAIObject({"shape": h.shape, "typestr": "<f4",
                      "data": (h.ctypes.data, False), "strides": h.strides,
                      "version": 3, "stream": None})
    g = gpuarr.asarray(src)
    same_layout(g, h)
    assert g.base is src
    src2 = _CAIObject({"shape": (2, 3), "typestr": "<i8",
                       "data": (4096, False), "version": 2})
    g2 = gpuarr.asarray(src2)
    assert g2.strides == (24, 8) and g2.ptr == 4096
    # a GPUArray passes through (and its CAI round-trips)
    assert gpuarr.asarray(g) is g
    same_layout(gpuarr.asarray(_CAIObject(g.__cuda_array_interface__)), h)


def test_asarray_rejects_bad_interfaces():
    with pytest.raises(ValueError):
        gpuarr.asarray(_CAIObject({"shape": (2,), "typestr": "<f4",
                                   "data": (4096, False), "version": 3,
                                   "mask": _CAIObject({})}))
    with pytest.raises(TypeError):
        gpuarr.asarray(_CAIObject({"shape": (2,), "typestr": "<M8[s]",
                                   "data": (4096, False), "version": 3}))


def test_numpy_conversion_raises_and_defers():
    g = fake(np.empty(3))
    with pytest.raises(TypeError, match=r"\.get\(\)"):
        np.asarray(g)
    with pytest.raises(TypeError):
        np.array(g)
    # numpy's ufuncs and functions dispatch to gpuarr (test_dispatch_cpu.py)
    assert g.__array_ufunc__ is not None and g.__array_function__ is not None


def test_pickle_goes_through_host(monkeypatch):
    h = np.arange(6.0).reshape(2, 3)
    g = fake(h)
    monkeypatch.setattr(ga.GPUArray, "get", lambda self, *a, **k: h.copy())
    fn, args = g.__reduce__()
    assert fn is _creation.to_gpu
    np.testing.assert_array_equal(args[0], h)
    # the reconstructor is importable by name (what pickle stores)
    assert pickle.loads(pickle.dumps(fn)) is _creation.to_gpu


def test_len_bool_iter_errors():
    g = fake(np.empty((3, 2)))
    assert len(g) == 3
    assert [v.shape for v in g] == [(2,)] * 3
    z = fake(np.empty(()))
    with pytest.raises(TypeError):
        len(z)
    with pytest.raises(TypeError):
        iter(z)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(g)
    with pytest.raises(ValueError, match="empty"):
        bool(ga.GPUArray((0,), np.float32, gpudata=0))


def test_unhashable():
    with pytest.raises(TypeError):
        hash(fake(np.empty(2)))


def test_flags_mapping():
    f = fake(np.empty((2, 3))).flags
    assert f["C_CONTIGUOUS"] and not f["F_CONTIGUOUS"] and f["FORC"]
    with pytest.raises(KeyError):
        f["WRITEABLE"]


def test_slots_keep_instances_lean():
    g = fake(np.empty(2))
    with pytest.raises(AttributeError):
        g.some_new_attribute = 1
    assert not hasattr(g, "__dict__")


# ---------------------------------------------------------------------------
# argument checks that happen before any launch

def test_get_argument_checks():
    g = fake(np.empty((2, 3), np.float32))
    with pytest.raises(ValueError):
        g.get(np.empty(5, np.float32))
    with pytest.raises(ValueError):
        g.get(np.empty(6, np.float64))
    with pytest.raises(TypeError):
        g.get([0] * 6)


def test_set_argument_checks():
    g = fake(np.empty((2, 3), np.float32))
    with pytest.raises(ValueError):
        g.set(np.zeros(5))


def test_zero_size_transfers_need_no_driver():
    e = ga.GPUArray((0, 4), np.float32, gpudata=0)
    out = e.get()
    assert out.shape == (0, 4) and out.dtype == np.float32
    e.set(np.empty((0, 4), np.float32))


def test_astype_rejects_bad_dtype_and_casting():
    g = fake(np.empty(3, np.float64))
    with pytest.raises(TypeError):
        g.astype(object)
    with pytest.raises(TypeError):
        g.astype(np.int32, casting="safe")


def test_copy_order_validation():
    with pytest.raises(ValueError):
        _transfer.copy_order("X", fake(np.empty(3)))
    f = fake(np.empty((2, 3), order="F"))
    assert _transfer.copy_order("K", f) == "F" and _transfer.copy_order("A", f) == "F"
    assert _transfer.copy_order("C", f) == "C"


def test_operators_with_unknown_types_defer():
    g = fake(np.empty(3))
    assert g.__add__(object()) is NotImplemented
    assert g.__radd__("x") is NotImplemented
    with pytest.raises(TypeError):
        g + object()
    assert g.__matmul__(object()) is NotImplemented
    with pytest.raises(TypeError):
        g @ object()


def test_casting_error_is_numpy_like():
    e = _ufunc.casting_error("add", np.dtype(np.float64), np.dtype(np.int64))
    assert isinstance(e, TypeError)
    assert "Cannot cast ufunc 'add' output from dtype('float64') to " \
           "dtype('int64') with casting rule 'same_kind'" == str(e)


# ---------------------------------------------------------------------------
# memory pools (fake allocator)

class _FakeAlloc:
    freed = []

    def __init__(self, n):
        _FakeAlloc.next = getattr(_FakeAlloc, "next", 1 << 20) + (n + 4095) // 4096 * 4096
        self.ptr = _FakeAlloc.next
        self.size = n

    def __int__(self):
        return self.ptr

    def free(self):
        _FakeAlloc.freed.append(self.ptr)


def test_bin_size():
    assert tools.bin_size(0) == 512 and tools.bin_size(512) == 512
    assert tools.bin_size(513) == 640  # 1024/8 = 128 steps above 512
    prev = 512
    for n in [513, 700, 1000, 1024, 1025, 5000, 10 ** 6, 3 * 2 ** 30 + 1]:
        b = tools.bin_size(n)
        assert b >= n and b <= n * 1.25 + 512
        assert b >= prev
        prev = b
    with pytest.raises(ValueError):
        tools.bin_size(-1)


def test_device_pool_reuses_and_frees():
    _FakeAlloc.freed = []
    calls = []

    def alloc(n):
        calls.append(n)
        return _FakeAlloc(n)

    pool = tools.DeviceMemoryPool(alloc)
    a = pool.allocate(1000)
    assert int(a) == a.ptr and a.size >= 1000
    assert pool.active_blocks == 1 and pool.held_blocks == 0
    addr = a.ptr
    del a
    gc.collect()
    assert pool.active_blocks == 0 and pool.held_blocks == 1
    b = pool.allocate(1010)  # same bin: reused, no new driver allocation
    assert b.ptr == addr and len(calls) == 1
    c = pool.allocate(100000)
    assert len(calls) == 2
    b.free()
    b.free()  # idempotent
    del c
    assert pool.held_blocks == 2
    pool.free_held()
    assert pool.held_blocks == 0 and len(_FakeAlloc.freed) == 2
    pool.stop_holding()
    d = pool.allocate(10)
    del d
    assert pool.held_blocks == 0 and len(_FakeAlloc.freed) == 3


def test_device_pool_retries_after_out_of_memory():
    state = {"fail": 1}

    def alloc(n):
        if state["fail"]:
            state["fail"] -= 1
            raise MemoryError("out of memory")
        return _FakeAlloc(n)

    pool = tools.DeviceMemoryPool(alloc)
    assert pool.allocate(10).size == 512


def test_gpuarray_with_custom_allocator_and_pool():
    pool = tools.DeviceMemoryPool(_FakeAlloc)
    g = ga.GPUArray((10, 10), np.float64, allocator=pool.allocate)
    assert g.ptr == int(g.gpudata) and pool.active_blocks == 1
    v = g[1:]
    del g
    assert pool.active_blocks == 1  # the view keeps the memory alive
    del v
    gc.collect()
    assert pool.active_blocks == 0 and pool.held_blocks == 1


def test_pagelocked_pool_with_fake_allocator():
    pool = tools.PageLockedMemoryPool(lambda shape, dtype: np.empty(shape, dtype))
    a = pool.allocate((3, 4), np.float32)
    assert a.shape == (3, 4) and a.dtype == np.float32 and a.flags.c_contiguous
    a[...] = 1
    f = pool.allocate((3, 4), np.float64, order="F")
    assert f.flags.f_contiguous
    assert pool.active_blocks == 2
    del a, f
    gc.collect()
    assert pool.active_blocks == 0 and pool.held_blocks == 2
    pool.free_held()
    assert pool.held_blocks == 0


# ---------------------------------------------------------------------------
# DLPack capsules (the device id lookup is faked)

@pytest.fixture
def no_driver_device(monkeypatch):
    monkeypatch.setattr(_interop, "dlpack_device_of",
                        lambda ptr=None: (_interop.kDLCUDA, 0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_dlpack_dtype_round_trip(dtype):
    code, bits, lanes = _interop.dl_dtype(dtype)
    assert _interop.np_dtype(code, bits, lanes) == np.dtype(dtype)


def test_dlpack_dtype_errors():
    with pytest.raises(BufferError):
        _interop.dl_dtype(object)
    with pytest.raises(BufferError):
        _interop.np_dtype(_interop.kDLBfloat, 16, 1)
    with pytest.raises(BufferError):
        _interop.np_dtype(_interop.kDLFloat, 32, 4)


@pytest.mark.parametrize("layout", ["C", "T", "neg", "0d", "empty"])
def test_dlpack_capsule_round_trip(no_driver_device, layout):
    base = np.empty((4, 6), np.float32)
    h = {"C": base, "T": base.T, "neg": base[::-1, ::2], "0d": base[1, 2],
         "empty": base[:0]}[layout]
    if layout == "0d":
        h = base[1:2, 2:3].reshape(())
    g = fake(h)
    alive = weakref.ref(g)
    live = len(_interop._LIVE)
    cap = g.__dlpack__()
    assert type(cap).__name__ == "PyCapsule"
    assert len(_interop._LIVE) == live + 1
    back = gpuarr.from_dlpack(cap)
    same_layout(back, h)
    with pytest.raises(ValueError):  # a capsule is consumed once
        gpuarr.from_dlpack(cap)
    del cap, g
    gc.collect()
    # the exported array lives as long as the consumer holds the tensor
    assert alive() is not None and len(_interop._LIVE) == live + 1
    del back
    gc.collect()
    assert alive() is None and len(_interop._LIVE) == live  # deleter ran


def test_dlpack_unconsumed_capsule_calls_deleter(no_driver_device):
    g = fake(np.empty(5, np.int64))
    alive = weakref.ref(g)
    live = len(_interop._LIVE)
    cap = g.__dlpack__(max_version=(1, 0))
    del g
    gc.collect()
    assert alive() is not None and len(_interop._LIVE) == live + 1
    del cap
    gc.collect()
    assert alive() is None and len(_interop._LIVE) == live


def test_dlpack_device_and_errors(no_driver_device):
    g = fake(np.empty(5, np.int64))
    assert g.__dlpack_device__() == (2, 0)
    with pytest.raises(BufferError):
        g.__dlpack__(dl_device=(2, 5))          # another device
    with pytest.raises(BufferError):            # the host needs a copy
        g.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(ValueError):
        g.__dlpack__(stream=0)

    class Producer:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("must not be called")

    with pytest.raises(BufferError):
        gpuarr.from_dlpack(Producer())
    with pytest.raises(TypeError):
        gpuarr.from_dlpack(object())


def test_from_dlpack_calls_producer_with_legacy_stream(no_driver_device):
    h = np.empty((2, 3), np.complex64)
    inner = fake(h)
    seen = {}

    class Producer:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            seen["stream"] = stream
            return inner.__dlpack__()

    p = Producer()
    g = gpuarr.from_dlpack(p)
    assert seen["stream"] == 1
    same_layout(g, h)
    assert g.base.producer is p


def _capsule_name(cap):
    ctypes.pythonapi.PyCapsule_GetName.restype = ctypes.c_char_p
    ctypes.pythonapi.PyCapsule_GetName.argtypes = [ctypes.py_object]
    return ctypes.pythonapi.PyCapsule_GetName(cap).decode()


def _versioned(cap):
    ptr = ctypes.pythonapi.PyCapsule_GetPointer
    ptr.restype = ctypes.c_void_p
    ptr.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ctypes.cast(ptr(cap, b"dltensor_versioned"),
                       ctypes.POINTER(_interop.DLManagedTensorVersioned)).contents


@pytest.mark.parametrize("max_version, name", [
    (None, "dltensor"), ((0, 8), "dltensor"), ((1, 0), "dltensor_versioned"),
    ((1, 3), "dltensor_versioned"), ((2, 0), "dltensor_versioned")])
def test_dlpack_max_version_picks_the_capsule(no_driver_device, max_version, name):
    h = np.empty((3, 5), np.float32)[:, ::2]
    g = fake(h)
    cap = g.__dlpack__(max_version=max_version)
    assert _capsule_name(cap) == name
    if name == "dltensor_versioned":
        m = _versioned(cap)
        assert (m.version.major, m.version.minor) == _interop.DLPACK_VERSION == (1, 0)
        assert m.flags == 0                      # writable, not a copy
        assert m.dl_tensor.data == g.ptr and m.dl_tensor.ndim == 2
    back = gpuarr.from_dlpack(cap)
    same_layout(back, h)
    assert back.ptr == g.ptr
    assert _capsule_name(cap) == "used_" + name
    with pytest.raises(ValueError):              # consumed once
        gpuarr.from_dlpack(cap)


def test_dlpack_versioned_unconsumed_capsule_calls_deleter(no_driver_device):
    g = fake(np.empty(7, np.uint16))
    alive = weakref.ref(g)
    live = len(_interop._LIVE)
    cap = g.__dlpack__(max_version=(1, 0))
    del g
    gc.collect()
    assert alive() is not None and len(_interop._LIVE) == live + 1
    del cap
    gc.collect()
    assert alive() is None and len(_interop._LIVE) == live


def test_dlpack_read_only_and_newer_versions(no_driver_device):
    g = fake(np.empty(4, np.int32))
    cap = g.__dlpack__(max_version=(1, 0))
    _versioned(cap).flags = _interop.DLPACK_FLAG_BITMASK_READ_ONLY
    with pytest.raises(BufferError, match="read-only"):
        gpuarr.from_dlpack(cap, copy=False)
    assert _capsule_name(cap) == "dltensor_versioned"   # not taken
    cap2 = g.__dlpack__(max_version=(1, 0))
    _versioned(cap2).version.major = 2
    with pytest.raises(BufferError, match="newer"):
        gpuarr.from_dlpack(cap2)


def test_dlpack_host_capsules_are_refused():
    for kw in ({}, {"max_version": (1, 0)}):
        cap = np.arange(3.0).__dlpack__(**kw)
        with pytest.raises(BufferError, match="device type 1"):
            gpuarr.from_dlpack(cap)


def test_from_dlpack_asks_for_version_1_then_falls_back(no_driver_device):
    inner = fake(np.empty(3, np.float64))
    seen = []

    class New:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                       copy=None):
            seen.append((stream, max_version))
            return inner.__dlpack__(max_version=max_version)

    class Old:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            seen.append((stream, "old"))
            return inner.__dlpack__()

    a = gpuarr.from_dlpack(New())
    b = gpuarr.from_dlpack(Old())
    assert seen == [(1, (1, 0)), (1, "old")]
    assert a.ptr == b.ptr == inner.ptr


def test_stream_handle_reads_every_library_s_stream():
    from gpuarr import driver as drv

    class Proto:
        def __cuda_stream__(self):
            return (0, 0x1234)

    class CuPyLike:
        ptr = 0x55

    class TorchLike:
        cuda_stream = 0x77

    class Handle:
        handle = 0x99

    assert drv.stream_handle(None) == 0
    assert drv.stream_handle(Proto()) == 0x1234
    assert drv.stream_handle(CuPyLike()) == 0x55
    assert drv.stream_handle(TorchLike()) == 0x77
    assert drv.stream_handle(Handle()) == 0x99

    class Bad:
        def __cuda_stream__(self):
            return 5

    with pytest.raises(TypeError, match="version, handle"):
        drv.stream_handle(Bad())
    with pytest.raises(TypeError, match="__cuda_stream__"):
        drv.stream_handle(object())


# ---------------------------------------------------------------------------
# namespace and import

def test_namespace():
    for name in ["GPUArray", "to_gpu", "to_gpu_async", "empty", "zeros", "ones",
                 "full", "arange", "linspace", "eye", "empty_like", "zeros_like",
                 "ones_like", "full_like", "fill", "asarray", "from_dlpack",
                 "add", "subtract", "multiply", "divide", "true_divide",
                 "floor_divide", "remainder", "mod", "power", "negative",
                 "sin", "cos", "exp", "log", "sqrt", "where", "clip",
                 "if_positive", "angle", "conj", "minimum", "maximum",
                 "DeviceMemoryPool", "PageLockedMemoryPool"]:
        assert hasattr(gpuarr, name), name
    assert gpuarr.gpuarray.GPUArray is gpuarr.GPUArray
    from gpuarr import cumath
    assert cumath.sin is gpuarr.sin


def test_import_loads_no_mako_and_no_cuda():
    import subprocess
    import sys
    code = ("import sys, gpuarr; "
            "print('mako' in sys.modules, 'gpuarr.elementwise' in sys.modules)")
    from _util import CHILD_CWD, child_env
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=child_env(),
                         cwd=CHILD_CWD).stdout.split()
    assert out == ["False", "False"]


def test_function_docstrings():
    for f in [gpuarr.add, gpuarr.sin, gpuarr.where, gpuarr.to_gpu, gpuarr.empty,
              gpuarr.GPUArray.reshape, gpuarr.GPUArray.get]:
        assert f.__doc__ and "Returns" in f.__doc__ and "Raises" in f.__doc__, \
            f.__qualname__


def test_steady_state_path(monkeypatch):
    """Small same-shape operations: after the first call, one cached entry
    per (op, dtypes, shape) and the current context; a pool block for the
    result and one prepared launch with (out, a, b, *tail)."""
    from gpuarr import elementwise as ew

    class Ctx:
        pass

    class Fn:
        def __init__(self):
            self.calls = []

        def prepared_async_call(self, grid, block, stream, *args):
            self.calls.append((grid, block, stream, args))

    class Block:
        def __init__(self, ptr):
            self.ptr = ptr

        def __int__(self):
            return self.ptr

    class Pool:
        def __init__(self):
            self.n = 0

        def allocate(self, nbytes):
            self.n += 1
            return Block(1 << 30 | self.n << 16)

    ctx, pool, fns = Ctx(), Pool(), []
    state = ({}, {}, 132)

    def compile_(kernels, kkey, source, name, chars, options=None):
        fn = Fn()
        kernels[kkey] = (fn, None)
        fns.append(fn)
        return fn
    monkeypatch.setattr(_ufunc, "_get_current", lambda: ctx)
    monkeypatch.setattr(_ufunc, "_default_pool", lambda: pool)
    monkeypatch.setattr(_creation, "default_allocator", pool.allocate)
    monkeypatch.setattr(_ufunc, "_HOT", {})
    monkeypatch.setattr(ew, "_ctx_state", lambda: state)
    monkeypatch.setattr(ew, "_compile", compile_)
    a = ga.GPUArray((1024,), np.float32, gpudata=1 << 20)
    b = ga.GPUArray((1024,), np.float32, gpudata=2 << 20)
    outs = [a + b for _ in range(3)]
    assert len(fns) == 1 and len(fns[0].calls) == 3 and len(_ufunc._HOT) == 1
    for o, call in zip(outs, fns[0].calls):
        assert o.shape == (1024,) and o.dtype == np.float32 and o.flags.c_contiguous
        assert call[3][:3] == (o.ptr, a.ptr, b.ptr)
    # out= of the same kind, and ufunc-style calls, take it too
    c = ga.GPUArray((1024,), np.float32, gpudata=3 << 20)
    assert ga.add(a, b, out=c) is c
    assert fns[0].calls[-1][3][:3] == (c.ptr, a.ptr, b.ptr)
    # an input overlapping out= in another place, a misaligned input or
    # another context: not the cached entry
    n = len(fns[0].calls)
    assert _ufunc._hot_apply("add", (a, b), ga.GPUArray((1024,), np.float32,
                         gpudata=(1 << 20) + 16), None) is None
    assert _ufunc._hot_apply("add", (a[1:], b[1:]), None, None) is None
    monkeypatch.setattr(_ufunc, "_get_current", lambda: Ctx())
    a + b
    # (the operator and the ufunc-style path key their entries differently)
    assert len(fns[0].calls) == n + 1 and len(_ufunc._HOT) == 2


@pytest.mark.parametrize("value, exc", [([300, 1, 2], OverflowError),
                                        ([-1, 0, 1], OverflowError),
                                        ([np.nan, 0, 1], ValueError)])
def test_python_values_get_numpys_range_checks(value, exc):
    # raised while converting on the host, before any copy or launch
    g = ga.GPUArray((3,), np.uint8, gpudata=4096)
    with pytest.raises(exc):
        np.zeros(3, np.uint8)[:] = value     # numpy's own behaviour
    with pytest.raises(exc):
        g.set(value)
    with pytest.raises(exc):
        g[:] = value


def test_capsules_alive_at_exit_end_quietly():
    """A capsule never consumed, and an array imported from one, both still
    alive when the interpreter exits: no crash (the callbacks' code stays
    mapped) and nothing printed (they do nothing once exiting)."""
    import subprocess
    import sys
    from _util import child_env, CHILD_CWD
    src = (
        "import numpy as np\n"
        "import gpuarr\n"
        "from gpuarr import _interop\n"
        "_interop.dlpack_device_of = lambda ptr=None: (2, 0)\n"
        "g = gpuarr.GPUArray((4,), np.float32, gpudata=1 << 20)\n"
        "kept = g.__dlpack__()\n"
        "kept_v = g.__dlpack__(max_version=(1, 0))\n"
        "imported = gpuarr.from_dlpack(g.__dlpack__(max_version=(1, 0)))\n"
        "print('DONE')\n")
    r = subprocess.run([sys.executable, "-c", src], capture_output=True,
                       text=True, env=child_env(), timeout=120, cwd=CHILD_CWD)
    assert r.returncode == 0 and r.stdout.strip() == "DONE", (r.returncode, r.stderr)
    assert r.stderr == ""
