"""CPU tests of the reductions: numpy's result dtypes, axis normalization and
its errors, kernel plans, every template variant rendering and compiling for
sm_90 (NVRTC or nvcc; no GPU), and ReductionKernel's argument checks."""
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from _util import FakeArray

from gpuarr import _dtypes
from gpuarr import driver as drv
from gpuarr import _reduction_plan as RP
from gpuarr import reduction as R
from gpuarr import reductions as RS
from gpuarr import _dots

DTYPES = _dtypes.SUPPORTED



def COMPILE(src):
    """Compile ``src`` for sm_90 (NVRTC or nvcc; no GPU needed).  A missing
    compiler fails the test: rendering alone proves little."""
    from gpuarr import compiler
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiler.compile(src, arch="sm_90", no_extern_c=True, cache_dir=False)


# ---------------------------------------------------------------------------
# result dtypes against numpy

def _np_result(name, dt, dtype=None):
    x = np.ones((2, 3), dt)
    fn = getattr(np, name)
    kw = {}
    if dtype is not None:
        kw["dtype"] = dtype
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(fn(x, axis=0, **kw)).dtype


NAMES = ["sum", "prod", "nansum", "mean", "var", "std", "max", "min", "amax",
         "amin", "nanmax", "nanmin", "argmax", "argmin", "any", "all",
         "count_nonzero", "ptp"]


# ptp of bool does not exist (numpy has no boolean subtract)
NAME_DTYPES = [(n, d) for n in NAMES for d in DTYPES
               if not (n == "ptp" and np.dtype(d) == np.bool_)]


@pytest.mark.parametrize("name,dt", NAME_DTYPES,
                         ids=["%s-%s" % (n, np.dtype(d)) for n, d in NAME_DTYPES])
def test_result_dtype_matches_numpy(name, dt):
    assert RS.result_dtype(name, dt) == _np_result(name, dt)


def test_ptp_of_bool_raises_like_numpy():
    with pytest.raises(TypeError):
        np.ptp(np.ones(3, bool))
    with pytest.raises(TypeError):
        RS.ptp(FakeArray(bool, (3,)))


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std",
                                  "nansum"])
@pytest.mark.parametrize("dtype", ["i4", "u2", "f4", "f8", "c16"])
@pytest.mark.parametrize("dt", ["?", "i1", "u4", "f2", "f4", "i8"])
def test_result_dtype_with_dtype_argument(name, dt, dtype):
    # over one axis (an array result)
    try:
        want = _np_result(name, dt, dtype)
    except TypeError as exc:
        # numpy refuses (std over an axis with an integer dtype=): so do we
        with pytest.raises(type(exc)):
            RS.result_dtype(name, dt, dtype)
    else:
        assert RS.result_dtype(name, dt, dtype) == want
    # full reduction (a scalar result): numpy accepts every combination
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = np.asarray(getattr(np, name)(np.ones((2, 3), dt),
                                            dtype=dtype)).dtype
    assert RS.result_dtype(name, dt, dtype, array_result=False) == want


def test_sum_dtype_table_spot_checks():
    assert RS.result_dtype("sum", "i4") == np.int64
    assert RS.result_dtype("sum", "?") == np.int64
    assert RS.result_dtype("sum", "u4") == np.uint64
    assert RS.result_dtype("sum", "f2") == np.float16
    assert RS.result_dtype("mean", "i2") == np.float64
    assert RS.result_dtype("var", "c8") == np.float32


@pytest.mark.parametrize("d1", ["?", "i1", "i4", "u8", "f2", "f4", "f8", "c8"])
@pytest.mark.parametrize("d2", ["?", "i1", "f4", "c16"])
def test_dot_dtype(d1, d2):
    want = np.dot(np.ones(2, d1), np.ones(2, d2)).dtype
    assert _dots._dot_dtype("dot", np.dot, np.dtype(d1), np.dtype(d2)) == want
    want = np.vdot(np.ones(2, d1), np.ones(2, d2)).dtype
    assert _dots._dot_dtype("vdot", np.vdot, np.dtype(d1), np.dtype(d2)) == want


# ---------------------------------------------------------------------------
# axis normalization

@pytest.mark.parametrize("axis,ndim,want", [
    (None, 3, (0, 1, 2)), (0, 3, (0,)), (-1, 3, (2,)), ((2, 0), 3, (0, 2)),
    ((-1, -3), 3, (0, 2)), ((), 3, ()), (None, 0, ()), ([1, 0], 2, (0, 1)),
    (np.int64(1), 2, (1,)),
])
def test_axes(axis, ndim, want):
    assert RS.normalize_axes(axis, ndim) == want


def test_axis_zero_of_0d():
    # numpy's legacy: axis 0 or -1 of a 0-d array reduces nothing
    assert RS.normalize_axes(0, 0) == () and RS.normalize_axes(-1, 0) == ()
    with pytest.raises(np.exceptions.AxisError):
        RS.normalize_axes((0,), 0)


@pytest.mark.parametrize("axis,ndim", [(3, 3), (-4, 3), ((0, 5), 3), (1, 0),
                                       ((0,), 0)])
def test_axis_out_of_range(axis, ndim):
    with pytest.raises(np.exceptions.AxisError):
        RS.normalize_axes(axis, ndim)
    with pytest.raises(np.exceptions.AxisError):
        np.sum(np.ones((1,) * ndim), axis=axis)


@pytest.mark.parametrize("axis", [(0, 0), (1, -1)])
def test_duplicate_axes(axis):
    with pytest.raises(ValueError, match="duplicate"):
        RS.normalize_axes(axis, 2)


@pytest.mark.parametrize("axis", [1.0, "0", (0, 1.5)])
def test_axis_type(axis):
    with pytest.raises(TypeError):
        RS.normalize_axes(axis, 2)


# ---------------------------------------------------------------------------
# plans: path, vector width, splitting, index width

def _spec(op, dt, shape, axes, strides=None, ptr=1 << 24, ct=None, aux=None,
          out_dt=None, nin=1, nsm=132):
    dt = np.dtype(dt)
    ins = [FakeArray(dt, shape, strides, ptr) for _ in range(nin)]
    ks = tuple(n for k, n in enumerate(shape) if k not in axes)
    out = FakeArray(out_dt or dt, ks)
    return R.reduce_spec(op, ins, out, tuple(axes), np.dtype(ct or dt),
                         None if aux is None else np.dtype(aux), nsm)


def test_plan_full_contiguous():
    s = _spec("sum", "f4", (1 << 28,), (0,))
    assert s.path == "rows" and s.render_kw["vec"] == 4
    assert s.render_kw["group"] == 256 and s.needs_ws
    assert s.grid[0] <= 132 * RP._MIN_BLOCKS
    assert s.render_kw["itype"] == "int"


def test_plan_small_sum_one_block_no_workspace():
    s = _spec("sum", "f4", (1024,), (0,))
    assert s.grid == (1, 1, 1) and not s.needs_ws
    assert s.render_kw["vec"] == 4


def test_plan_rows_and_cols():
    s = _spec("sum", "f4", (16384, 16384), (1,))
    assert s.path == "rows" and s.render_kw["vec"] == 4
    assert s.grid[0] == 16384 and not s.needs_ws
    s = _spec("sum", "f4", (16384, 16384), (0,))
    assert s.path == "cols"
    s = _spec("sum", "f4", (1000, 64), (1,))
    assert s.path == "rows" and s.render_kw["group"] == 32


def test_plan_transposed_full_reduction_is_contiguous():
    # a C array seen transposed: axes reordered and merged into one
    s = _spec("sum", "f4", (64, 32), (0, 1), strides=(4, 256))
    assert s.render_kw["rdim"] == 1 and s.render_kw["rcontig"]
    # argmax keeps the logical order
    s = _spec("argmax", "f4", (64, 32), (0, 1), strides=(4, 256),
              out_dt="i8")
    assert s.render_kw["rdim"] == 2


def test_plan_negative_stride_flipped():
    n = 4096
    s = _spec("sum", "f4", (n,), (0,), strides=(-4,), ptr=(1 << 24) + 4 * (n - 1))
    assert s.offsets == (-4 * (n - 1),)
    assert s.render_kw["vec"] == 4
    s = _spec("argmax", "f4", (n,), (0,), strides=(-4,), out_dt="i8")
    assert s.offsets == (0,) and not s.render_kw["rcontig"]


def test_plan_misaligned_falls_back_to_scalar():
    s = _spec("sum", "f4", (4096,), (0,), ptr=(1 << 24) + 4)
    assert s.render_kw["vec"] == 1


def test_plan_wide_index():
    s = _spec("sum", "i1", (2 ** 31 + 5,), (0,), ct="i8", out_dt="i8")
    assert s.render_kw["itype"] == "long long"
    s = _spec("sum", "f4", (1 << 20,), (0,))
    assert s.render_kw["itype"] == "int"


def test_plan_empty():
    s = _spec("sum", "f4", (0, 5), (1,))
    assert s.empty
    s = _spec("sum", "f4", (5, 0), (1,))
    assert not s.empty and s.tail[3] == 0


def test_plan_output_shape_checked():
    ins = [FakeArray("f4", (3, 4))]
    with pytest.raises(ValueError):
        R.reduce_spec("sum", ins, FakeArray("f4", (4,)), (1,), np.dtype("f4"))


# ---------------------------------------------------------------------------
# render + compile every op and dtype, and every path

def _ct(op, dt):
    name = {"sumsq": None, "abssum": None, "absmax": None, "absmin": None,
            "dot": None, "vdot": None}.get(op, op)
    if op in ("sumsq", "abssum", "absmax", "absmin"):
        return np.dtype("f8") if dt.kind in "biu" else dt
    if op in ("dot", "vdot"):
        return np.dot(np.ones(1, dt), np.ones(1, dt)).dtype
    if op in ("argmax", "argmin", "max", "min", "nanmax", "nanmin", "any",
              "all"):
        return dt
    if op == "count_nonzero":
        return np.dtype("i8")
    if op in ("var", "std", "mean"):
        return np.dtype("f8") if dt.kind in "biu" else (
            np.dtype("f4") if dt == np.float16 else dt)
    return RS.result_dtype(name, dt)


def _out(op, dt, ct):
    if op in ("argmax", "argmin", "count_nonzero"):
        return np.dtype("i8")
    if op in ("any", "all"):
        return np.dtype(bool)
    if op in ("var", "std", "sumsq", "abssum", "absmax", "absmin"):
        return RS.result_dtype("var", dt) if op in ("var", "std") else (
            np.dtype("f8") if dt.kind in "biu" else RP._real(dt))
    if op == "mean":
        return RS.result_dtype("mean", dt)
    return ct


def _cases():
    out = []
    for op in R.OPS:
        if op in R.SUBSET_OPS:      # gathering: tests/test_pyapi_cpu.py
            continue
        for dt in DTYPES:
            out.append((op, dt))
    return out


def _render(op, dt, shape=(1000, 37), axes=(1,), strides=None):
    ct = _ct(op, dt)
    aux = ct if op in ("var", "std") else None
    nin = R.OPS[op][0]
    return _spec(op, dt, shape, axes, strides=strides, ct=ct, aux=aux,
                 out_dt=_out(op, dt, ct), nin=nin)


def test_render_deterministic():
    a = _render("sum", np.dtype("f4")).source()
    b = _render("sum", np.dtype("f4")).source()
    assert a == b


# one test per operation, so pytest-xdist spreads the compiles over workers
@pytest.mark.parametrize("op", sorted({op for op, _ in _cases()}))
def test_compile_every_op_and_dtype(op):
    jobs = []
    for op_, dt in _cases():
        if op_ != op:
            continue
        # full reduction (vector rows path) and an inner-axis reduction
        jobs.append(("%s %s full" % (op, dt),
                     _render(op, dt, (4099,), (0,)).source()))
        jobs.append(("%s %s cols" % (op, dt),
                     _render(op, dt, (300, 70), (0,)).source()))
    errors = []

    def one(job):
        try:
            COMPILE(job[1])
        except Exception as exc:  # collect, report all
            errors.append("%s: %s" % (job[0], str(exc)[:2000]))
    with ThreadPoolExecutor(4) as ex:
        list(ex.map(one, jobs))
    assert jobs and not errors, "\n".join(errors[:5])


PATHS = [
    ("rows vec", "f4", (1 << 20,), (0,), None),
    ("rows vec split rows", "f2", (4, 1 << 20), (1,), None),
    ("rows warp", "f8", (1000, 64), (1,), None),
    ("rows strided", "f4", (100, 50), (1,), (400, 8)),
    ("rows nd R", "i4", (6, 7, 8), (0, 2), (4, 24 * 8, 24)),
    ("rows nd K", "f4", (6, 7, 8, 9), (3,), (4 * 8 * 9 * 7, 4 * 8 * 9, 4 * 9, 4)),
    ("cols split", "f4", (100000, 16), (0,), None),
    ("cols nd", "c8", (10, 20, 30), (1,), None),
    ("negative", "f8", (1000,), (0,), (-8,)),
    ("wide", "i1", (2 ** 31 + 5,), (0,), None),
    ("0-d", "f4", (), (), None),
    ("no axes", "f4", (5, 6), (), None),
]


# argmax takes one axis or all of them: no case reducing some axes
PATH_CASES = [(op, case) for op in ["sum", "argmax", "var", "dot", "max"]
              for case in PATHS
              if not (op == "argmax" and 1 < len(case[3]) < len(case[2]))]


@pytest.mark.parametrize("op,case", PATH_CASES,
                         ids=["%s-%s" % (op, c[0]) for op, c in PATH_CASES])
def test_compile_paths(op, case):
    _, dt, shape, axes, strides = case
    dt = np.dtype(dt)
    s = _render(op, dt, shape, axes, strides)
    COMPILE(s.source())


# ---------------------------------------------------------------------------
# ReductionKernel

def test_reduction_kernel_source_compiles():
    k = R.ReductionKernel(np.float32, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]", arguments="float *x, float *y")
    src = k.get_source((1 << 20,))
    assert "x[i]*y[i]" in src
    COMPILE(src)
    COMPILE(k.get_source((64, 100), axis=0))
    COMPILE(k.get_source((64, 100), axis=1))
    k = R.ReductionKernel(np.float32, neutral="-INFINITY",
                          reduce_expr="fmaxf(a, b)",
                          arguments="const float *x")
    COMPILE(k.get_source((4096,)))
    k = R.ReductionKernel(np.int8, neutral="0", reduce_expr="a+b",
                          arguments="signed char *x, int s", map_expr="x[i]*s")
    COMPILE(k.get_source((4096,)))


def test_reduction_kernel_bad_declarations():
    with pytest.raises(ValueError):
        R.ReductionKernel(np.float32, "0", "a+b", arguments="float *x, float *x")
    with pytest.raises(ValueError):
        R.ReductionKernel(np.float32, "0", "a+b", arguments="quux *x")
    with pytest.raises(ValueError):
        R.ReductionKernel(np.float32, "0", "a+b", arguments="float *x",
                          name="not a name")
    with pytest.raises(ValueError):
        R.ReductionKernel(np.float32, "", "a+b", arguments="float *x")
    with pytest.raises(TypeError):
        R.ReductionKernel(np.float32, "0", "a+b")
    with pytest.raises(TypeError):
        R.ReductionKernel(np.dtype("U3"), "0", "a+b", arguments="float *x")


def test_reduction_kernel_call_errors_before_launch():
    k = R.ReductionKernel(np.float32, "0", "a+b", map_expr="x[i]*y[i]",
                          arguments="float *x, float *y")
    x = FakeArray("f4", (10,))
    with pytest.raises(TypeError, match="'y'"):
        k(x)                                   # missing argument
    with pytest.raises(TypeError, match="'y'"):
        k(x, FakeArray("f8", (10,)))            # wrong dtype
    with pytest.raises(ValueError, match="'y'"):
        k(x, FakeArray("f4", (11,)))            # different sizes
    with pytest.raises(TypeError, match="'x'"):
        k(1.0, x)                               # scalar for a pointer
    with pytest.raises(ValueError, match="'y': ReductionKernel needs contiguous"):
        k(x, FakeArray("f4", (10,), strides=(8,)))  # not contiguous
    with pytest.raises(TypeError):
        k(x, x, bogus=1)
    with pytest.raises(ValueError, match="ReductionKernel needs at least one pointer"):
        R.ReductionKernel(np.float32, "0", "a+b", map_expr="s",
                          arguments="float s")


# ---------------------------------------------------------------------------
# the launch path of full reductions, against a recording fake driver


class _FakeFn:
    def __init__(self, spec):
        self.spec = spec
        self.calls = []

    def prepared_async_call(self, grid, block, stream, *args):
        self.calls.append((grid, block, stream, args))


class _Raw:
    def __init__(self, p):
        self.p = p

    def __int__(self):
        return self.p

    def free(self):
        pass


@pytest.fixture
def fake_driver(monkeypatch):
    """gpuarr.reduction/reductions without a GPU: a fake current context,
    a pool over made-up addresses, kernels 'compiled' to recorders."""
    import gpuarr.driver as drv
    from gpuarr import tools

    ctx = object()

    class Ctx:
        @staticmethod
        def get_current():
            return ctx

    addr = [1 << 32]

    def alloc(n):
        addr[0] += 4096
        return _Raw(addr[0])
    pool = tools.DeviceMemoryPool(alloc)
    monkeypatch.setattr(drv, "Context", Ctx)
    monkeypatch.setattr(drv, "mem_alloc", alloc)            # workspaces
    monkeypatch.setattr(drv, "memset_d8", lambda p, v, n: None)
    monkeypatch.setitem(tools.default_pool.states, ctx, pool)
    st = R.State(132, pool)
    monkeypatch.setitem(R.state.states, ctx, st)
    fns = []

    def get_fn(st, spec, options=None, keep=False):
        ent = st.kernels.get(spec.kkey)
        if ent is None:
            ent = st.kernels[spec.kkey] = (_FakeFn(spec), None)
            fns.append(ent[0])
        return ent[0]
    monkeypatch.setattr(R, "_get_fn", get_fn)
    return fns


def _fake_gpu(h, ptr=1 << 28):
    from gpuarr import gpuarray as ga
    return ga.GPUArray(h.shape, h.dtype, gpudata=ptr, strides=h.strides)


def test_small_sum_is_one_launch_writing_the_result(fake_driver):
    from gpuarr import _creation, gpuarray as ga
    x = _fake_gpu(np.empty(1024, np.float32))
    r1 = RS.sum(x)
    r2 = RS.sum(x)
    assert len(fake_driver) == 1                  # compiled once
    calls = fake_driver[0].calls
    assert len(calls) == 2                        # one launch per sum
    grid, block, stream, args = calls[1]
    assert grid == (1, 1, 1) and stream is None
    # out, input, no workspace, scale, then the spec's integers
    assert args[0] == r2.ptr and args[1] == x.ptr
    assert args[2:5] == (0, 0, 1.0)
    assert args[5:] == fake_driver[0].spec.tail
    # the result is the 0-d array _creation.empty_c would have made
    ref = _creation.empty_c((), np.dtype(np.float32))
    for name in ga.GPUArray.__slots__:
        if name in ("__weakref__", "ptr", "gpudata"):
            continue
        assert getattr(r1, name) == getattr(ref, name), name
    assert r1.ptr == int(r1.gpudata) and r1.ptr != r2.ptr


def test_full_reductions_cached_per_layout(fake_driver):
    h = np.empty((64, 33), np.float32)
    x = _fake_gpu(h)
    m = RS.mean(x)
    assert m.dtype == np.float32 and m.shape == ()
    args = fake_driver[-1].calls[-1][3]
    assert args[4] == 64.0 * 33                   # mean's divisor
    RS.mean(x)
    assert len(fake_driver[-1].calls) == 2
    # another alignment is another plan (vector loads need 16 bytes)
    RS.sum(_fake_gpu(h, ptr=(1 << 28) + 4))
    assert fake_driver[-1].spec.render_kw["vec"] == 1
    RS.sum(x)
    assert fake_driver[-1].spec.render_kw["vec"] == 4
    # a large sum uses the workspace: its pointers are in the entry
    big = _fake_gpu(np.lib.stride_tricks.as_strided(
        np.empty(1, np.float32), (1 << 24,), (4,)))
    RS.sum(big)
    args = fake_driver[-1].calls[-1][3]
    assert args[2] and args[3] and fake_driver[-1].spec.needs_ws



def test_reduction_kernel_plans_belong_to_their_context_state(fake_driver):
    """A ReductionKernel's plans are kept by the context's state itself: a
    new state, even one at the address of a dropped one (as after a detach
    and a new context), gets its own kernel, never the dropped one's."""
    k = R.ReductionKernel(np.float32, "0", "a+b", arguments="float *x")
    x = _fake_gpu(np.empty(1024, np.float32))
    k(x)
    k(x)
    assert len(fake_driver) == 1 and len(fake_driver[0].calls) == 2
    # the fake context's state (a worker that ran GPU tests before holds
    # the real context's too)
    ctx = drv.Context.get_current()
    old = R.state.states[ctx]
    pool = old.pool
    others = {c: st for c, st in R.state.states.items() if c is not ctx}
    R.state.clear()                 # the context's state is dropped ...
    R.state.states.update(others)
    del old
    new = R.State(132, pool)        # ... and a new one made, where it was
    R.state.states[ctx] = new
    k(x)
    assert len(fake_driver) == 2 and len(fake_driver[1].calls) == 1
    assert len(fake_driver[0].calls) == 2


# ---------------------------------------------------------------------------
# a host model of the kernels' index arithmetic: each (row, segment) item
# reduces elements j0 <= j < j1 of its row, addressed through the trailing
# arguments exactly as the template unravels them; rows combine their
# segments.  Checks the partition, the argument order and the vector-load
# alignment for many layouts, against numpy.

def _model_sum(spec, base, start, nin_ops=1):
    kw = spec.render_kw
    kdim, rdim, rcontig = kw["kdim"], kw["rdim"], kw["rcontig"]
    tail = list(spec.tail)
    n_items, splits, seg, L, n_rows = tail[:5]
    t = 5
    kshape = [None] + tail[t:t + kdim - 1] if kdim else []
    t += max(kdim - 1, 0)
    kst, ost = [], []
    for d in range(kdim):
        kst.append(tail[t:t + nin_ops])
        ost.append(tail[t + nin_ops])
        t += nin_ops + 1
    rshape = [None] + tail[t:t + rdim - 1]
    t += rdim - 1
    if rdim == 1 and rcontig:
        rst = [[1] * nin_ops]
    else:
        rst = [tail[t + d * nin_ops:t + (d + 1) * nin_ops] for d in range(rdim)]
    assert t + (0 if (rdim == 1 and rcontig) else rdim * nin_ops) == len(tail)
    assert splits * seg >= L and (splits - 1) * seg < max(L, 1)
    if spec.path == "rows":
        assert n_items == n_rows * splits
        chunk = kw["group"] * kw["vec"] * kw["unroll"]
        if splits > 1:
            assert seg % chunk == 0 and n_items <= RP._MAX_ROW_ITEMS
    else:
        assert n_items == -(-n_rows // 32) * splits
        if splits > 1:
            assert seg % RP._RS == 0 and n_items <= RP._MAX_COL_ITEMS
    out = {}
    for row in range(n_rows):
        r, ko, oo = row, 0, 0
        for d in reversed(range(kdim)):
            if d > 0:
                q, x = divmod(r, kshape[d])
                r = q
            else:
                x = r
            ko += x * kst[d][0]
            oo += x * ost[d]
        V = kw["vec"]
        if V > 1:
            assert ko % V == 0
        acc = 0
        for s in range(splits):
            j0 = s * seg
            j1 = min(L, j0 + seg)
            if V > 1:
                assert j0 % V == 0
            for j in range(j0, j1):
                jj, off = j, 0
                for d in reversed(range(rdim)):
                    if d > 0:
                        q, x = divmod(jj, rshape[d])
                        jj = q
                    else:
                        x = jj
                    off += x * rst[d][0]
                k = start + ko + off
                assert 0 <= k < base.size
                acc += int(base[k])
        assert oo not in out
        out[oo] = acc
    return out


def _model_case(shape, axes, view, op="sum", dt="i8"):
    """Sum of ``view(arange)`` over ``axes`` by the model of ``op``'s
    launch (the index arithmetic is the same for every op) vs numpy."""
    dt = np.dtype(dt)
    big = np.arange(int(np.prod(shape)) * 4, dtype=dt)
    host = view(big[: int(np.prod(shape))].reshape(shape))
    x = FakeArray(dt, host.shape, host.strides,
                  ptr=(1 << 24) + (host.ctypes.data - big.ctypes.data))
    ks = tuple(n for k, n in enumerate(host.shape) if k not in axes)
    out = FakeArray(dt, ks)
    spec = R.reduce_spec(op, [x], out, tuple(axes), dt)
    # the kernel's element 0 is x.ptr + offset, in elements of the buffer
    start = (x.ptr - (1 << 24) + spec.offsets[0]) // dt.itemsize
    got = _model_sum(spec, big, start)
    want = np.sum(host.astype(np.int64), axis=tuple(axes)).reshape(-1)
    assert len(got) == want.size
    for i, v in enumerate(want):
        assert got[i] == v, (shape, axes, i)


@pytest.mark.parametrize("shape,axes", [
    ((37, 129), (1,)), ((37, 129), (0,)), ((37, 129), (0, 1)),
    ((5, 33, 70), (0, 2)), ((5, 33, 70), (1,)), ((6, 7, 8, 9), (3,)),
    ((3, 40000), (1,)), ((100000,), (0,)), ((40000, 3), (0,)),
])
@pytest.mark.parametrize("layout", ["c", "t", "neg", "sliced"])
def test_index_model_matches_numpy(shape, axes, layout):
    views = {"c": lambda h: h,
             "t": lambda h: h.T,
             "neg": lambda h: h[::-1, ...][..., ::-1] if h.ndim > 1 else h[::-1],
             "sliced": lambda h: h[1:, ...][..., ::2] if h.ndim > 1 else h[3::2]}
    v = views[layout]
    probe = v(np.empty(shape))
    axes = tuple(a for a in axes if a < probe.ndim)
    _model_case(shape, axes, v)


def test_index_model_long_rows_unrolled():
    # many long float32-sized rows: 8 vector loads per step, 8 accumulators
    x = FakeArray("f4", (16384, 16384))
    s = R.reduce_spec("sum", [x], FakeArray("f4", (16384,)), (1,),
                      np.dtype("f4"))
    assert s.render_kw["unroll"] == 8 and s.render_kw["nacc"] == 8
    assert s.grid == (16384, 1, 1) and not s.needs_ws
    for shape, view in (((64, 16384), lambda h: h),
                        ((3, 1 << 17), lambda h: h),       # split rows
                        ((64, 16388), lambda h: h[:, 4:])):  # offset rows
        _model_case(shape, (1,), view, op="max", dt="i4")
        spec = R.reduce_spec("max", [FakeArray("i4", shape)],
                             FakeArray("i4", shape[:1]), (1,), np.dtype("i4"))
        assert spec.render_kw["unroll"] == 8


def test_reduction_kernel_argument_errors_before_launch():
    """ReductionKernel checks its arguments with ElementwiseKernel's rules
    (shared code) and names the argument, with no GPU involved."""
    k = R.ReductionKernel(np.float32, "0", "a + b", "x[i] * s",
                          arguments="float *x, float s")
    with pytest.raises(TypeError, match="'x'.*float64"):
        k(FakeArray("f8", (10,)), 1.0)
    with pytest.raises(TypeError, match="'s'"):
        k(FakeArray("f4", (10,)), FakeArray("f4", (10,)))
    with pytest.raises(TypeError, match="'s': expected a scalar, got str"):
        k(FakeArray("f4", (10,)), "1.0")
    with pytest.raises(ValueError, match="'x'.*contiguous"):
        k(FakeArray("f4", (10,), (8,)), 1.0)


def test_mean_dtype_is_numpys_summation_dtype():
    from gpuarr.reductions import mean_dtype
    for c in "?bhilqBHILQefdFD":
        dt = np.dtype(c)
        want = (np.dtype("f8") if dt.kind in "biu" else
                np.dtype("f4") if dt == np.float16 else dt)
        assert mean_dtype(dt) == want
        assert mean_dtype(dt, np.float64) == np.dtype("f8")
        # numpy's mean gives the same dtype, up to float16's rounding back
        r = np.mean(np.ones(3, dt))
        assert r.dtype == (np.dtype("f2") if dt == np.float16 else want)


def test_var_mean_errors_before_any_launch():
    import gpuarr
    a = gpuarr.GPUArray((17, 90), np.float32, gpudata=1 << 20)
    bad = gpuarr.GPUArray((3, 3), np.float32, gpudata=1 << 24)
    for fn in (RS.var, RS.std):
        with pytest.raises(ValueError, match=r"mean of shape \(3, 3\) does "
                                             r"not broadcast to \(1, 90\)"):
            fn(a, axis=0, mean=bad)
        with pytest.raises(NotImplementedError, match="where="):
            fn(a, axis=0, mean=bad, where=bad)
