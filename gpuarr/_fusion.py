"""gpuarr.fuse: a Python function of elementwise operations as one kernel
(layer 5; ``cupy.fuse``'s decorator).

On the first call with a given signature (each argument's dtype and number
of dimensions, or its scalar type), the function runs once on stand-ins
(:class:`~gpuarr._fusiontrace.FusedValue`) that record every operation,
with numpy's type resolution at each step, into a
:class:`~gpuarr.kernels.program.Program`.  The program becomes one
elementwise kernel of every result, or, when the function ends in a
reduction, one reduction kernel whose elements are the program's values.
Later calls with the same signature go straight to the launch; kernels are
compiled and cached (in memory and on disk) like every generated kernel.
See ``docs/fusion.md``.
"""

import functools
import inspect
import types

import numpy as np

from . import _creation, _dtypes, _layout, _percontext
from . import driver as _drv
from . import reduction as _red
from . import reductions as _reductions
from ._array import GPUArray, make
from ._fusedkernels import OPTIONS, run_program, scalar_argument
from ._fusiontrace import REDUCTIONS, FusedValue, Tracer, cannot
from .kernels.program import Program
from .tools import default_pool as _default_pool

__all__ = ["fuse", "Fusion"]

_WEAK = (bool, int, float, complex)
_I8_MAX = 2 ** 63 - 1


class _Entry:
    """What the trace of one signature runs.

    ``results`` says what the function returns: ``("arg", k)`` argument
    ``k`` itself (returned, or written in place and returned), ``("new",
    n)`` the n-th of ``computed``: (step, array arguments it depends on,
    the argument it is written to or None).
    """

    def __init__(self, tr, result):
        if isinstance(result, (tuple, list)):
            outs = list(result)
            self.form = type(result)
        elif result is None:
            outs = []
            self.form = None
        else:
            outs = [result]
            self.form = "one"
        self.checks = tuple(sorted(set(tr.checks), key=str))
        self.negpow = tuple(sorted(tr.negpow))
        self.input_args = tr.input_args
        for v in outs:
            if not isinstance(v, FusedValue) or v._tr is not tr:
                raise cannot("a result of type %s (a fused function returns "
                              "values of its arguments)" % type(v).__name__)
            if not v._deps:
                raise cannot("a result that depends on no array argument")
            if v._reduced and len(outs) != 1:
                raise cannot("a reduction beside other results (a fused "
                              "function returns its reduction alone)")
        red = tr.reduction
        if red is not None and not (len(outs) == 1 and outs[0]._reduced):
            raise cannot("a reduction whose value is not the function's "
                          "result")
        if red is not None and tr.writes:
            raise cannot("an in-place update beside a reduction")
        program = Program(tr.steps, [], len(tr.input_args))
        self.program = program
        self.groups = {}
        self.reduction = None
        self.hot_form = False
        self.results = []
        self.computed = []
        # the distinct sets of arrays an operation combines: their shapes
        # must broadcast together, as the unfused calls would check
        self.depsets = tuple({d for d in tr.deps if len(d) > 1})
        if red is not None:
            name, j, axis, dtype, keepdims, deps = red
            prog, ins = program.pruned([j])
            self.reduction = (name, prog, tuple(tr.input_args[i] for i in ins),
                              axis, dtype, keepdims, deps)
            return
        written = {j: k for k, j in tr.writes.items()}
        for v in outs:
            if v._j in written:
                self.results.append(("arg", written[v._j]))
            elif tr.steps[v._j][0] == "in":
                self.results.append(("arg", v._arg))
            else:
                n = self._computed(v._j, v._deps, None)
                self.results.append(("new", n))
        for k, j in sorted(tr.writes.items()):
            self._computed(j, tr.deps[j] | {k}, k)
        # the steady-state path (_hot_call) serves a single new result of
        # array arguments only, with nothing to check per call
        self.hot_form = (self.form == "one" and self.results == [("new", 0)]
                         and len(self.computed) == 1 and not tr.writes
                         and not self.checks and not self.negpow
                         and all(t[0] == "a" for t in tr.sig))

    def _computed(self, j, deps, arg):
        for n, c in enumerate(self.computed):
            if c[0] == j and c[2] == arg:
                return n
        self.computed.append((j, frozenset(deps), arg))
        return len(self.computed) - 1

    def group(self, members):
        """(program, its input arguments) computing the ``computed``
        entries ``members`` (a tuple of their numbers)."""
        g = self.groups.get(members)
        if g is None:
            prog, ins = self.program.pruned([self.computed[m][0]
                                             for m in members])
            g = self.groups[members] = (prog, tuple(self.input_args[i]
                                                    for i in ins))
        return g


def _signature(args):
    """The trace key of the call's arguments, and the arguments with array
    likes made GPUArrays and 0-d numpy arrays numpy scalars."""
    sig = []
    vals = []
    for x in args:
        t = type(x)
        if t is GPUArray or isinstance(x, GPUArray):
            sig.append(("a", x.dtype, len(x.shape)))
        elif t in _WEAK or isinstance(x, _WEAK):
            if t not in _WEAK:
                # a subclass of int, float or complex: its Python type
                for w in _WEAK[:0:-1]:
                    if isinstance(x, w):
                        x = w(x)
                        break
            big = type(x) is int and x > _I8_MAX
            sig.append(("w", type(x), big))
        elif isinstance(x, np.generic) or (isinstance(x, np.ndarray)
                                           and x.ndim == 0):
            x = np.asarray(x)[()]
            sig.append(("s", _dtypes.canonical(x.dtype)))
        elif isinstance(x, np.ndarray):
            raise TypeError("a fused function takes GPUArrays, not numpy "
                            "arrays (gpuarr.to_gpu copies one to the device)")
        elif hasattr(x, "__cuda_array_interface__"):
            x = _creation.asarray(x)
            sig.append(("a", x.dtype, len(x.shape)))
        else:
            raise TypeError("a fused function takes GPUArrays and scalars, "
                            "not %s" % t.__name__)
        vals.append(x)
    return tuple(sig), vals


class Fusion:
    """A function compiled by :func:`fuse`; call it as the function.

    Attributes
    ----------
    name : str
        The function's name.
    """

    def __init__(self, func, name=None):
        self._func = func
        self.name = name or getattr(func, "__name__", "fused")
        self._traces = {}
        self._sig = None
        functools.update_wrapper(self, func)

    def __repr__(self):
        return "<gpuarr.fuse of %s>" % self.name

    def clear_cache(self):
        """Forget the traces (kernels stay in gpuarr's caches)."""
        self._traces.clear()

    def __call__(self, *args, **kwargs):
        if args and not kwargs and type(args[0]) is GPUArray:
            res = _hot_call(self, args)
            if res is not None:
                return res
        if kwargs:
            if self._sig is None:
                self._sig = inspect.signature(self._func)
            bound = self._sig.bind(*args, **kwargs)
            bound.apply_defaults()
            if bound.kwargs:
                raise TypeError("a fused function takes no keyword-only "
                                "arguments")
            args = bound.args
        sig, vals = _signature(args)
        ent = self._traces.get(sig)
        if ent is None:
            ent = self.trace(sig)
        if ent.hot_form:
            return _run_keeping_hot(self, ent, vals)
        return _run(ent, vals)

    def trace(self, sig):
        """Trace the function for the signature ``sig`` (as the calls make
        it) and keep the result."""
        tr = Tracer(sig)
        ent = _Entry(tr, self._func(*tr.args))
        if len(self._traces) > 256:
            self._traces.clear()
        self._traces[sig] = ent
        return ent


# ---------------------------------------------------------------------------
# the steady-state path of repeated calls
#
# Arguments that are C-contiguous GPUArrays of one non-empty shape at 16-byte
# aligned addresses, a signature whose trace computes one new array: a hit
# is one dict lookup on (fusion, shape, dtypes...), an identity check of the
# current context, a pool pop and one prepared launch.  The entry holds
# (context, pool, function, grid, block, tail, result dtype, nbytes,
#  strides, size, f_contiguous, the arguments in the kernel's order).

_HOT = {}
_HOT_MAX = 4096
_get_current = _drv.Context.get_current


def _forget_hot(ctx):
    _HOT.clear()


_percontext.on_detach(_forget_hot)


def _hot_call(fusion, args):
    shape = args[0].shape
    key = [fusion, shape]
    align = 0
    for x in args:
        if type(x) is not GPUArray or not x._c or x.shape != shape:
            return None
        align |= x.ptr
        key.append(x.dtype)
    if align & 15:
        return None
    ent = _HOT.get(tuple(key))
    if ent is None or ent[0] is not _get_current():
        return None
    blk = ent[1].allocate(ent[7])
    out = make(shape, ent[6], ent[8], blk.ptr, blk, None, True, ent[10],
               None, ent[9])
    ent[2].prepared_async_call(ent[3], ent[4], None, out.ptr,
                               *[args[k].ptr for k in ent[11]], *ent[5])
    return out


def _run_keeping_hot(fusion, ent, vals):
    """:func:`_run`, remembering the launch for :func:`_hot_call` when the
    arguments are of its kind."""
    shape = vals[0].shape
    if not all(type(x) is GPUArray and x._c and x.shape == shape
               and not x.ptr & 15 for x in vals) or not _layout.prod(shape):
        return _run(ent, vals)
    prog, ins = ent.group((0,))
    dt = prog.out_dtypes[0]
    out = _creation.empty_c(shape, dt)
    plan = run_program(prog, [out], [vals[k] for k in ins],
                       [False] * len(ins))
    ctx = _get_current()
    if plan is not None and ctx is not None and not out.ptr & 15:
        if len(_HOT) >= _HOT_MAX:
            _HOT.clear()
        size = _layout.prod(shape)
        _HOT[(fusion, shape) + tuple(x.dtype for x in vals)] = (
            ctx, _default_pool(), plan[0], plan[1], plan[2], plan[3], dt,
            size * dt.itemsize, out.strides, size, out._f, ins)
    return out


def _scalar_checks(ent, vals):
    for k, dt in ent.checks:
        _dtypes.check_scalar(vals[k], dt)
    for k in ent.negpow:
        if vals[k] < 0:
            raise ValueError("Integers to negative integer powers are not "
                             "allowed.")


def _broadcast(x, shape):
    if x.shape == shape:
        return x
    return x._view(shape, _layout.broadcast_strides(x.shape, x.strides,
                                                    shape), 0)


def _kernel_inputs(prog, ins, vals, shape):
    inputs, scalar = [], []
    for k, dt in zip(ins, prog.in_dtypes):
        x = vals[k]
        if type(x) is GPUArray or isinstance(x, GPUArray):
            inputs.append(_broadcast(x, shape))
            scalar.append(False)
        else:
            inputs.append(scalar_argument(x, dt))
            scalar.append(True)
    return inputs, scalar


def _run(ent, vals):
    if ent.checks or ent.negpow:
        _scalar_checks(ent, vals)
    shapes = {k: x.shape for k, x in enumerate(vals) if isinstance(x, GPUArray)}
    same = len(set(shapes.values())) <= 1
    if not same:
        for d in ent.depsets:
            _layout.broadcast_shapes(*[shapes[k] for k in d], operands=True)
    if ent.reduction is not None:
        res = _run_reduction(ent, vals, shapes)
        return res if ent.form == "one" else ent.form([res])
    # one launch per distinct result shape (one in all but odd cases)
    launches = {}
    for n, (j, deps, arg) in enumerate(ent.computed):
        shape = _layout.broadcast_shapes(*[shapes[k] for k in deps],
                                         operands=True)
        if arg is not None and shape != shapes[arg]:
            raise ValueError("non-broadcastable output operand with shape %s "
                             "doesn't match the broadcast shape %s"
                             % (_layout.shape_str(shapes[arg]),
                                _layout.shape_str(shape)))
        launches.setdefault(shape, []).append(n)
    made = [None] * len(ent.computed)
    groups = list(launches.items())
    snapshots = _snapshots(ent, vals, groups) if len(groups) > 1 else None
    for gi, (shape, members) in enumerate(groups):
        prog, ins = ent.group(tuple(members))
        outs = []
        writes = False
        for n in members:
            j, deps, arg = ent.computed[n]
            if arg is None:
                dt = prog.out_dtypes[len(outs)]
                if all(vals[k]._f and not vals[k]._c and vals[k].shape == shape
                       for k in deps):
                    o = GPUArray(shape, dt, order="F")
                else:
                    o = _creation.empty_c(shape, dt)
            else:
                o = vals[arg]
                writes = True
            made[n] = o
            outs.append(o)
        src = vals if not snapshots else [snapshots.get((gi, k), x)
                                          for k, x in enumerate(vals)]
        inputs, scalar = _kernel_inputs(prog, ins, src, shape)
        if writes:
            _separate(outs, inputs, scalar)
        run_program(prog, outs, inputs, scalar)
    res = [vals[r[1]] if r[0] == "arg" else made[r[1]] for r in ent.results]
    if ent.form is None:
        return None
    if ent.form == "one":
        return res[0]
    return ent.form(res)


def _snapshots(ent, vals, groups):
    """Copies of the arguments a launch reads that another launch writes
    (each launch computes from the arguments' values at the call): keyed
    by (launch, argument)."""
    written = []
    for gi, (shape, members) in enumerate(groups):
        for n in members:
            arg = ent.computed[n][2]
            if arg is not None:
                written.append((gi, vals[arg]))
    snaps = {}
    if not written:
        return snaps
    copies = {}
    for gi, (shape, members) in enumerate(groups):
        for k in ent.group(tuple(members))[1]:
            x = vals[k]
            if not isinstance(x, GPUArray) or not x.size:
                continue
            if any(gj != gi and w.size and _layout.overlaps(x, w)
                   for gj, w in written):
                if k not in copies:
                    copies[k] = x.copy()
                snaps[(gi, k)] = copies[k]
    return snaps


def _separate(outs, inputs, scalar):
    """Copy inputs that overlap an argument written in place other than as
    the very same elements (the kernel reads each element before writing
    it, so only that case is safe)."""
    for o in outs:
        if not o.size:
            continue
        for i, (x, s) in enumerate(zip(inputs, scalar)):
            if s or not x.size:
                continue
            if x is not o and _layout.overlaps(x, o) and not (
                    x.ptr == o.ptr and x.strides == o.strides
                    and x.shape == o.shape):
                inputs[i] = x.copy()


def _run_reduction(ent, vals, shapes):
    name, prog, ins, axis, dtype, keepdims, deps = ent.reduction
    op, npfn = REDUCTIONS[name]
    shape = _layout.broadcast_shapes(*[shapes[k] for k in deps],
                                     operands=True)
    vdt = prog.out_dtypes[0]
    axes = _reductions.normalize_axes(axis, len(shape))
    kw = {"axis": axis, "keepdims": keepdims}
    if op in ("sum", "prod", "nansum", "mean"):
        kw["dtype"] = dtype
        res = _reductions.result_dtype(name, vdt, dtype)
    elif dtype is not None:
        raise TypeError("%s takes no dtype" % name)
    else:
        res = _reductions.result_dtype(op, vdt)
    size = _layout.prod(shape)
    n = 1
    for a in axes:
        n *= shape[a]
    if size == 0 or n == 0:
        # numpy's answer (or error) for an empty reduction
        r = np.asarray(npfn(np.zeros(shape, vdt), **kw))
        return _creation.to_gpu(np.asarray(r, order="C"))
    if op == "mean":
        ct = _reductions.mean_dtype(vdt, dtype)
    elif op in ("max", "min", "nanmax", "nanmin"):
        ct = vdt
    else:
        ct = res
    w, ret = _reductions.reduction_target(types.SimpleNamespace(shape=shape),
                                          axes, None, keepdims, res, name)
    inputs, scalar = _kernel_inputs(prog, ins, vals, shape)
    arrays = [x for x, s in zip(inputs, scalar) if not s]
    scalars = [x for x, s in zip(inputs, scalar) if s]
    _red.run_fused_reduction(op, prog, arrays, scalars, w, axes, ct,
                             scale=float(n) if op == "mean" else 1.0,
                             options=OPTIONS)
    return ret


def fuse(*args, kernel_name=None):
    """Compile a function of elementwise operations into one kernel
    (``cupy.fuse``).

    Use as ``@gpuarr.fuse``, ``@gpuarr.fuse()`` or
    ``gpuarr.fuse(func, kernel_name=...)``.  The function takes GPUArrays
    and scalars and returns one value, a tuple or list of values, or
    nothing (when it only updates arguments in place, ``x += y``).

    Parameters
    ----------
    *args : callable, optional
        The function, at most one (``fuse(func)``, ``@gpuarr.fuse``);
        none for ``@gpuarr.fuse()`` or ``@gpuarr.fuse(kernel_name=...)``.
        It uses operators, gpuarr's or numpy's ufuncs (``gpuarr.exp``,
        ``numpy.sin``), ``where``, ``clip``, ``astype``, and may end in one
        reduction (``sum``, ``prod``, ``mean``, ``max``, ``min``,
        ``nansum``, ``nanmax``, ``nanmin``, ``any``, ``all``, with ``axis``,
        ``dtype`` and ``keepdims``) whose value it returns.
    kernel_name : str, optional
        The name shown for the function (default its ``__name__``).

    Returns
    -------
    Fusion or callable
        Given the function: a :class:`Fusion`, callable as the function.
        Without it: a decorator that makes one.  Each call of the
        :class:`Fusion` with a new signature (the arguments' dtypes and
        dimensions, the scalars' types) traces the function once; every
        call launches one kernel (one per result shape when results
        broadcast to different shapes).

    Notes
    -----
    Every step follows numpy's type resolution (NEP 50: Python scalars are
    weak); arrays broadcast as in the unfused function, and the results
    are those of the unfused function, element for element, with the same
    dtypes.  Differences from running the function unfused: operations on
    Python scalar arguments alone are done in int64, float64 or complex128
    on the device (numpy does them in Python); a Python int argument out of
    the range of the integer dtype it meets raises OverflowError, also in
    comparisons (numpy answers those exactly; constants written in the
    function are answered exactly).

    Raises
    ------
    TypeError
        When the function uses what cannot be fused (indexing, ``len``,
        Python ``if`` on a value, a GPUArray it does not take as an
        argument, a numpy function without a fused form, operations after
        the reduction), naming it; when called with numpy arrays; when
        given more than one positional argument.
    ValueError, OverflowError
        As numpy: shapes that do not broadcast, integer overflow of Python
        scalars, integers to negative integer powers.
    """
    if len(args) > 1:
        raise TypeError("fuse takes one function")
    if args and callable(args[0]):
        return Fusion(args[0], kernel_name)

    def deco(func):
        return Fusion(func, kernel_name)
    return deco
