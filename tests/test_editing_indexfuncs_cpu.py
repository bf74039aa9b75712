"""CPU tests of numpy's element-editing functions, index helpers and the
newer sum, product and array-API functions (``gpuarr._editing``,
``gpuarr._indexfuncs``, ``gpuarr._mathfuncs``, ``gpuarr.linalg``): every
argument error is
numpy's exception, with numpy's message, raised before anything touches a
device (the arrays here sit at a made-up address, nothing allocated, and
there is no driver), both from gpuarr's functions and through numpy's
dispatch."""

import numpy as np
import pytest

import gpuarr
from gpuarr import GPUArray


def g(shape, dtype=np.float32):
    """A GPUArray at a made-up address (nothing allocated)."""
    return GPUArray(shape, dtype, gpudata=1 << 20)


def _numpy_error(fn, *args, **kw):
    """numpy's exception for the same call on host arrays."""
    with pytest.raises(Exception) as info:
        fn(*args, **kw)
    return info.type, str(info.value)


# (numpy function, gpuarr arguments, host arguments, keywords): each must
# raise numpy's exception class with numpy's message
CASES = [
    ("delete", (g((5,)), 5), (np.zeros(5), 5), {}),
    ("delete", (g((5,)), -6), (np.zeros(5), -6), {}),
    # (index lists, not numpy arrays: numpy's dispatch refuses to mix a
    # GPUArray with a numpy.ndarray)
    ("delete", (g((5,)), [True, False]), (np.zeros(5), [True, False]), {}),
    ("delete", (g((5,)), [1, 7]), (np.zeros(5), [1, 7]), {}),
    ("delete", (g((5,)), [1.5, 2]), (np.zeros(5), [1.5, 2]), {}),
    ("delete", (g((2, 3)), 3), (np.zeros((2, 3)), 3), {"axis": 1}),
    ("delete", (g((2, 3)), 0), (np.zeros((2, 3)), 0), {"axis": 2}),
    ("insert", (g((4,)), 5, 1.0), (np.zeros(4), 5, 1.0), {}),
    ("insert", (g((4,)), -5, 1.0), (np.zeros(4), -5, 1.0), {}),
    ("insert", (g((4,)), [[1, 2]], 1.0), (np.zeros(4), [[1, 2]], 1.0), {}),
    ("insert", (g((2, 3)), 1, 1.0), (np.zeros((2, 3)), 1, 1.0), {"axis": -3}),
    ("resize", (g((4,)), (2, -1)), (np.zeros(4), (2, -1)), {}),
    ("trim_zeros", (g((4,)),), (np.zeros(4),), {"trim": "x"}),
    ("trim_zeros", (g((4,)),), (np.zeros(4),), {"axis": 1}),
    ("unravel_index", (g((3,), np.float32), (2, 3)),
     (np.zeros(3, np.float32), (2, 3)), {}),
    ("unravel_index", (g((3,), np.int64), (2, 3)),
     (np.zeros(3, np.int64), (2, 3)), {"order": "A"}),
    ("ravel_multi_index", ((g((2,), np.int64),), (2, 3)),
     ((np.zeros(2, np.int64),), (2, 3)), {}),
    ("ravel_multi_index", ((g((2,), np.int64), g((2,), np.int64)), (2, 3)),
     ((np.zeros(2, np.int64), np.zeros(2, np.int64)), (2, 3)),
     {"mode": "bad"}),
    ("ravel_multi_index", ((g((2,), np.int64), g((2,), np.int64)), (2, 3)),
     ((np.zeros(2, np.int64), np.zeros(2, np.int64)), (2, 3)),
     {"mode": ("clip",)}),
    ("ravel_multi_index", ((g((2,), np.int64), g((2,), np.int64)),
                           (2 ** 40, 2 ** 40)),
     ((np.zeros(2, np.int64), np.zeros(2, np.int64)), (2 ** 40, 2 ** 40)),
     {}),
    ("ravel_multi_index", ((g((2,), np.float64), g((2,), np.int64)), (2, 3)),
     ((np.zeros(2), np.zeros(2, np.int64)), (2, 3)), {}),
    ("ravel_multi_index", ((g((2,), np.int64), g((2,), np.int64)), (2, 3)),
     ((np.zeros(2, np.int64), np.zeros(2, np.int64)), (2, 3)),
     {"order": "K"}),
    ("ix_", (g((2, 2), np.int64),), (np.zeros((2, 2), np.int64),), {}),
    ("broadcast_arrays", (g((2,)), g((3,))), (np.zeros(2), np.zeros(3)), {}),
    ("tril_indices_from", (g((3,)),), (np.zeros(3),), {}),
    ("triu_indices_from", (g((3, 3, 3)),), (np.zeros((3, 3, 3)),), {}),
    ("diag_indices_from", (g((3,)),), (np.zeros(3),), {}),
    ("diag_indices_from", (g((3, 2)),), (np.zeros((3, 2)),), {}),
    ("fill_diagonal", (g((3,)), 1.0), (np.zeros(3), 1.0), {}),
    ("fill_diagonal", (g((3, 3, 2)), 1.0), (np.zeros((3, 3, 2)), 1.0), {}),
    ("select", ([g((2,), np.bool_)], [g((2,)), g((2,))]),
     ([np.zeros(2, bool)], [np.zeros(2), np.zeros(2)]), {}),
    ("select", ([], []), ([], []), {}),
    ("select", ([g((2,), np.int64)], [g((2,))]),
     ([np.zeros(2, np.int64)], [np.zeros(2)]), {}),
    ("putmask", (g((3,)), g((2,), np.bool_), 1.0),
     (np.zeros(3), np.zeros(2, bool), 1.0), {}),
    ("cross", (g((3,)), g(())), (np.zeros(3), np.zeros(())), {}),
    ("cross", (g((4, 4)), g((4, 3))), (np.zeros((4, 4)), np.zeros((4, 3))),
     {}),
    ("cross", (g((4, 3)), g((4, 3))), (np.zeros((4, 3)), np.zeros((4, 3))),
     {"axisa": 2}),
    ("cross", (g((4, 3)), g((4, 3))), (np.zeros((4, 3)), np.zeros((4, 3))),
     {"axisc": -3}),
    ("cross", (g((3,), np.bool_), g((3,), np.bool_)),
     (np.zeros(3, bool), np.zeros(3, bool)), {}),
    ("matrix_transpose", (g((3,)),), (np.zeros(3),), {}),
    ("cumulative_sum", (g((2, 3)),), (np.zeros((2, 3)),), {}),
    ("cumulative_prod", (g((2, 3)),), (np.zeros((2, 3)),), {"axis": 2}),
    ("unstack", (g(()),), (np.zeros(()),), {}),
    ("unstack", (g((2, 3)),), (np.zeros((2, 3)),), {"axis": 2}),
    ("vander", (g((2, 3)),), (np.zeros((2, 3)),), {}),
    ("block", ([[g((2,)), g((2,))], (g((2,)),)],),
     ([[np.zeros(2), np.zeros(2)], (np.zeros(2),)],), {}),
    ("block", ([[g((2,))], []],), ([[np.zeros(2)], []],), {}),
    ("convolve", (g((3,)), g((2,))), (np.zeros(3), np.zeros(2)),
     {"mode": "x"}),
    ("convolve", (g((0,)), g((2,))), (np.zeros(0), np.zeros(2)), {}),
    ("convolve", (g((3,)), g((0,))), (np.zeros(3), np.zeros(0)), {}),
    ("correlate", (g((0,)), g((2,))), (np.zeros(0), np.zeros(2)), {}),
    ("correlate", (g((2,)), g((0,))), (np.zeros(2), np.zeros(0)), {}),
    ("unpackbits", (g((3,), np.float32),), (np.zeros(3, np.float32),), {}),
    ("unpackbits", (g((1,), np.uint8),), (np.zeros(1, np.uint8),),
     {"count": -9}),
    ("unpackbits", (g((1,), np.uint8),), (np.zeros(1, np.uint8),),
     {"bitorder": "x"}),
    ("packbits", (g((3,), np.float64),), (np.zeros(3),), {}),
    ("packbits", (g((3,), np.int8),), (np.zeros(3, np.int8),),
     {"axis": 1}),
    ("block", ([[g((2,))], g((2,))],), ([[np.zeros(2)], np.zeros(2)],), {}),
    ("block", ([[[g((1,))]], [g((1,))]],),
     ([[[np.zeros(1)]], [np.zeros(1)]],), {}),
]

LINALG_CASES = [
    ("cross", (g((4, 2)), g((4, 3))), (np.zeros((4, 2)), np.zeros((4, 3))),
     {}),
    ("vecdot", (g((3,)), g((2,))), (np.zeros(3), np.zeros(2)), {}),
    ("matrix_transpose", (g((3,)),), (np.zeros(3),), {}),
    ("vector_norm", (g((3, 4)),), (np.zeros((3, 4)),), {"axis": 2}),
    ("vector_norm", (g((3, 4)),), (np.zeros((3, 4)),), {"ord": "fro"}),
    ("matrix_norm", (g((3, 4)),), (np.zeros((3, 4)),), {"ord": 3}),
]


@pytest.mark.parametrize("case", range(len(CASES)),
                         ids=["%s-%d" % (c[0], k)
                              for k, c in enumerate(CASES)])
def test_argument_errors_are_numpys(case):
    name, args, host_args, kw = CASES[case]
    etype, msg = _numpy_error(getattr(np, name), *host_args, **kw)
    for fn in (getattr(gpuarr, name), getattr(np, name)):
        with pytest.raises(etype) as info:
            fn(*args, **kw)
        assert str(info.value) == msg, (fn, str(info.value), msg)


@pytest.mark.parametrize("case", range(len(LINALG_CASES)),
                         ids=["%s-%d" % (c[0], k)
                              for k, c in enumerate(LINALG_CASES)])
def test_linalg_argument_errors_are_numpys(case):
    name, args, host_args, kw = LINALG_CASES[case]
    etype, msg = _numpy_error(getattr(np.linalg, name), *host_args, **kw)
    for fn in (getattr(gpuarr.linalg, name), getattr(np.linalg, name)):
        with pytest.raises(etype) as info:
            fn(*args, **kw)
        assert str(info.value) == msg, (fn, str(info.value), msg)


def test_insert_with_a_2d_mask():
    # numpy's own check reads obj.ndim, which a list lacks (AttributeError
    # there); gpuarr's checks the array made of it, numpy's ValueError
    for obj in (np.array([[True]]), [[True]]):
        with pytest.raises(ValueError, match="boolean array argument obj to "
                           "insert must be one dimensional"):
            gpuarr.insert(g((4,)), obj, 1.0)


def test_metadata_only_results_need_no_device():
    m = g((2, 3, 4))
    for t_ in (gpuarr.matrix_transpose(m), np.matrix_transpose(m),
               np.linalg.matrix_transpose(m)):
        assert t_.shape == (2, 4, 3) and t_.ptr == m.ptr
    assert np.linalg.diagonal(m, offset=1).shape == (2, 3)
    a, b = g((3, 1)), g((4,))
    x, y = gpuarr.broadcast_arrays(a, b)
    assert x.shape == y.shape == (3, 4) and x.strides[1] == 0
    assert y.strides[0] == 0 and x.ptr == a.ptr and y.ptr == b.ptr
    same = g((2, 2))
    assert gpuarr.broadcast_arrays(same, g((2, 2)))[0] is same
    assert np.broadcast_arrays(same, g((2, 2)))[0] is same
    assert gpuarr.broadcast_arrays() == ()
    assert gpuarr.ix_() == ()
    (i,) = gpuarr.ix_(g((5,), np.int64))
    assert i.shape == (5,)
    i, j = gpuarr.ix_(g((5,), np.int64), g((2,), np.int32))
    assert i.shape == (5, 1) and j.shape == (1, 2) and j.dtype == np.int32
    # trim_zeros along no axis gives its argument back
    a = g((4,))
    assert gpuarr.trim_zeros(a, axis=()) is a
    # the dispatch table holds exactly the functions that take arrays
    from gpuarr import _dispatch
    names = {e.name for e in _dispatch.functions().values()}
    for n in ("append", "delete", "insert", "resize", "trim_zeros",
              "broadcast_arrays", "unravel_index", "ravel_multi_index", "ix_",
              "tril_indices_from", "triu_indices_from", "diag_indices_from",
              "fill_diagonal", "select", "putmask"):
        assert "numpy." + n in names, n
    for n in ("cumulative_sum", "cumulative_prod", "trapezoid", "cross",
              "sinc", "matrix_transpose", "linalg.vector_norm",
              "linalg.matrix_norm", "linalg.svdvals", "linalg.diagonal",
              "linalg.trace", "linalg.matrix_transpose", "linalg.cross",
              "linalg.vecdot"):
        assert "numpy." + n in names, n
    for n in ("tri", "tril_indices", "triu_indices", "diag_indices"):
        assert "numpy." + n not in names, n


def test_memory_overlap_is_numpys_answer_for_the_device_addresses():
    # the same views of a device block and of a host block: numpy's
    # answers must agree (the device one from stand-ins, no memory read)
    d, h = g((6, 10)), np.zeros((6, 10), np.float32)
    views = [(lambda x: x), (lambda x: x[::2]), (lambda x: x[1::2]),
             (lambda x: x[:, ::3]), (lambda x: x[:, 1::3]),
             (lambda x: x[::-1, 2:5]), (lambda x: x.T), (lambda x: x[3:3])]
    for f1 in views:
        for f2 in views:
            for name in ("shares_memory", "may_share_memory"):
                want = getattr(np, name)(f1(h), f2(h))
                assert getattr(gpuarr, name)(f1(d), f2(d)) == want
                assert getattr(np, name)(f1(d), f2(d)) == want
    # arrays of their own, by their addresses: right after d, and 20
    # bytes before its end
    after = GPUArray((6, 10), np.float32, gpudata=(1 << 20) + 240)
    inside = GPUArray((6, 10), np.float32, gpudata=(1 << 20) + 220)
    assert not gpuarr.shares_memory(d, after)
    assert not gpuarr.may_share_memory(d, after)
    assert gpuarr.shares_memory(d[5:], inside[:1])
    assert not gpuarr.shares_memory(d[5:, :5], inside[:1])
    assert not gpuarr.may_share_memory(d, np.zeros(3))


def test_layout_functions_without_a_device():
    c, f = g((3, 4)), g((3, 4)).T
    assert gpuarr.ascontiguousarray(c) is c
    assert gpuarr.asfortranarray(f) is f
    assert gpuarr.isfortran(f) and not gpuarr.isfortran(c)
    assert np.isfortran(f) and not np.isfortran(g((1, 4)))
    z = g(())
    one = gpuarr.ascontiguousarray(z)
    assert one.shape == (1,) and one.ptr == z.ptr
    assert gpuarr.asfortranarray(z).shape == (1,)


def test_common_type_and_require_without_a_device():
    for dts in (("i1", "f2"), ("f4",), ("f4", "c8"), ("u8", "f2", "f4"),
                ("f2",), ("c16", "i4")):
        arrs = [g((2,), np.dtype(d)) for d in dts]
        hosts = [np.zeros(2, np.dtype(d)) for d in dts]
        assert gpuarr.common_type(*arrs) is np.common_type(*hosts)
        assert np.common_type(*arrs) is np.common_type(*hosts)
    with pytest.raises(TypeError, match="non-numeric"):
        gpuarr.common_type(g((2,), np.bool_))
    c, f = g((3, 4)), g((3, 4)).T
    assert gpuarr.require(c, requirements="C") is c
    assert gpuarr.require(f, None, ["F", "A", "W", "E"]) is f
    assert gpuarr.require(c, requirements=["aligned", "WRITEABLE"]) is c
    with pytest.raises(ValueError, match='both "C" and "F"'):
        gpuarr.require(c, requirements=["C", "F"])
    with pytest.raises(KeyError):
        gpuarr.require(c, requirements=["X"])
    with pytest.raises(ValueError, match="Invalid ind argument"):
        gpuarr.linalg.tensorinv(g((2, 2)), ind=0)
    with pytest.raises(NotImplementedError):
        gpuarr.logspace(0, [1, 2])
