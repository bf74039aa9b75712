"""Elementwise kernels: numpy's ufuncs on device arrays, and user kernels.

Layer 4: takes anything array-like (an object with ``.ptr``, ``.dtype``,
``.shape`` and ``.strides`` in bytes) and never imports
:mod:`gpuarr.gpuarray`.

Two public entry points for the array layer:

* :func:`resolve` - numpy 2's type resolution for an operation;
* :func:`run_elementwise` - run a built-in operation over operands of one
  shape with any strides.

and PyCUDA's :class:`ElementwiseKernel` for user code.

The kernel paths and their parameters are chosen by
:func:`gpuarr._elementwise_plan.plan_spec` (re-exported here); this module
keeps the launch plans per context and launches them.
"""

import numpy as np

from . import _placement
from . import _dtypes, _layout, _percontext
from . import driver as _drv
from ._enums import device_attribute
from ._kernelargs import (  # noqa: F401 - PyCUDA's names, kept here
    KernelArguments, ScalarArg, VectorArg, argument_decls, check_name,
    parse_arguments, parse_c_arg)
from ._elementwise_plan import BLOCK as _BLOCK, GRID_MAX as _GRID_MAX
from ._elementwise_plan import plan_spec
# KernelSpec: kept importable here
from ._kernelspec import KernelSpec, compile_function  # noqa: F401
from .kernels import render
from .kernels.ops import get_op, COMPARISONS, OPS

__all__ = ["resolve", "run_elementwise", "out_of_range_comparison",
           "ElementwiseKernel", "VectorArg",
           "ScalarArg", "get_elwise_kernel", "clear_cache"]

_PY_SCALARS = (bool, int, float, complex)
# indices per thread of a unit-step ElementwiseKernel launch
_USER_UNROLL = 4

# ---------------------------------------------------------------------------
# type resolution

_RESOLVE_CACHE = {}


def _tokens(operands):
    return tuple(_dtypes.scalar_token(x) for x in operands)


def _resolve_tokens(op, tokens):
    """(loop_in, out) for an Op and promotion tokens (cached)."""
    key = (op.name, tokens)
    try:
        return _RESOLVE_CACHE[key]
    except KeyError:
        pass
    if len(tokens) != op.nin:
        raise TypeError("%s takes %d operand(s) (%d given)"
                        % (op.name, op.nin, len(tokens)))
    res = op.resolver
    if res == "ufunc":
        loop_in, outs = _dtypes.resolve_ufunc(op.ufunc, tokens)
    elif res == "copy":
        dt = _dtypes.result_type(tokens[0])
        loop_in, outs = (dt,), (dt,)
    elif res in ("where", "if_positive"):
        dt = _dtypes.result_type(tokens[1], tokens[2])
        first = (np.dtype(bool) if res == "where"
                 else _dtypes.result_type(tokens[0]))
        if first.kind == "c":
            raise TypeError("if_positive needs a real criterion, not %s"
                            % first)
        loop_in, outs = (first, dt, dt), (dt,)
    elif res == "angle":
        t = tokens[0]
        if isinstance(t, np.dtype) and t.kind == "c" or t is complex:
            dt = _dtypes.result_type(t)
            real = np.dtype("f4") if dt.itemsize == 8 else np.dtype("f8")
            loop_in, outs = (dt,), (real,)
        else:
            lp, o = _dtypes.resolve_ufunc(np.arctan2, (int, t))
            loop_in, outs = (lp[1],), o
    else:  # pragma: no cover - table error
        raise AssertionError(res)
    for dt in loop_in + outs:
        _dtypes.check_supported(dt)
    # what numpy accepts but gpuarr has no kernel for: TypeError now
    k = loop_in[1].kind if res in ("where", "if_positive") else loop_in[0].kind
    mixed_cmp = (op.name in COMPARISONS and len(loop_in) == 2
                 and loop_in[0] != loop_in[1])
    if k not in op.exprs and not mixed_cmp:
        raise TypeError("gpuarr has no GPU implementation of %r for dtype %s"
                        % (op.name, loop_in[0]))
    value = (tuple(loop_in), tuple(outs))
    _RESOLVE_CACHE[key] = value
    return value


def _check_values(op, operands, loop_in):
    """Value-dependent errors numpy raises: OverflowError, negative powers."""
    for k, (x, dt) in enumerate(zip(operands, loop_in)):
        if type(x) is int and not _exact_compare(op, operands, k):
            _dtypes.check_scalar(x, dt)
    if op.name == "power" and loop_in[0].kind in "iu":
        e = operands[1]
        if (type(e) is int or isinstance(e, np.integer)) and e < 0:
            raise ValueError("Integers to negative integer powers are not "
                             "allowed.")


def _exact_compare(op, operands, k):
    """Whether numpy 2 compares Python int operand ``k`` exactly (no
    OverflowError): a comparison against an integer array or scalar."""
    if op.name not in COMPARISONS or len(operands) != 2:
        return False
    other = _dtypes.scalar_token(operands[1 - k])
    return isinstance(other, np.dtype) and other.kind in "iu"


def resolve(op, *operands):
    """numpy's type resolution for the built-in operation ``op``.

    Parameters
    ----------
    op : str
        A numpy ufunc name (``"add"``, ``"sin"``, ...), an alias
        (``"divide"``, ``"abs"``, ...) or one of ``"copy"``, ``"where"``,
        ``"clip"``, ``"if_positive"``, ``"angle"``.
    *operands
        numpy dtypes, array-likes (their ``.dtype`` is used), numpy scalars
        (strong) or Python ``bool``/``int``/``float``/``complex`` (weak,
        NEP 50).

    Returns
    -------
    loop_in_dtypes : tuple of numpy.dtype
        The dtype each input is converted to before the operation.
    out_dtypes : tuple of numpy.dtype
        The dtypes of the results.

    Raises
    ------
    TypeError
        When numpy has no loop for the operands (``bool - bool``), or gpuarr
        has no kernel for the loop (``sin`` of a complex).
    OverflowError
        When a Python integer does not fit the dtype it is converted to
        (``uint8 + 300``).  Comparisons do not raise: numpy 2 compares
        out-of-range Python integers exactly, and so does
        :func:`run_elementwise`.
    ValueError
        For an integer ``power`` with a negative scalar exponent, like
        numpy.
    """
    op = get_op(op)
    loop_in, outs = _resolve_tokens(op, _tokens(operands))
    _check_values(op, operands, loop_in)
    return loop_in, outs


# ---------------------------------------------------------------------------
# kernel specialisation and cache

_MAX_PLANS = 2048


def _new_state(ctx):
    """A context's state: (plans by key, kernels by kernel key, its
    device's multiprocessor count)."""
    sm = ctx.get_device().get_attribute(device_attribute.MULTIPROCESSOR_COUNT)
    return ({}, {}, int(sm))


#: The current context's state (see :func:`_new_state`).
_ctx_state = _percontext.state(_new_state)


def clear_cache():
    """Forget every launch plan and kernel (they are rebuilt on demand)."""
    _ctx_state.clear()


def current_context():
    """The current :class:`gpuarr.driver.Context`, or None."""
    return _drv.Context.get_current()


def _compile(kernels, kkey, source, name, arg_chars, options=None):
    """The function of ``kernels[kkey]``, compiled from ``source`` first
    when missing."""
    ent = kernels.get(kkey)
    if ent is None:
        ent = kernels[kkey] = compile_function(source, name, arg_chars,
                                               options)
    return ent[0]


def _scalar_value(x, dt):
    """Convert a scalar operand to the numpy scalar passed to the kernel."""
    v = _dtypes.convert_scalar(x, dt)
    if dt.kind == "f" and dt.itemsize == 2:
        return np.float32(v)
    return v


class _Plan:
    __slots__ = ("fn", "grid", "block", "tail", "scalars", "nin_args")

    def __init__(self, fn, grid, block, tail, scalars):
        self.fn = fn
        self.grid = grid
        self.block = block
        self.tail = tail
        self.scalars = scalars


def _make_plan(state, op, loop_in, op_out, outputs, inputs, scalar, shape):
    kernels, nsm = state[1], state[2]
    spec = plan_spec(op, loop_in, op_out, outputs, inputs, scalar, shape, nsm)
    entry = kernels.get(spec.kkey)
    if entry is None:
        fn = _compile(kernels, spec.kkey, spec.source(), spec.name, spec.chars)
    else:
        fn = entry[0]
    return _Plan(fn, spec.grid, spec.block, spec.tail, spec.scalars)


class _Contiguous:
    """Array-like standing for any C-contiguous array at a 16-byte aligned
    address (the plan of such operands does not depend on the address)."""

    __slots__ = ("ptr", "dtype", "shape", "strides")

    def __init__(self, dtype, shape):
        self.ptr = 0
        self.dtype = dtype
        self.shape = shape
        st = []
        acc = dtype.itemsize
        for n in reversed(shape):
            st.append(acc)
            acc *= n
        self.strides = tuple(reversed(st))


def _loop_types(opobj, loop_dtypes, inputs):
    """(loop_in, op_out): numpy's resolution, or the requested loop."""
    if loop_dtypes is None:
        return _resolve_tokens(opobj, _tokens(inputs))
    loop_in = tuple(np.dtype(d) for d in loop_dtypes)
    if len(loop_in) != opobj.nin:
        raise TypeError("loop_dtypes needs %d dtypes" % opobj.nin)
    want = loop_in
    loop_in, op_out = _resolve_tokens(opobj, loop_in)
    if loop_in != want:
        # numpy would pick another loop: use the requested one
        loop_in = want
        if opobj.resolver == "copy":
            op_out = loop_in
    return loop_in, op_out


def contiguous_plan(op, loop_dtypes, out_dtype, in_dtypes, shape):
    """The launch of ``op`` over C-contiguous, 16-byte aligned arrays.

    Parameters
    ----------
    op : str
        Operation name, as for :func:`run_elementwise`.
    loop_dtypes : tuple of numpy.dtype
        The loop's input dtypes (as :func:`resolve` gives them).
    out_dtype : numpy.dtype
        The output array's dtype.
    in_dtypes : tuple of numpy.dtype
        The input arrays' dtypes (all inputs are arrays).
    shape : tuple of int
        The common, non-empty shape.

    Returns
    -------
    (function, grid, block, tail)
        Launch with ``function.prepared_async_call(grid, block, stream,
        out_ptr, *in_ptrs, *tail)`` for any such arrays in the context that
        is current now.
    """
    state = _ctx_state()
    plans = state[0]
    key = ("contiguous", op, tuple(loop_dtypes), out_dtype, tuple(in_dtypes),
           shape)
    plan = plans.get(key)
    if plan is None:
        opobj = get_op(op)
        loop_in, op_out = _loop_types(opobj, loop_dtypes, None)
        outs = [_Contiguous(out_dtype, shape)]
        ins = [_Contiguous(dt, shape) for dt in in_dtypes]
        for a in outs + ins:
            _dtypes.check_supported(a.dtype)
        plan = _make_plan(state, opobj, loop_in, op_out, outs, ins,
                          [False] * len(ins), shape)
        plan.nin_args = loop_in
        if len(plans) >= _MAX_PLANS:
            plans.clear()
        plans[key] = plan
    return plan.fn, plan.grid, plan.block, plan.tail


def _plan_key(opname, loop_dtypes, outputs, inputs, shape):
    """Key of a launch plan and the scalar mask.  Raises ValueError for an
    array input not of ``shape`` (checked on every call: the key holds
    strides, not shapes, and a plan reused for a smaller input would read
    past its end)."""
    key = [opname, loop_dtypes]
    scalar = []
    for o in outputs:
        key.append((o.dtype, o.strides, o.ptr & 15))
    for x in inputs:
        t = type(x)
        if t in _PY_SCALARS:
            key.append(t)
            scalar.append(True)
        elif isinstance(x, np.generic):
            key.append(x.dtype)
            scalar.append(True)
        else:
            if x.shape != shape:
                raise ValueError("operand of shape %s where %s was expected; "
                                 "broadcast it first" % (x.shape, shape))
            key.append((x.dtype, x.strides, x.ptr & 15))
            scalar.append(False)
    return key, scalar


def _get_plan(opobj, loop_dtypes, outputs, inputs, key, scalar, shape):
    """The cached plan of a launch (built on a miss), or None for size 0
    after numpy's value checks.  ``key`` and ``scalar`` are
    :func:`_plan_key`'s."""
    key.append(shape)
    key = tuple(key)
    state = _ctx_state()
    plans = state[0]
    plan = plans.get(key)
    if plan is not None:
        return plan
    loop_in, op_out = _loop_types(opobj, loop_dtypes, inputs)
    for a in outputs:
        _dtypes.check_supported(a.dtype)
    for x, s in zip(inputs, scalar):
        if not s:
            _dtypes.check_supported(x.dtype)
    size = 1
    for n in shape:
        size *= n
    if size == 0:
        _check_values(opobj, inputs, loop_in)
        return None
    plan = _make_plan(state, opobj, loop_in, op_out, outputs, inputs,
                      scalar, shape)
    plan.nin_args = loop_in
    if len(plans) >= _MAX_PLANS:
        plans.clear()
    plans[key] = plan
    return plan


def array_plan(op, loop_dtypes, outputs, inputs):
    """The launch of ``op`` over non-empty arrays of one shape, any strides.

    Parameters
    ----------
    op : str
        Operation name, as for :func:`run_elementwise`.
    loop_dtypes : tuple of numpy.dtype
        The loop's input dtypes.
    outputs, inputs : sequence of array-like
        As for :func:`run_elementwise`, arrays only (no scalars), all of
        one non-empty shape.

    Returns
    -------
    (function, grid, block, tail)
        Launch with ``function.prepared_async_call(grid, block, stream,
        *out_ptrs, *in_ptrs, *tail)`` for arrays of the same dtypes, shape,
        strides and addresses modulo 16 in the context that is current now.
    """
    opobj = get_op(op)
    key, scalar = _plan_key(opobj.name, loop_dtypes, outputs, inputs,
                            outputs[0].shape)
    if any(scalar):
        raise TypeError("array_plan takes arrays only")
    plan = _get_plan(opobj, loop_dtypes, outputs, inputs, key, scalar,
                     outputs[0].shape)
    if plan is None:
        raise ValueError("array_plan needs non-empty arrays")
    return plan.fn, plan.grid, plan.block, plan.tail


def run_elementwise(op, outputs, inputs, *, loop_dtypes=None, stream=None):
    """Run the built-in operation ``op`` elementwise.

    Parameters
    ----------
    op : str
        Operation name, as for :func:`resolve`.
    outputs : sequence of array-like
        Objects with ``.ptr`` (int device address), ``.dtype``, ``.shape``
        and ``.strides`` (bytes; may be negative or 0), all of one shape.
    inputs : sequence
        Array-likes of exactly the outputs' shape (already broadcast, with
        0 strides where needed), numpy scalars, or Python scalars (weak,
        converted to the loop dtype with numpy's range checks).
    loop_dtypes : tuple of numpy.dtype, optional
        The dtypes inputs are converted to before the operation; by default
        numpy's resolution (:func:`resolve`).
    stream : gpuarr.driver.Stream, optional
        Stream to launch on (default stream when None).

    Returns
    -------
    None
        The results are written into ``outputs``; the launch is
        asynchronous on ``stream``.

    Notes
    -----
    Each output receives the operation's result converted to its own
    dtype.  Size-0 arrays launch nothing.  An output may be one of the
    inputs when both have the same layout (in-place operations); other
    overlaps are the caller's to resolve.

    Raises
    ------
    TypeError, OverflowError, ValueError
        As numpy would, before any launch.
    """
    opobj = OPS.get(op)
    if opobj is None:
        opobj = get_op(op)
    if len(inputs) != opobj.nin:
        raise TypeError("%s takes %d input(s) (%d given)"
                        % (opobj.name, opobj.nin, len(inputs)))
    if len(outputs) != opobj.nout:
        raise TypeError("%s gives %d output(s) (%d given)"
                        % (opobj.name, opobj.nout, len(outputs)))
    shape = outputs[0].shape
    for a in outputs:
        if a.shape != shape:
            raise ValueError("outputs of different shapes: %s and %s"
                             % (shape, a.shape))
    key, scalar = _plan_key(opobj.name, loop_dtypes, outputs, inputs,
                            shape)
    plan = _get_plan(opobj, loop_dtypes, outputs, inputs, key, scalar, shape)
    if plan is None:
        return
    args = [o.ptr for o in outputs]
    if plan.scalars:
        loop_in = plan.nin_args
        if opobj.name == "power":
            _check_values(opobj, inputs, loop_in)
        for x, s, dt in zip(inputs, scalar, loop_in):
            if s:
                if type(x) is int and dt.kind in "iu":
                    lo, hi = _dtypes.int_bounds(dt)
                    if x < lo or x > hi:
                        if _exact_compare(opobj, inputs, len(args) - len(outputs)):
                            return _compare_out_of_range(
                                opobj, outputs, inputs, x, lo, hi, stream)
                        _dtypes.check_scalar(x, dt)
                args.append(_scalar_value(x, dt))
            else:
                args.append(x.ptr)
    else:
        for x in inputs:
            args.append(x.ptr)
    args.extend(plan.tail)
    plan.fn.prepared_async_call(plan.grid, plan.block, stream, *args)


def out_of_range_comparison(op, value_first, big):
    """numpy 2's answer to comparing every element of an integer array with
    a Python int outside the dtype's range: one bool for all elements.

    Parameters
    ----------
    op : str
        A comparison (``"less"``, ``"equal"``, ...).
    value_first : bool
        The Python int is the first operand (``v < x``).
    big : bool
        The int is above the dtype's range (else below).

    Returns
    -------
    bool
        The comparison's result for every element of the array.

    Raises
    ------
    KeyError
        When ``op`` is not one of the six comparisons.
    """
    # the array element x versus the scalar v, when v > every x (big)
    table = {"equal": False, "not_equal": True,
             "less": big, "less_equal": big,
             "greater": not big, "greater_equal": not big}
    if value_first:
        # v OP x: mirror
        mirror = {"less": "greater", "less_equal": "greater_equal",
                  "greater": "less", "greater_equal": "less_equal"}
        op = mirror.get(op, op)
    return table[op]


def _compare_out_of_range(op, outputs, inputs, value, lo, hi, stream):
    """An integer array compared with a Python int outside its range.

    numpy 2 answers exactly: every element compares the same way, so the
    result is a constant.
    """
    scalar_first = type(inputs[0]) is int and inputs[0] is value
    result = out_of_range_comparison(op.name, scalar_first, value > hi)
    run_elementwise("fill", outputs, [np.bool_(result)], stream=stream)


# ---------------------------------------------------------------------------
# user kernels (PyCUDA's ElementwiseKernel)


class ElementwiseKernel:
    """A kernel applying ``operation`` for every index ``i`` (PyCUDA's form).

    Parameters
    ----------
    arguments : str or list
        C parameter list, e.g. ``"float a, float *x, float *y, float *z"``,
        or a list of :class:`VectorArg` / :class:`ScalarArg`.
    operation : str
        C statement(s) using ``i``, e.g. ``"z[i] = a*x[i] + y[i]"``.
        ``i`` has the kernel's index type: ``int`` when the range fits in
        ``2**31 - 1``, ``long long`` otherwise.
    name : str, optional
        Kernel name; must be a C identifier and not a keyword.
    keep : bool, optional
        Keep the compiler's temporary files.
    options : list of str, optional
        Extra compiler options.
    preamble : str, optional
        Source placed before the kernel (helper functions).
    loop_prep, after_loop : str, optional
        Statements before and after the loop.

    Notes
    -----
    Array arguments must be contiguous.  float16 arrays appear as
    ``ga_half`` (converts to and from ``float``), complex ones as
    ``gpuarr::complex<float>``/``<double>`` (also spelled
    ``pycuda::complex``, ``ga_complex``, ``complex``) with fields ``re`` and
    ``im`` and std::complex's functions (``x[i] = exp(x[i])``, ``abs``,
    ``pow``, ...; gpuarr/include/gpuarr/complex.hpp).
    """

    def __init__(self, arguments, operation, name="kernel", keep=False,
                 options=None, preamble="", loop_prep="", after_loop=""):
        check_name(name, "kernel name")
        if not isinstance(operation, str) or not operation.strip():
            raise ValueError("operation must be a non-empty string of C code")
        self._arguments = KernelArguments(arguments, name)
        self.args = self._arguments.args
        # the per-call check and conversion of the arguments
        self._pack = self._arguments.pack
        self.operation = operation
        self.name = name
        self.keep = keep
        self.options = list(options) if options else None
        self.preamble = preamble
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self._vec_idx = self._arguments.vector_index
        # the vector layout of unit-step launches: ``_vec`` consecutive
        # indices per thread, each array's pointer aligned to ``_vec`` of
        # its elements (at most 16 bytes).  Only for arrays of C's own
        # types: nvcc leaves the accesses of ga_half and of complex stores
        # unmerged, and the layout would then only spread each warp's
        # accesses wider.
        dts = [a.dtype for a in self.args if not isinstance(a, ScalarArg)]
        sizes = self._sizes = [dt.itemsize for dt in dts]
        plain = all(dt.kind in "biu" or (dt.kind == "f" and dt.itemsize >= 4)
                    for dt in dts)
        self._vec = max(1, min(4, 16 // max(sizes))) if sizes and plain else 1
        self._align = [min(16, self._vec * s) for s in sizes]
        self._fns = {}
        self._memo = None

    def _source(self, itype, dense=False, restrict=False, vec=1):
        params = self._arguments.params(" *__restrict__" if restrict else " *")
        aligned = [(a.name, min(16, vec * a.dtype.itemsize))
                   for a in self.args if not isinstance(a, ScalarArg)]
        params += [(itype, "ga_start"), (itype, "ga_stop"), (itype, "ga_step")]
        return render("elementwise.cu.mako", name=self.name, path="user",
                      itype=itype, block=_BLOCK, params=params,
                      preamble=self.preamble, ops=[], apply=None,
                      ndim=1, vec=vec if dense else 1,
                      unroll=_USER_UNROLL if dense else 1, tile=0,
                      operation=self.operation, loop_prep=self.loop_prep,
                      after_loop=self.after_loop, dense=dense,
                      aligned=aligned)

    def get_source(self, wide=False, dense=False, restrict=False, vec=1):
        """The kernel's source.

        Parameters
        ----------
        wide : bool
            64-bit indices (``long long``) instead of ``int``.
        dense : bool
            The unit-step variant: an exactly sized grid, each thread taking
            several indices with the copies of the operation unrolled.
        restrict : bool
            Declare the pointer parameters ``__restrict__`` (used when the
            arrays passed do not overlap).
        vec : int
            With ``dense``: more than 1 gives each thread ``vec``
            consecutive indices and promises the compiler that ``ga_start``
            is a multiple of ``vec`` and every pointer is aligned to ``vec``
            of its elements (at most 16 bytes), so that it can merge the
            accesses into vector ones.  Launches use it for unit steps over
            disjoint arrays where those hold.
        """
        return self._source("long long" if wide else "int", dense, restrict,
                            vec)

    def _disjoint(self, vals, n):
        """Whether no two array arguments (``vals`` from
        :meth:`KernelArguments.pack`, ``n`` elements each) share a byte:
        ``__restrict__`` is then true."""
        spans = sorted([(vals[k], n * isz)
                        for k, isz in zip(self._vec_idx, self._sizes)])
        for (p0, n0), (p1, _) in zip(spans, spans[1:]):
            if p0 + n0 > p1:
                return False
        return True

    @_placement.on_arrays_device
    def __call__(self, *args, **kwargs):
        """Launch over every element (or ``range=``/``slice=``).

        Keyword arguments: ``range`` (a slice over indices), ``slice`` (a
        slice taken relative to the array size), ``stream``.
        """
        if kwargs:
            rng = kwargs.pop("range", None)
            slc = kwargs.pop("slice", None)
            stream = kwargs.pop("stream", None)
            if kwargs:
                raise TypeError("unexpected keyword argument(s): %s"
                                % ", ".join(sorted(kwargs)))
        else:
            rng = slc = stream = None
        vals, n = self._pack(args)
        if rng is None and slc is None:
            if n:
                self._launch(vals, n, 0, n, 1, n, stream)
            return
        if rng is not None and slc is not None:
            raise TypeError("give range= or slice=, not both")
        if rng is not None:
            if not isinstance(rng, slice):
                raise TypeError("range= must be a slice")
            start = 0 if rng.start is None else int(rng.start)
            stop = int(rng.stop) if rng.stop is not None else n
            step = 1 if rng.step is None else int(rng.step)
            if step == 0:
                raise ValueError("range step must not be zero")
        else:
            if not isinstance(slc, slice):
                raise TypeError("slice= must be a slice")
            start, stop, step = slc.indices(n)
        idx = range(start, stop, step)
        count = len(idx)
        if count == 0:
            return
        if min(idx[0], idx[-1]) < 0 or max(idx[0], idx[-1]) >= n:
            raise ValueError("range=%r reaches indices %d..%d outside the "
                             "arrays' %d elements" % (rng, min(idx[0], idx[-1]),
                                                      max(idx[0], idx[-1]), n))
        self._launch(vals, n, start, stop, step, count, stream)

    def _launch(self, vals, n, start, stop, step, count, stream):
        """Pick the variant for indices ``range(start, stop, step)``
        (``count`` of them, all inside the arrays' ``n``), compile it on
        first use and launch it.

        The choice depends only on the context, the range and the arrays'
        addresses, so the last one is remembered: a loop over the same
        arrays skips it."""
        state = _ctx_state()
        idx = self._vec_idx
        memo_key = (n, start, stop, step, [vals[k] for k in idx])
        memo = self._memo
        if memo is not None and memo[0] is state and memo[1] == memo_key:
            memo[2].prepared_async_call(memo[3], (_BLOCK, 1, 1), stream,
                                        *vals, start, stop, step)
            return
        wide = max(abs(start), abs(stop), n) + abs(step) * 2 + _BLOCK * 2 > \
            _layout.INT32_MAX - 2 ** 20 or count * abs(step) > 2 ** 30
        dense = step == 1 and -(-count // _BLOCK) <= _GRID_MAX
        restrict = dense and self._disjoint(vals, n)
        vec = self._vec
        if restrict and vec > 1 and not start % vec:
            for k, al in zip(self._vec_idx, self._align):
                if vals[k] % al:
                    vec = 1
                    break
        else:
            vec = 1
        per_block = _BLOCK * (vec if vec > 1 else _USER_UNROLL)
        # Entries remember the per-context state they were built for and are
        # used only for that very object: an id() could be reused by a new
        # context's state after a detach, launching a dead context's kernel.
        key = (wide, dense, restrict, vec, state[2])
        ent = self._fns.get(key)
        fn = ent[1] if ent is not None and ent[0] is state else None
        if fn is None:
            itype = "long long" if wide else "int"
            chars = self._arguments.chars + ("q" if wide else "i") * 3
            fn, mod = compile_function(
                self._source(itype, dense, restrict, vec), self.name, chars,
                self.options, self.keep)
            self._fns[key] = (state, fn)
            self._mod = mod
        if dense:
            grid = -(-count // per_block)
        else:
            grid = max(1, min(-(-count // _BLOCK), state[2] * (2048 // _BLOCK)))
        self._memo = (state, memo_key, fn, (grid, 1, 1))
        fn.prepared_async_call((grid, 1, 1), (_BLOCK, 1, 1), stream,
                               *vals, start, stop, step)


def get_elwise_kernel(arguments, operation, name="kernel", **kwargs):
    """PyCUDA's ``get_elwise_kernel``: an :class:`ElementwiseKernel`.

    Parameters
    ----------
    arguments : str or list
        The kernel's C parameters, as for :class:`ElementwiseKernel`.
    operation : str
        C statement(s) using the index ``i``.
    name : str, optional
        Kernel name (a C identifier).
    **kwargs
        Passed on to :class:`ElementwiseKernel`: ``keep``, ``options``,
        ``preamble``, ``loop_prep``, ``after_loop``.

    Returns
    -------
    ElementwiseKernel
        Called with the arguments alone (the element count comes from the
        arrays).  PyCUDA returns the prepared :class:`~gpuarr.driver.Function`
        instead, launched by the caller with an extra trailing ``n``.

    Raises
    ------
    ValueError, TypeError
        As :class:`ElementwiseKernel` raises for a bad name, an empty
        ``operation`` or a bad argument list.
    """
    return ElementwiseKernel(arguments, operation, name=name, **kwargs)
