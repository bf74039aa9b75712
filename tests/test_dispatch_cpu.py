"""numpy dispatch without a GPU: ``__array_ufunc__``, ``__array_function__``
and gpuarr's ufunc objects.

* the table of numpy functions agrees with numpy's signatures (every numpy
  parameter reaches gpuarr's function or may stay at its default), and the
  calls bind numpy's way (positional ``out``, renames, numpy's defaults);
* every gpuarr ufunc's ``nin``/``nout``/``nargs``/``identity``/``types``
  against numpy's ufunc (each listed loop is one gpuarr resolves to itself);
* ``dtype=`` loops against numpy's resolution;
* numpy's ufuncs, their methods and operators reach gpuarr's routines
  (recorded through monkeypatching, so no kernel runs);
* what gpuarr lacks raises TypeError naming it; numpy ndarrays mixed in
  raise TypeError pointing to ``to_gpu``/``.get()``; another library's
  array gets NotImplemented;
* under the fake libcuda: views and memset-made arrays through numpy
  functions read back numpy's values.

Arrays are made with ``gpudata=<int>`` (no driver), as in
``test_gpuarray_cpu.py``.
"""
import inspect
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gpuarr
from gpuarr import _dispatch, _indexing, _protocols, _ufunc, cumulative
from gpuarr import reductions
from gpuarr import elementwise
from gpuarr.gpuarray import GPUArray

from _util import CHILD_CWD, child_env, run_fake_scenario


def g(shape, dtype=np.float32):
    """A GPUArray at a made-up address (nothing allocated)."""
    return GPUArray(shape, dtype, gpudata=1 << 20)


class Recorder:
    """Stands in for a routine: remembers its calls, returns a marker."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return "called"


@pytest.fixture
def apply_calls(monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(_ufunc, "apply", rec)
    return rec.calls


TABLE = _dispatch.functions()


# ---------------------------------------------------------------------------
# the table against numpy's signatures

def test_the_table_holds_what_gpuarr_implements():
    names = {e.name for e in TABLE.values()}
    for n in ("sum", "prod", "mean", "var", "std", "max", "min", "argmax",
              "any", "all", "count_nonzero", "cumsum", "cumprod",
              "concatenate", "stack", "hstack", "vstack", "dstack",
              "column_stack", "take", "sort", "argsort", "unique", "pad",
              "tile", "repeat", "nonzero", "reshape", "ravel", "transpose",
              "swapaxes", "squeeze", "expand_dims", "broadcast_to", "flip",
              "rot90", "moveaxis", "atleast_2d", "split", "array_split",
              "diagonal", "where", "clip", "angle", "dot", "vdot", "inner",
              "empty_like", "zeros_like", "full_like", "copy", "shape",
              "ndim", "result_type"):
        assert "numpy." + n in names, n
    assert "numpy.linalg.norm" in names
    for func, entry in TABLE.items():
        assert entry.numpy_function is func
        assert entry.name == _dispatch.numpy_name(func)


@pytest.mark.parametrize("entry", list(TABLE.values()),
                         ids=lambda e: e.name)
def test_each_entry_agrees_with_numpys_signature(entry):
    P = inspect.Parameter
    np_params = _dispatch.numpy_signature(entry.numpy_function).parameters
    impl = inspect.signature(entry.function).parameters
    plan = entry.plan()
    for old in entry.rename:
        assert old in np_params, "rename of a parameter numpy lacks: " + old
    if plan["varargs"]:
        assert any(p.kind == P.VAR_POSITIONAL for p in impl.values())
        return
    for name, p in np_params.items():
        if p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            continue
        target = entry.rename.get(name, name)
        # numpy's parameter reaches gpuarr's, or it is optional (then only
        # its default is accepted)
        assert target in impl or p.default is not P.empty, (name, entry)
    covered = {entry.rename.get(n, n) for n in np_params}
    for name, p in impl.items():
        if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY) \
                and p.default is P.empty:
            assert name in covered, ("gpuarr needs %r, numpy lacks it"
                                     % name, entry)
    for target, value in plan["fill"].items():
        assert target in impl and impl[target].default != value


def _record(monkeypatch, numpy_func):
    """Record the calls of a table entry, bound by its real function's
    signature (read before the recorder stands in)."""
    rec = Recorder()
    entry = _dispatch.lookup(numpy_func)
    entry.plan()
    monkeypatch.setattr(entry, "function", rec)
    return rec.calls


def test_calls_bind_by_numpys_signature(monkeypatch):
    a, b, o = g((2, 3)), g((2, 3)), g((4, 3))
    calls = _record(monkeypatch, np.concatenate)
    assert np.concatenate((a, b), 0, o) == "called"
    assert calls[-1] == ((), {"arrays": (a, b), "axis": 0, "out": o})
    np.concatenate([a, b], axis=1, dtype=np.float64, casting="unsafe")
    assert calls[-1][1] == {"arrays": [a, b], "axis": 1,
                            "dtype": np.float64, "casting": "unsafe"}
    calls = _record(monkeypatch, np.hstack)
    np.hstack((a, b))
    assert calls[-1] == ((), {"arrays": (a, b)})      # numpy's tup=
    calls = _record(monkeypatch, np.sum)
    np.sum(a, 1, np.float64, None, True)
    assert calls[-1][1] == {"a": a, "axis": 1, "dtype": np.float64,
                            "out": None, "keepdims": True}
    # a numpy default that differs from gpuarr's is passed explicitly
    rec = Recorder()

    def copy_c(a, order="C"):
        return rec(a=a, order=order)
    entry = _dispatch.Implementation(np.copy, copy_c)
    assert entry.plan()["fill"] == {"order": "K"}
    entry((a,), {})
    assert rec.calls[-1][1] == {"a": a, "order": "K"}
    entry((a,), {"order": "F", "subok": False})
    assert rec.calls[-1][1] == {"a": a, "order": "F"}
    with pytest.raises(NotImplementedError, match="subok=True"):
        entry((a,), {"subok": True})
    with pytest.raises(TypeError, match="positional"):
        entry((a, "C", False, 1), {})
    calls = _record(monkeypatch, np.atleast_2d)
    np.atleast_2d(a, b)
    assert calls[-1] == ((a, b), {})
    calls = _record(monkeypatch, np.broadcast_to)
    np.broadcast_to(a, (5, 2, 3), subok=False)     # numpy's default: dropped
    assert calls[-1][1] == {"a": a, "shape": (5, 2, 3)}


def test_creation_functions_with_like_bind_numpys_way(monkeypatch):
    # NEP 35: numpy strips like= and dispatches on it; numpy.arange takes
    # dtype fourth by position though its signature names it keyword-only
    a = g((2, 3))
    calls = _record(monkeypatch, np.arange)
    np.arange(1, 10, 2, np.float32, like=a)
    assert calls[-1][1] == {"start": 1, "stop": 10, "step": 2,
                            "dtype": np.float32}
    calls = _record(monkeypatch, np.array)
    np.array([], like=a, dtype=np.float32, ndmin=2)
    assert calls[-1][1] == {"obj": [], "dtype": np.float32, "ndmin": 2}
    calls = _record(monkeypatch, np.ones)
    np.ones((4,), like=a)
    assert calls[-1][1]["shape"] == (4,)


def test_arguments_gpuarr_lacks_raise_naming_them():
    a = g((4,))
    with pytest.raises(NotImplementedError, match="subok"):
        np.broadcast_to(a, (2, 4), subok=True)
    with pytest.raises(NotImplementedError, match="copy"):
        np.reshape(a, (2, 2), copy=False)
    with pytest.raises(NotImplementedError, match="clip"):
        np.clip(a, 0, 1, casting="unsafe")


def test_functions_gpuarr_lacks_raise_typeerror_naming_them():
    a = g((4,))
    for f, args in ((np.histogram2d, (a,)), (np.polyfit, (a, 1)),
                    (np.gradient, ()), (np.piecewise, ([], [])),
                    (np.fft.fft, ()), (np.linalg.eig, ())):
        name = _dispatch.numpy_name(f)
        with pytest.raises(TypeError,
                           match="gpuarr does not implement %s" % name):
            f(a, *args)
    with pytest.raises(TypeError, match=r"numpy\.vecdot"):
        np.vecdot(g((3,), np.float32), g((3,), np.float32))


def test_metadata_and_view_functions_need_no_device():
    a = g((3, 4))
    assert np.shape(a) == (3, 4) and np.ndim(a) == 2 and np.size(a) == 12
    assert np.size(a, 1) == 4 and np.size(a, -1) == 4
    assert np.size(a, (0, 1)) == 12
    with pytest.raises(np.exceptions.AxisError):
        np.size(a, 2)
    assert np.result_type(a, 1.0) == np.float32      # weak Python float
    assert np.result_type(a, np.float64(1)) == np.float64
    assert np.can_cast(a, np.float64) and not np.can_cast(a, np.int8)
    assert not np.iscomplexobj(a) and np.isrealobj(a)
    assert np.iscomplexobj(g((2,), np.complex64))
    for got, want in ((np.transpose(a), (4, 3)), (np.reshape(a, (2, 6)),
                      (2, 6)), (np.ravel(a), (12,)),
                      (np.expand_dims(a, 0), (1, 3, 4)),
                      (np.moveaxis(a, 0, -1), (4, 3)),
                      (np.swapaxes(a, 0, 1), (4, 3)),
                      (np.flip(a, 1), (3, 4)), (np.rot90(a), (4, 3)),
                      (np.broadcast_to(g((4,)), (2, 4)), (2, 4)),
                      (np.atleast_3d(a), (3, 4, 1)),
                      (np.diagonal(a), (3,)),
                      (np.real(g((2,), np.complex128)), (2,))):
        assert isinstance(got, GPUArray) and got.shape == want
    assert [p.shape for p in np.split(a, 2, axis=1)] == [(3, 2)] * 2
    assert np.imag(g((2,), np.complex64)).dtype == np.float32


# ---------------------------------------------------------------------------
# ufunc objects against numpy's

UFUNCS = _protocols.ufuncs()


@pytest.mark.parametrize("name", sorted(UFUNCS))
def test_ufunc_attributes_match_numpys(name):
    u = UFUNCS[name]
    npu = u.numpy_ufunc
    assert (u.nin, u.nout, u.nargs) == (npu.nin, npu.nout, npu.nargs)
    assert u.__name__ == npu.__name__
    assert u.identity == npu.identity or (u.identity is npu.identity)
    assert u.signature is None and npu.signature is None
    types = u.types
    assert types and u.ntypes == len(types)
    assert [t for t in npu.types if t in types] == types   # numpy's order
    for t in npu.types:
        ins, outs = t.split("->")
        try:
            dts = [np.dtype(c) for c in ins]
            loop = elementwise.resolve(name, *dts)
        except TypeError:
            loop = None
        if t in types:
            # gpuarr resolves the loop's own dtypes to the loop itself
            assert loop is not None, t
            assert loop[0] == tuple(dts), t
            assert loop[1] == tuple(np.dtype(c) for c in outs), t
        elif loop is not None and loop[0] == tuple(dts):
            assert tuple(np.dtype(c) for c in outs) != loop[1], t


def test_flat_namespace_ufuncs_are_the_objects():
    assert gpuarr.add is _protocols.by_name("add") is _protocols.for_numpy(np.add)
    assert gpuarr.sin is _protocols.for_numpy(np.sin) is gpuarr.cumath.sin
    assert gpuarr.divide is gpuarr.true_divide
    assert gpuarr.divide.__name__ == np.divide.__name__
    assert repr(gpuarr.add) == "<gpuarr ufunc 'add'>"
    assert gpuarr.add.types == [t for t in np.add.types
                                if not set(t) & set("gGOMm")]
    assert gpuarr.sin.types == ["e->e", "f->f", "d->d", "F->F", "D->D"]
    assert gpuarr.subtract.identity is None and gpuarr.multiply.identity == 1
    for u in (gpuarr.add, gpuarr.multiply, gpuarr.maximum):
        assert callable(u.reduce) and callable(u.accumulate) \
            and callable(u.outer)
    import pickle
    assert pickle.loads(pickle.dumps(gpuarr.add)) is gpuarr.add
    assert "Returns" in gpuarr.add.__doc__ and "Raises" in gpuarr.add.__doc__
    assert _protocols.for_numpy(np.vecdot) is None


@pytest.mark.parametrize("name,dts,dtype", [
    ("add", ("i1", "i1"), "f4"), ("add", ("f8", int), "f4"),
    ("multiply", ("u2", "i2"), "f8"), ("sin", ("f4",), "f8"),
    ("equal", ("i1", "f4"), "?"), ("power", ("i4", float), "c8"),
    ("true_divide", ("i8", "i8"), "f4")])
def test_dtype_loops_are_numpys(name, dts, dtype):
    u = _protocols.by_name(name)
    args = [g((3,), d) if isinstance(d, str) else d(1) for d in dts]
    toks = tuple(np.dtype(d) if isinstance(d, str) else d for d in dts)
    want = u.numpy_ufunc.resolve_dtypes(
        toks + (None,), signature=(None,) * u.nin + (np.dtype(dtype),),
        casting="same_kind")
    loop_in, outs = u.loop_for(args, dtype)
    assert loop_in + outs == want


def test_dtype_errors_are_numpys():
    with pytest.raises(TypeError):
        gpuarr.equal.loop_for([g((2,), "i1"), g((2,), "f4")], "f8")
    with pytest.raises(TypeError, match="safe"):
        gpuarr.add.loop_for([g((2,), "f8"), 1], "f4", "safe")
    with pytest.raises(TypeError):
        gpuarr.sin.loop_for([g((2,), "f4")], "f16")


# ---------------------------------------------------------------------------
# numpy's ufuncs, methods and operators reach gpuarr

def test_ufunc_calls_reach_apply(apply_calls):
    a, o = g((2, 3)), g((2, 3))
    assert np.add(a, 1) == "called"
    assert apply_calls[-1] == (("add", (a, 1), None, None, "same_kind"), {})
    np.add(a, 1, out=o)
    assert apply_calls[-1][0][2] is o
    np.add(a, 2.0, o)               # positional out
    assert apply_calls[-1][0][2] is o
    np.sin(a, dtype=np.float64, casting="unsafe")
    args, kw = apply_calls[-1]
    assert args[0] == "sin" and args[4] == "unsafe"
    assert kw["loop"] == ((np.dtype("f8"),), (np.dtype("f8"),))
    np.true_divide(a, a)
    assert apply_calls[-1][0][0] == "true_divide"
    np.multiply(np.float32(2), a)
    assert apply_calls[-1][0][:2] == ("multiply", (np.float32(2), a))
    np.float32(2) * a
    assert apply_calls[-1][0][0] == "multiply"
    a * np.float32(2)
    assert apply_calls[-1][0][:2] == ("multiply", (a, np.float32(2)))
    np.add(a, np.array(2.0))         # a 0-d ndarray is a scalar
    assert apply_calls[-1][0][1][1] == 2.0
    before = len(apply_calls)
    b = a
    b += 1                           # (b is now the recorder's marker)
    assert len(apply_calls) == before + 1
    assert apply_calls[-1] == (("add", (a, 1)), {"out": a})


def test_unsupported_ufunc_keywords(apply_calls):
    a = g((3,))
    with pytest.raises(NotImplementedError, match="where"):
        np.add(a, 1, where=a)
    with pytest.raises(NotImplementedError, match="order"):
        np.add(a, 1, order="F")
    np.add(a, 1, where=True, order="K", subok=True)
    assert len(apply_calls) == 1


def test_two_output_ufuncs(monkeypatch):
    rec = Recorder()
    monkeypatch.setattr(_ufunc, "apply_outputs", rec)
    a, m, e = g((3,)), g((3,)), g((3,), np.int32)
    np.frexp(a, out=(m, e))
    assert rec.calls[-1] == (("frexp", (a,), (m, e), None), {})
    np.modf(a, m, e)
    assert rec.calls[-1][0][2] == (m, e)
    _protocols.by_name("frexp")(a, (m, e))    # PyCUDA-style out tuple
    assert rec.calls[-1][0][2] == (m, e)


def test_reduce_accumulate_outer(monkeypatch, apply_calls):
    a, o = g((3, 4)), g((4,))
    recs = {}
    for name in ("sum", "prod", "max", "nanmin", "all"):
        recs[name] = Recorder()
        monkeypatch.setattr(reductions, name, recs[name])
    np.add.reduce(a)
    assert recs["sum"].calls[-1] == ((a,), {"axis": 0, "out": None,
                                            "keepdims": False})
    np.add.reduce(a, 1, np.float64, o, True)
    assert recs["sum"].calls[-1][1] == {"axis": 1, "out": o,
                                        "keepdims": True, "dtype": np.float64}
    gpuarr.multiply.reduce(a, axis=None, initial=2)
    assert recs["prod"].calls[-1][1]["initial"] == 2
    np.maximum.reduce(a, axis=(0, 1))
    assert recs["max"].calls[-1][1]["axis"] == (0, 1)
    np.fmin.reduce(a)
    np.logical_and.reduce(a, keepdims=True)
    assert recs["nanmin"].calls and recs["all"].calls
    cs = Recorder()
    monkeypatch.setattr(cumulative, "cumsum", cs)
    np.add.accumulate(a, axis=1, out=g((3, 4)))
    assert cs.calls[-1][1]["axis"] == 1 and cs.calls[-1][1]["dtype"] is None
    at = Recorder()
    monkeypatch.setattr(_indexing, "ufunc_at", at)
    idx = np.array([0, 2, 0])             # host indices are an index key
    assert np.add.at(a, idx, 1.5) is None
    np.maximum.at(a, (slice(None), 1), a[:, 0])
    assert at.calls[0] == (("add", a, idx, 1.5), {})
    assert at.calls[1][0][0] == "maximum"
    with pytest.raises(TypeError, match="to_gpu"):
        np.add.at(a, [0], np.ones(4))       # the values are not
    b = g((5,))
    np.add.outer(a, b)
    (op, (x, y), *_), _ = apply_calls[-1]
    assert op == "add" and x.shape == (3, 4, 1) and y is b
    assert x.strides[:2] == a.strides and x.ptr == a.ptr


def test_what_gpuarr_lacks_raises():
    a = g((3,))
    with pytest.raises(TypeError, match=r"numpy\.subtract\.reduce"):
        np.subtract.reduce(a)
    with pytest.raises(TypeError, match=r"numpy\.logical_and\.at"):
        np.logical_and.at(a, [0], 1)
    with pytest.raises(TypeError, match=r"numpy\.add\.reduceat"):
        np.add.reduceat(a, [0, 1])
    with pytest.raises(TypeError, match=r"numpy\.maximum\.accumulate"):
        np.maximum.accumulate(a)
    with pytest.raises(NotImplementedError):
        gpuarr.subtract.reduce(a)
    with pytest.raises(NotImplementedError):
        gpuarr.divide.at(a, [0], 1)
    with pytest.raises(ValueError, match="binary"):
        gpuarr.sin.reduce(a)


# ---------------------------------------------------------------------------
# numpy arrays, other libraries, implicit conversion

def test_numpy_ndarrays_never_mix_in(apply_calls):
    a, h = g((2, 3)), np.ones((2, 3), np.float32)
    cases = [lambda: np.add(a, h), lambda: h + a, lambda: a + h,
             lambda: a * h, lambda: h < a, lambda: a == h,
             lambda: np.add(a, 1, out=(h,)), lambda: np.sin(h, out=(a,)),
             lambda: np.concatenate([a, h]), lambda: np.where(a, h, 0),
             lambda: np.add.outer(a, h), lambda: np.sum(h, out=a)]
    for k, case in enumerate(cases):
        with pytest.raises(TypeError, match=r"gpuarr\.to_gpu.*\.get\(\)"):
            case()

    def iadd():
        b = a
        b += h
    with pytest.raises(TypeError, match="to_gpu"):
        iadd()
    with pytest.raises(TypeError, match="to_gpu"):
        h += a
    assert not apply_calls          # nothing was dispatched


def test_implicit_conversion_raises():
    a = g((3,))
    for conv in (np.asarray, np.array, np.ascontiguousarray):
        with pytest.raises(TypeError, match=r"\.get\(\)"):
            conv(a)


class _Other:
    """Another library's array: it answers both protocols itself."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return "other"

    def __array_function__(self, func, types, args, kwargs):
        return "other"


def test_other_libraries_get_notimplemented():
    a = g((3,))
    assert np.add(a, _Other()) == "other"
    assert np.concatenate([a, _Other()]) == "other"
    assert a.__array_function__(np.sum, (GPUArray, _Other), (a,), {}) \
        is NotImplemented
    assert a.__array_ufunc__(np.add, "__call__", a, _Other()) \
        is NotImplemented


def test_import_gpuarr_imports_only_the_registry():
    # what the interpreter loaded before (site hooks of the machine's
    # wheels may import numpy) is not gpuarr's doing
    code = ("import sys; before = set(sys.modules); import gpuarr; "
            "print(sorted(m for m in set(sys.modules) - before "
            "if m.startswith(('gpuarr', 'numpy', 'inspect'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=child_env(),
                         cwd=CHILD_CWD).stdout.strip()
    assert out == "['gpuarr', 'gpuarr._dispatch']"


def test_threads_racing_to_the_first_lookup_all_find_the_table():
    # Dask's pool threads start their first tasks together; a thread that
    # came while another was filling the table saw it empty
    code = textwrap.dedent("""
        import threading, numpy as np, gpuarr
        from gpuarr import _dispatch
        go = threading.Barrier(8)
        found = []
        def look():
            go.wait()
            found.append(_dispatch.lookup(np.sum) is not None
                         and _dispatch.lookup(np.full_like) is not None)
        ts = [threading.Thread(target=look) for _ in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        print(found.count(True))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=child_env(),
                         cwd=CHILD_CWD).stdout.strip()
    assert out == "8"


# ---------------------------------------------------------------------------
# values under the fake libcuda (views and memsets need no kernel)

def test_numpy_functions_read_back_under_the_fake(fake_lib):
    code = textwrap.dedent("""
        import numpy as np
        import gpuarr.autoinit
        import gpuarr
        from fakecuda import Fake
        fk = Fake()
        h = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        d = gpuarr.to_gpu(h)
        for f, args in ((np.reshape, ((6, 4),)), (np.ravel, ()),
                        (np.expand_dims, (1,)), (np.atleast_2d, ()),
                        (np.squeeze, ()), (np.copy, ())):
            got = f(d, *args)
            assert isinstance(got, gpuarr.GPUArray), f
            np.testing.assert_array_equal(got.get(), f(h, *args))
        for got, want in zip(np.split(d, 2), np.split(h, 2)):
            np.testing.assert_array_equal(got.get(), want)
        z = np.zeros_like(d, dtype=np.int16)
        assert z.dtype == np.int16 and not z.get().any()
        assert np.empty_like(d, shape=(5,)).shape == (5,)
        try:
            np.asarray(d)
        except TypeError as e:
            assert ".get()" in str(e)
        else:
            raise AssertionError("np.asarray converted a GPUArray")
        assert fk["errors"] == 0, fk.last_error()
        print("DONE")
    """)
    run_fake_scenario(fake_lib, code)


def test_ufunc_method_and_copyto_argument_errors():
    a = g((3, 4))
    with pytest.raises(ValueError, match="multiple axes"):
        np.add.accumulate(a, axis=None)
    with pytest.raises(ValueError, match="multiple axes"):
        np.add.accumulate(a, axis=(0, 1))
    with pytest.raises(NotImplementedError, match="initial"):
        np.logical_and.reduce(g((3,), np.bool_), initial=True)
    # bool is a strong type to numpy: casting="no" refuses it for uint8
    with pytest.raises(TypeError, match="rule 'no'"):
        np.copyto(g((3,), np.uint8), True, casting="no")
    with pytest.raises(TypeError, match="rule 'no'"):
        np.copyto(np.zeros(3, np.uint8), True, casting="no")


ARRAY_BREADTH = """
nonzero flatnonzero argwhere where take put take_along_axis put_along_axis
compress extract place choose concatenate stack hstack vstack dstack
column_stack split array_split hsplit vsplit tile repeat flip fliplr flipud
roll rot90 moveaxis rollaxis atleast_1d atleast_2d atleast_3d diag diagonal
tril triu trace meshgrid indices pad copyto sort argsort lexsort partition
argpartition unique searchsorted bincount histogram digitize isin
intersect1d union1d setdiff1d count_nonzero median percentile quantile
""".split()


@pytest.mark.parametrize("name", ARRAY_BREADTH)
def test_numpy_array_functions_in_flat_namespace_and_dispatch(name):
    # the functions issue 13 lists: gpuarr.<name> and numpy.<name>(gpu)
    import gpuarr
    assert callable(getattr(gpuarr, name))
    assert _dispatch.lookup(getattr(np, name)) is not None


def test_the_numpy_coverage_page_claims_only_what_is_implemented():
    # docs/numpy_coverage.md (scripts/numpy_coverage.py) lists the numpy
    # functions gpuarr implements; every one listed must be, with this numpy
    import importlib.util
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(
        "numpy_coverage", os.path.join(root, "scripts", "numpy_coverage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cov = mod.coverage()
    with open(os.path.join(root, "docs", "numpy_coverage.md")) as f:
        text = f.read()
    listed = text.split("## Implemented")[1].split("## ")[0]
    names = re.findall(r"`([a-z0-9_.]+)`", listed)
    assert len(names) > 200
    for n in names:
        full = "numpy." + n
        if full in cov:            # a name this numpy has
            assert cov[full] == "dispatch", n
