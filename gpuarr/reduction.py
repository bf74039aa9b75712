"""Reduction kernels: numpy's reductions on device arrays, and user kernels.

Layer 4: takes anything array-like (``.ptr``, ``.dtype``, ``.shape``,
``.strides`` in bytes) and never imports the array layer.  Two entry
points:

* :func:`run_reduction` - a built-in reduction (``"sum"``, ``"max"``,
  ``"argmax"``, ``"dot"``, ...) of operands over some axes into an output
  array the caller allocated (the array layer, :mod:`gpuarr.reductions`,
  decides numpy's dtypes and shapes);
* :func:`run_subset_reduction` - PyCUDA's ``subset_sum``, ``subset_dot``,
  ``subset_min``, ``subset_max``: a full reduction over ``a[subset]``
  gathered by index, in one pass;
* :class:`ReductionKernel` - PyCUDA's user reductions, plus ``axis=``.

The dtypes, kernel paths and parameters are chosen by
:mod:`gpuarr._reduction_plan` (``reduce_spec`` and ``OPS`` are re-exported
here); this module keeps the plans, kernels and workspaces per context and
launches them.
"""

import collections
import operator

import numpy as np

from . import _placement
from . import _dtypes, _percontext, tools
from . import driver as _drv
from ._enums import device_attribute
from ._kernelargs import KernelArguments, ScalarArg, check_name
from ._kernelspec import KernelSpec  # noqa: F401 - kept importable here
from ._reduction_plan import (  # noqa: F401 - OPS, op_dtypes kept here
    INDEX_MODES, OPS, PART_BYTES, SUBSET_OPS, TICKETS, op_dtypes,
    reduce_spec, user_dtypes)

__all__ = ["run_reduction", "run_subset_reduction", "run_fused_reduction", "ReductionKernel",
           "reduce_spec", "OPS", "SUBSET_OPS", "INDEX_MODES",
           "set_array_factory", "clear_cache", "full_entry", "state", "State",
           "MAX_PLANS"]

# explicit streams whose workspace (2 MiB) is kept, per context
_MAX_STREAM_WS = 8
#: Plans kept per context before they are all dropped (the array layer's
#: entries in :attr:`State.fast` follow the same limit).
MAX_PLANS = 4096


# ---------------------------------------------------------------------------
# per-context state: plans, kernels, workspaces

class State:
    """The per-context state of reductions (see :func:`state`).

    Attributes
    ----------
    plans : dict
        Launch plans by call key.
    kernels : dict
        Compiled kernels (function, module) by kernel key.
    nsm : int
        The device's multiprocessor count.
    ws : collections.OrderedDict
        Per-stream workspaces (see :func:`_workspace`).
    fast : dict
        For the array layer: its cached launch entries of full reductions
        (:func:`full_entry`), cleared with the plans and by
        :func:`clear_cache`; keep at most :data:`MAX_PLANS` there.
    pool : object
        The context's device memory pool (:func:`gpuarr.tools.default_pool`).

    Parameters
    ----------
    nsm : int
        The device's multiprocessor count (``MULTIPROCESSOR_COUNT``).
    pool : object, optional
        The context's device memory pool, from which the array layer
        allocates the 0-d results of cached full reductions; None where
        nothing allocates from it.
    """

    __slots__ = ("plans", "kernels", "nsm", "ws", "fast", "pool")

    def __init__(self, nsm, pool=None):
        self.plans = {}
        self.kernels = {}
        self.nsm = nsm
        self.ws = collections.OrderedDict()
        self.fast = {}
        self.pool = pool


def _new_state(ctx):
    nsm = ctx.get_device().get_attribute(device_attribute.MULTIPROCESSOR_COUNT)
    return State(int(nsm), tools.default_pool())


state = _percontext.state(_new_state, "state", """\
Return the current context's :class:`State` (made on first use).

One ``Context.get_current`` and an identity test per call once made.

Returns
-------
State
    The current context's state: made on first use with the device's
    multiprocessor count and :func:`gpuarr.tools.default_pool`, the same
    object on later calls in that context, dropped when the context is
    detached.

Raises
------
gpuarr.driver.InvalidContextError
    When no context is current.
""")


def clear_cache():
    """Forget every plan and kernel (rebuilt on demand); keeps workspaces."""
    for st in list(state.states.values()):
        st.plans.clear()
        st.kernels.clear()
        st.fast.clear()


def _workspace(st, stream):
    """(partials pointer, tickets pointer) of the stream's workspace.

    Kernels on one stream run in order, so one workspace per stream is
    enough; its tickets are zeroed once here and reset by each kernel.
    The default stream's workspace is kept for good (:func:`full_entry`
    caches its pointers); those of explicit streams, which the entries
    keep alive, are kept for the ``_MAX_STREAM_WS`` most recently used
    streams, and one dropped is freed only once its stream has finished.
    """
    key = 0 if stream is None else getattr(stream, "handle", id(stream))
    ws = st.ws.get(key)
    if ws is None:
        mem = _drv.mem_alloc(PART_BYTES + 4 * TICKETS)
        _drv.memset_d8(int(mem) + PART_BYTES, 0, 4 * TICKETS)
        ws = (mem, int(mem), int(mem) + PART_BYTES, stream)
        st.ws[key] = ws
        _percontext.evict_stream_buffers(st.ws, _MAX_STREAM_WS + 1, keep=0)
    elif key:
        st.ws.move_to_end(key)
    return ws[1], ws[2]


def _ws_args(st, plan, stream):
    """The (partials, tickets) pointers a plan's kernel takes: the
    stream's workspace when the plan uses one, else (0, 0)."""
    return _workspace(st, stream) if plan.needs_ws else (0, 0)


class _Plan:
    __slots__ = ("fn", "grid", "block", "tail", "offsets", "needs_ws",
                 "empty")


def _get_fn(st, spec, options=None, keep=False):
    ent = st.kernels.get(spec.kkey)
    if ent is None:
        ent = st.kernels[spec.kkey] = spec.build(options, keep)
    return ent[0]


def _make_plan(st, spec, options=None, keep=False):
    p = _Plan()
    p.empty = spec.empty
    p.fn = None if spec.empty else _get_fn(st, spec, options, keep)
    p.grid = spec.grid
    p.block = spec.block
    p.tail = spec.tail
    p.offsets = spec.offsets
    p.needs_ws = spec.needs_ws
    return p


def run_reduction(op, inputs, out, axes, ct, *, aux=None, scale=1.0,
                  stream=None):
    """Run the built-in reduction ``op`` of ``inputs`` over ``axes`` into ``out``.

    Parameters
    ----------
    op : str
        A key of :data:`OPS`.
    inputs : sequence of array-like
        One (two for ``dot``/``vdot``) operands of one shape, any strides.
    out : array-like
        The output: the input shape without ``axes``, any strides; it
        receives the result converted to its dtype.
    axes : tuple of int
        Normalized, sorted, distinct reduced axes (may be empty).
    ct : numpy.dtype
        Computation dtype (numpy's ``dtype`` of the reduction; see
        :func:`op_dtypes`).
    aux : array-like, optional
        For ``var``/``std``: contiguous per-output values (the mean), one
        per output element in C order.
    scale : float
        Divisor of ``mean``, ``var`` and ``std``.
    stream : gpuarr.driver.Stream, optional

    Notes
    -----
    A reduction over no elements writes the neutral element (``max`` of
    nothing writes the lowest value): callers raise numpy's errors first.
    """
    if len(inputs) == 1 and aux is None:
        # the common case, kept lean: one tuple key, one dict lookup
        x = inputs[0]
        key = (op, ct, axes, x.dtype, x.shape, x.strides, x.ptr & 15,
               out.dtype, out.shape, out.strides)
        st = state()
        plan = st.plans.get(key)
        if plan is None:
            plan = _new_plan(st, key, op, inputs, out, axes, ct, None)
        if plan.empty:
            return
        p, t = _ws_args(st, plan, stream)
        plan.fn.prepared_async_call(plan.grid, plan.block, stream, out.ptr,
                                    x.ptr + plan.offsets[0], p, t, scale,
                                    *plan.tail)
        return
    key = [op, ct, axes]
    for x in inputs:
        key.append((x.dtype, x.shape, x.strides, x.ptr & 15))
    key.append((out.dtype, out.shape, out.strides))
    if aux is not None:
        key.append(aux.dtype)
    key = tuple(key)
    st = state()
    plan = st.plans.get(key)
    if plan is None:
        plan = _new_plan(st, key, op, inputs, out, axes, ct,
                         None if aux is None else aux.dtype)
    if plan.empty:
        return
    args = [out.ptr]
    for x, o in zip(inputs, plan.offsets):
        args.append(x.ptr + o)
    if aux is not None:
        args.append(aux.ptr)
    args.extend(_ws_args(st, plan, stream))
    args.append(scale)
    args.extend(plan.tail)
    plan.fn.prepared_async_call(plan.grid, plan.block, stream, *args)


def run_subset_reduction(op, subset, gathers, out, ct, index_mode="raise",
                         stream=None):
    """Reduce ``a[subset]`` (``subset_dot``: ``a[subset] * b[subset]``)
    over every element of ``subset`` into the 0-d ``out``, in one pass.

    Parameters
    ----------
    op : str
        A key of :data:`SUBSET_OPS`.
    subset : array-like
        Integer indices, any shape and strides, at least one element.
    gathers : sequence of array-like
        The indexed arrays (one; two for ``subset_dot``): 1-D, any strides.
    out : array-like
        0-d output; receives the result converted to its dtype.
    ct : numpy.dtype
        Computation dtype (the sum's or the products' dtype; the gathered
        array's for the extremes).
    index_mode : {"raise", "wrap", "clip"}
        "raise": the caller has checked that every index lies in
        ``[-n, n)`` (negative ones count from the end, numpy's indexing);
        "wrap" and "clip": numpy.take's modes, any index.
    stream : gpuarr.driver.Stream, optional

    Notes
    -----
    No index is checked here: out-of-range indices under "raise" read
    outside the arrays.  The caller raises numpy's errors first.
    """
    key = (op, ct, index_mode, subset.dtype, subset.shape, subset.strides,
           subset.ptr & 15, out.dtype, out.strides,
           tuple((g.dtype, g.shape, g.strides) for g in gathers))
    st = state()
    plan = st.plans.get(key)
    if plan is None:
        _dtypes.check_supported(subset.dtype)
        for g in gathers:
            _dtypes.check_supported(g.dtype)
        _dtypes.check_supported(out.dtype)
        spec = reduce_spec(op, (subset,), out, tuple(range(len(subset.shape))),
                           ct, None, st.nsm, gathers=tuple(gathers),
                           index_mode=index_mode)
        plan = _make_plan(st, spec)
        _keep_plan(st, key, plan)
    if plan.empty:
        return
    p, t = _ws_args(st, plan, stream)
    plan.fn.prepared_async_call(plan.grid, plan.block, stream, out.ptr,
                                subset.ptr + plan.offsets[0],
                                *[g.ptr for g in gathers], p, t, 1.0,
                                *plan.tail)


def run_fused_reduction(op, program, inputs, scalars, out, axes, ct, *,
                        scale=1.0, options=(), stream=None):
    """Reduce the value of a fused elementwise program with the built-in
    reduction ``op``, in one launch (:func:`gpuarr.fuse`).

    Parameters
    ----------
    op : str
        A one-input key of :data:`OPS` (``sum``, ``max``, ``mean``, ...).
    program : gpuarr.kernels.program.Program
        One output; its first ``len(inputs)`` inputs are the arrays' elements,
        the rest the ``scalars``.
    inputs : sequence of array-like
        Operands of one shape (broadcast already), any strides.
    scalars : sequence
        The scalar parameters, converted to the dtypes the program reads
        them as (:func:`gpuarr._fusedkernels.scalar_argument`).
    out, axes, ct, scale, stream
        As for :func:`run_reduction`; ``ct`` is the reduction's dtype for
        the program's result dtype.
    options : sequence of str
        Compiler options of the kernel.
    """
    key = ["fused", op, program.key, ct, axes, tuple(options)]
    for x in inputs:
        key.append((x.dtype, x.shape, x.strides, x.ptr & 15))
    key.append((out.dtype, out.shape, out.strides))
    key = tuple(key)
    st = state()
    plan = st.plans.get(key)
    if plan is None:
        spec = reduce_spec(op, inputs, out, axes, ct, None, st.nsm,
                           fused=program)
        plan = _make_plan(st, spec, list(options))
        _keep_plan(st, key, plan)
    if plan.empty:
        return
    args = [out.ptr]
    for x, o in zip(inputs, plan.offsets):
        args.append(x.ptr + o)
    args.extend(scalars)
    args.extend(_ws_args(st, plan, stream))
    args.append(scale)
    args.extend(plan.tail)
    plan.fn.prepared_async_call(plan.grid, plan.block, stream, *args)


def _new_plan(st, key, op, inputs, out, axes, ct, aux_dt):
    for x in inputs:
        _dtypes.check_supported(x.dtype)
    _dtypes.check_supported(out.dtype)
    spec = reduce_spec(op, inputs, out, axes, ct, aux_dt, st.nsm)
    plan = _make_plan(st, spec)
    _keep_plan(st, key, plan)
    return plan


def _keep_plan(st, key, plan):
    """Remember a plan, dropping every plan (and the array layer's entries
    built on them) first when :data:`MAX_PLANS` are kept."""
    if len(st.plans) >= MAX_PLANS:
        st.plans.clear()
        st.fast.clear()
    st.plans[key] = plan


def full_entry(st, op, x, out_dt, ct, scale=1.0):
    """Everything a full reduction of ``x`` into a new C-contiguous 0-d
    output needs at launch on the default stream, computed once.

    Parameters
    ----------
    st : State
        The current context's state (:func:`state`).
    op : str
        A one-input key of :data:`OPS` without auxiliary values.
    x : array-like
        The operand (size > 0); its layout and ``ptr % 16`` define the plan.
    out_dt : numpy.dtype
        The output's dtype.
    ct : numpy.dtype
        Computation dtype (see :func:`op_dtypes`).
    scale : float
        Divisor of ``mean``.

    Returns
    -------
    tuple
        ``(fn, grid, block, off, rest)``: launch
        ``fn.prepared_async_call(grid, block, None, out_ptr, x.ptr + off,
        *rest)``.  The entry is valid for every array of ``x``'s dtype,
        shape, strides and ``ptr % 16`` in this context (until
        :func:`clear_cache`).
    """
    axes = tuple(range(len(x.shape)))
    out = _Fake(0, out_dt, (), ())
    key = (op, ct, axes, x.dtype, x.shape, x.strides, x.ptr & 15,
           out_dt, (), ())
    plan = st.plans.get(key)
    if plan is None:
        plan = _new_plan(st, key, op, (x,), out, axes, ct, None)
    if plan.empty:
        raise ValueError("full_entry needs a non-empty operand")
    p, t = _ws_args(st, plan, None)
    return (plan.fn, plan.grid, plan.block, plan.offsets[0],
            (p, t, float(scale)) + tuple(plan.tail))


# ---------------------------------------------------------------------------
# PyCUDA's ReductionKernel

_array_factory = None


def set_array_factory(factory):
    """Set the callable ``factory(shape, dtype) -> array`` that allocates
    :class:`ReductionKernel` results when no ``out=`` is given.

    :mod:`gpuarr.reductions` installs one returning GPUArrays when it is
    imported, which the array layer does as it loads: this module never
    imports the array layer itself (it lies below it).

    Parameters
    ----------
    factory : callable or None
        ``factory(shape, dtype)`` returning a new C-contiguous device
        array (``.ptr``, ``.dtype``, ``.shape``, ``.strides``) of that
        shape (a tuple) and dtype; it replaces any earlier one.  None
        removes it: a :class:`ReductionKernel` call without ``out=`` then
        raises RuntimeError.
    """
    global _array_factory
    _array_factory = factory


def _new_array(shape, dtype):
    if _array_factory is None:
        raise RuntimeError(
            "ReductionKernel has no array factory to allocate its result: "
            "pass out=, or import gpuarr.gpuarray (which installs one)")
    return _array_factory(shape, dtype)


class _Fake:
    __slots__ = ("ptr", "dtype", "shape", "strides")

    def __init__(self, ptr, dtype, shape, strides):
        self.ptr, self.dtype, self.shape, self.strides = ptr, dtype, shape, strides


def _c_strides(shape, isz):
    st = []
    acc = isz
    for n in reversed(shape):
        st.insert(0, acc)
        acc *= max(n, 1)
    return tuple(st)


class ReductionKernel:
    """A user-defined map-reduce kernel (PyCUDA's form).

    Parameters
    ----------
    dtype_out : dtype-like
        dtype of the accumulator and of the result.
    neutral : str
        C expression of the neutral element of ``reduce_expr``
        (``"0"``, ``"-INFINITY"``...).
    reduce_expr : str
        C expression combining two partial results ``a`` and ``b``
        (``"a+b"``, ``"fmaxf(a, b)"``); must be associative and commutative.
    map_expr : str, optional
        C expression of the value at index ``i`` (``"x[i]*y[i]"``); default
        ``"<first pointer argument>[i]"``.
    arguments : str or list
        C parameter list (``"float *x, float *y"``) or VectorArg/ScalarArg
        objects, parsed as :class:`gpuarr.elementwise.ElementwiseKernel`'s
        (:class:`gpuarr._kernelargs.KernelArguments`).
    name : str
        Kernel name (a C identifier).
    keep : bool
        Keep the compiler's files.
    options : list of str, optional
        Compiler options.
    preamble : str, optional
        Source placed before the kernel (helper functions).

    Notes
    -----
    Call as ``krnl(*args, stream=None, out=None, axis=None)``.  All pointer
    arguments must be contiguous arrays of the same size (TypeError for a
    wrong dtype or a missing argument, ValueError for a size mismatch, both
    before any launch).  With ``axis=None`` the result is a 0-d array; with
    ``axis=k`` the arrays (all of one shape) are reduced along axis ``k``
    and ``i`` is still the linear (C-order) element index.  The result is
    allocated by the factory of :func:`set_array_factory` (GPUArrays) unless
    ``out`` is given.  float16 arguments are ``ga_half`` (converting to and
    from ``float``); complex ones ``gpuarr::complex<float|double>`` (also
    ``pycuda::complex``, ``ga_complex``), with std::complex's functions.
    """

    def __init__(self, dtype_out, neutral, reduce_expr, map_expr=None,
                 arguments=None, name="reduce_kernel", keep=False,
                 options=None, preamble=""):
        check_name(name, "kernel name")
        if arguments is None:
            raise TypeError("ReductionKernel needs arguments")
        for what, v in (("neutral", neutral), ("reduce_expr", reduce_expr)):
            if not isinstance(v, str) or not v.strip():
                raise ValueError("%s must be a non-empty C expression" % what)
        self.dtype_out = _dtypes.check_supported(dtype_out)
        self._arguments = KernelArguments(arguments, name, "ReductionKernel")
        self.args = self._arguments.args
        self._vec = [self.args[k] for k in self._arguments.vector_index]
        if map_expr is None:
            map_expr = "%s[i]" % self._vec[0].name
        if not isinstance(map_expr, str) or not map_expr.strip():
            raise ValueError("map_expr must be a non-empty C expression")
        self.neutral = neutral
        self.reduce_expr = reduce_expr
        self.map_expr = map_expr
        self.name = name
        self.keep = keep
        self.options = list(options) if options else None
        self.preamble = preamble
        self._types = user_dtypes(self.dtype_out)

    def _user(self):
        return {"types": self._types, "neutral": self.neutral,
                "reduce": self.reduce_expr,
                "args": self._arguments.params(" *__restrict__"),
                "map": self.map_expr, "preamble": self.preamble,
                "name": self.name, "chars": self._arguments.chars}

    def spec(self, shape, axis=None, out=None, nsm=132):
        """The :class:`KernelSpec` of a call on arrays of ``shape``."""
        shape = tuple(shape)
        isz = self.dtype_out.itemsize
        virt = _Fake(0, self._vec[0].dtype, shape,
                     _c_strides(shape, self._vec[0].dtype.itemsize))
        axes = tuple(range(len(shape))) if axis is None else (axis,)
        kshape = tuple(n for k, n in enumerate(shape) if k not in axes)
        if out is None:
            out = _Fake(0, self.dtype_out, kshape, _c_strides(kshape, isz))
        return reduce_spec(None, [virt], out, axes, self.dtype_out, nsm=nsm,
                           user=self._user())

    def get_source(self, shape=(1024,), axis=None):
        """The kernel source for arrays of ``shape``."""
        return self.spec(shape, axis).source()

    @_placement.on_arrays_device
    def __call__(self, *args, stream=None, out=None, axis=None, **kwargs):
        if kwargs:
            raise TypeError("unexpected keyword argument(s): %s"
                            % ", ".join(sorted(kwargs)))
        if len(args) < len(self.args):
            missing = [a.name for a in self.args[len(args):]]
            raise TypeError("%s() missing argument(s): %s" % (
                self.name, ", ".join("%r" % m for m in missing)))
        vals, n = self._arguments.pack(args)
        shape = None
        for decl, x in zip(self.args, args):
            if isinstance(decl, ScalarArg):
                continue
            if shape is None:
                shape = tuple(x.shape)
            elif axis is not None and tuple(x.shape) != shape:
                raise ValueError("argument %r has shape %s where %s was "
                                 "expected" % (decl.name, tuple(x.shape), shape))
        if axis is None:
            shape = (n,)
            axes = (0,)
            kshape = ()
        else:
            nd = len(shape)
            try:
                ax = operator.index(axis)
            except TypeError:
                raise TypeError("axis must be an integer") from None
            if not -nd <= ax < nd:
                raise np.exceptions.AxisError(ax, nd)
            ax %= nd
            axes = (ax,)
            kshape = tuple(m for k, m in enumerate(shape) if k != ax)
        if out is None:
            out = _new_array(kshape, self.dtype_out)
        else:
            if tuple(out.shape) != kshape:
                raise ValueError("out has shape %s where %s was expected"
                                 % (tuple(out.shape), kshape))
            if out.dtype != self.dtype_out:
                raise TypeError("out has dtype %s where %s was declared"
                                % (out.dtype, self.dtype_out))
        st = state()
        # the plans live in the context's state (dropped with it), under a
        # key holding this kernel itself: nothing is keyed by an id()
        key = (self, shape, axes, out.strides)
        plan = st.plans.get(key)
        if plan is None:
            virt = _Fake(0, self._vec[0].dtype, shape,
                         _c_strides(shape, self._vec[0].dtype.itemsize))
            spec = reduce_spec(None, [virt], out, axes, self.dtype_out,
                               nsm=st.nsm, user=self._user())
            spec.kkey = (self,) + spec.kkey
            plan = _make_plan(st, spec, self.options, self.keep)
            _keep_plan(st, key, plan)
        if plan.empty:
            return out
        a = [out.ptr] + list(vals)
        a.extend(_ws_args(st, plan, stream))
        a.append(1.0)
        a.extend(plan.tail)
        plan.fn.prepared_async_call(plan.grid, plan.block, stream, *a)
        return out
