"""CPU tests of gpuarr._dtypes: promotion, broadcasting, dimension merging,
all checked against numpy itself."""
import itertools
import warnings

import numpy as np
import pytest

from gpuarr import _dtypes, _layout
from gpuarr.elementwise import resolve

DTYPES = _dtypes.SUPPORTED
BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide",
          "remainder", "power", "equal", "less", "maximum", "fmin",
          "arctan2", "left_shift", "bitwise_and", "logical_and", "hypot"]
UNARY = ["negative", "absolute", "sqrt", "sin", "invert", "sign", "floor",
         "isnan", "square", "reciprocal", "conjugate", "logical_not"]


def numpy_outcome(fn):
    """(result dtype, None) or (None, exception class) of running fn."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return fn().dtype, None
            except (TypeError, OverflowError, ValueError) as exc:
                return None, type(exc)


def our_outcome(op, *operands):
    try:
        return resolve(op, *operands)[1][0], None
    except (TypeError, OverflowError, ValueError) as exc:
        return None, type(exc)


def _same_class(ours, theirs):
    if ours is None or theirs is None:
        return ours is theirs
    return issubclass(ours, theirs) or issubclass(theirs, ours)


def _ones(dt):
    return np.ones(3, dtype=dt)


@pytest.mark.parametrize("op", BINARY)
def test_every_dtype_pair_matches_numpy(op):
    uf = getattr(np, op)
    for d1, d2 in itertools.product(DTYPES, DTYPES):
        exp_dt, exp_err = numpy_outcome(lambda: uf(_ones(d1), _ones(d2)))
        got_dt, got_err = our_outcome(op, d1, d2)
        assert got_dt == exp_dt, (op, d1, d2)
        assert _same_class(got_err, exp_err), (op, d1, d2, got_err, exp_err)


@pytest.mark.parametrize("op", UNARY)
def test_every_dtype_unary_matches_numpy(op):
    uf = getattr(np, op)
    for d in DTYPES:
        exp_dt, exp_err = numpy_outcome(lambda: uf(_ones(d)))
        got_dt, got_err = our_outcome(op, d)
        assert got_dt == exp_dt, (op, d)
        assert _same_class(got_err, exp_err), (op, d)


SCALARS = [0, 1, -1, 7, 127, 128, 255, 256, 300, -129, 2 ** 31, -2 ** 31 - 1,
           2 ** 63, 2 ** 64, -2 ** 63 - 1, 2 ** 70, 2 ** 1100, True, False,
           1.5, -0.0, 1e300, float("inf"), 2j, 1.5 + 2j]


@pytest.mark.parametrize("op", ["add", "multiply", "subtract", "true_divide",
                                "less", "equal", "maximum", "power"])
def test_every_dtype_with_python_scalars_matches_numpy(op):
    uf = getattr(np, op)
    for d in DTYPES:
        for s in SCALARS:
            for order in (0, 1):
                args_np = (_ones(d), s) if order == 0 else (s, _ones(d))
                args_us = (d, s) if order == 0 else (s, d)
                exp_dt, exp_err = numpy_outcome(lambda: uf(*args_np))
                got_dt, got_err = our_outcome(op, *args_us)
                assert got_dt == exp_dt, (op, d, s, order)
                assert _same_class(got_err, exp_err), (op, d, s, order,
                                                        got_err, exp_err)


def test_numpy_scalars_are_strong():
    f4 = np.dtype(np.float32)
    assert resolve("multiply", f4, 2.0)[1][0] == f4
    assert resolve("multiply", f4, np.float64(2.0))[1][0] == np.float64
    assert resolve("true_divide", np.dtype("i4"), np.dtype("i4"))[1][0] == np.float64
    with pytest.raises(TypeError):
        resolve("subtract", np.dtype(bool), np.dtype(bool))
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        resolve("add", np.dtype(np.uint8), 300)


def test_result_type_matches_numpy():
    for d1, d2 in itertools.product(DTYPES, DTYPES):
        assert _dtypes.result_type(d1, d2) == np.result_type(d1, d2)
    for d in DTYPES:
        assert _dtypes.result_type(d, int) == np.result_type(d, 0)
        assert _dtypes.result_type(d, float) == np.result_type(d, 0.0)
        assert _dtypes.result_type(d, complex) == np.result_type(d, 0j)


def test_ctypes_and_support():
    for d in DTYPES:
        assert _dtypes.is_supported(d)
        assert isinstance(_dtypes.ctype(d), str)
    assert _dtypes.ctype(np.float16) == "ga_half"
    assert _dtypes.reg_ctype(np.float16) == "float"
    assert _dtypes.ctype(np.complex64) == "ga_complex<float>"
    for bad in (object, "U3", "M8[s]", ">f4", [("a", "f4")]):
        assert not _dtypes.is_supported(bad)
        with pytest.raises(TypeError):
            _dtypes.check_supported(bad)


SHAPES = [((), ()), ((3,), ()), ((1,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 5)),
          ((4, 1, 3), (5, 1)), ((0,), (1,)), ((0, 3), (1, 3)), ((2, 3), (4,)),
          ((3, 2), (2, 3)), ((2, 0), (3,)), ((7, 1, 1), (1, 6, 1), (1, 1, 5))]


@pytest.mark.parametrize("shapes", SHAPES)
def test_broadcast_shapes_matches_numpy(shapes):
    try:
        exp = np.broadcast_shapes(*shapes)
    except ValueError as exc:
        with pytest.raises(ValueError) as info:
            _layout.broadcast_shapes(*shapes)
        assert str(info.value) == str(exc)
        return
    assert _layout.broadcast_shapes(*shapes) == exp


def test_broadcast_strides_matches_numpy():
    base = np.zeros((6, 8, 10), dtype=np.float32)
    views = [base, base[::2], base[:, ::-1], base.transpose(2, 0, 1),
             base[:1], base[:, :1, ::-3], base[0], base[0, 0], base[0, 0, :1]]
    targets = [(6, 8, 10), (2, 6, 8, 10), (3, 8, 10), (10, 6, 8), (5, 8, 10),
               (4, 6, 1, 4), (8, 10), (10,), (7, 3)]
    for v in views:
        for t in targets:
            try:
                exp = np.broadcast_to(v, t).strides
            except ValueError as exc:
                with pytest.raises(ValueError) as info:
                    _layout.broadcast_strides(v.shape, v.strides, t)
                assert str(info.value) == str(exc)
                continue
            got = _layout.broadcast_strides(v.shape, v.strides, t)
            # numpy keeps any stride on length-1 axes; compare where it matters
            for n, a, b in zip(t, got, exp):
                if n != 1:
                    assert a == b, (v.shape, v.strides, t, got, exp)


def _random_view(rng, base, shape):
    """A view of ``base`` with shape ``shape`` built from random slicing,
    reversal and transposition."""
    nd = len(shape)
    perm = rng.permutation(nd)
    # find the untransposed shape
    pre = [0] * nd
    for k, p in enumerate(perm):
        pre[p] = shape[k]
    steps = [int(rng.choice([1, 1, 2, -1, -2])) for _ in range(nd)]
    full = tuple(abs(s) * n + 1 for s, n in zip(steps, pre))
    arr = base[:int(np.prod(full))].reshape(full)
    idx = []
    for s, n in zip(steps, pre):
        if s > 0:
            idx.append(slice(0, s * n, s))
        else:
            idx.append(slice(-1, -1 - (-s) * n, s) if True else None)
    v = arr[tuple(idx)]
    assert v.shape == tuple(pre)
    return v.transpose(perm)


def test_merge_dims_addresses_same_elements():
    rng = np.random.default_rng(12345)
    base = np.arange(200000, dtype=np.int64)
    for trial in range(300):
        nd = int(rng.integers(1, 5))
        shape = tuple(int(rng.integers(1, 5)) for _ in range(nd))
        nops = int(rng.integers(1, 4))
        views = []
        for _ in range(nops):
            kind = rng.integers(0, 3)
            if kind == 0:
                views.append(base[:int(np.prod(shape))].reshape(shape))
            elif kind == 1:
                views.append(_random_view(rng, base, shape))
            else:
                # broadcast along random axes
                small = tuple(1 if rng.random() < 0.4 else n for n in shape)
                views.append(np.broadcast_to(_random_view(rng, base, small),
                                             shape))
        mshape, mstrides = _layout.merge_dims(shape, [v.strides for v in views])
        assert len(mshape) <= len(shape)
        assert 1 not in mshape
        for v, st in zip(views, mstrides):
            if not mshape:
                assert v.size == 1
                continue
            m = np.lib.stride_tricks.as_strided(v, shape=mshape, strides=st)
            np.testing.assert_array_equal(m.ravel(), v.ravel())


def test_merge_dims_examples():
    assert _layout.merge_dims((4, 5), [(20, 4), (20, 4)]) == ((20,), ((4,), (4,)))
    assert _layout.merge_dims((4, 5), [(20, 4), (0, 4)]) == ((4, 5), ((20, 4), (0, 4)))
    assert _layout.merge_dims((4, 1, 5), [(20, 999, 4)]) == ((20,), ((4,),))
    assert _layout.merge_dims((1, 1), [(8, 8)]) == ((), ((),))
    assert _layout.merge_dims((3, 0), [(8, 8)]) == ((0,), ((0,),))
    assert _layout.merge_dims((), [()]) == ((), ((),))
    # transposed operand blocks merging
    assert _layout.merge_dims((4, 5), [(20, 4), (4, 16)])[0] == (4, 5)


def test_needs_64bit():
    assert not _layout.needs_64bit((2 ** 28,), [(4,)])
    assert not _layout.needs_64bit((2 ** 27,), [(8,)])
    assert _layout.needs_64bit((2 ** 31,), [(1,)])
    assert _layout.needs_64bit((2 ** 29 + 1,), [(4,)])
    assert _layout.needs_64bit((3, 2 ** 20), [(-2 ** 30, 4)])
    assert not _layout.needs_64bit((16384, 16384), [(65536, 4), (4, 65536)])


def test_check_scalar():
    _dtypes.check_scalar(255, np.dtype("u1"))
    with pytest.raises(OverflowError):
        _dtypes.check_scalar(256, np.dtype("u1"))
    with pytest.raises(OverflowError):
        _dtypes.check_scalar(-1, np.dtype("u8"))
    with pytest.raises(OverflowError):
        _dtypes.check_scalar(2 ** 1100, np.dtype("f4"))
    _dtypes.check_scalar(2 ** 70, np.dtype("f2"))


def test_unsupported_dtype_messages_say_why():
    # non-native byte order of a supported type: say so and how to convert
    for bad in (">f4", ">i8", ">c16", ">u2"):
        with pytest.raises(TypeError, match="byte order.*newbyteorder"):
            _dtypes.check_supported(np.dtype(bad).newbyteorder(">"))
    # anything else: list what is supported
    for bad in (object, "U3", "M8[s]", [("a", "f4")]):
        with pytest.raises(TypeError, match="supported: bool"):
            _dtypes.check_supported(bad)
