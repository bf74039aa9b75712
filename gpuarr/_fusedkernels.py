"""Launching fused elementwise programs (layer 4).

:func:`run_program` runs a :class:`~gpuarr.kernels.program.Program` over
array-likes (``.ptr``, ``.dtype``, ``.shape``, ``.strides`` in bytes) of
one shape and scalar kernel parameters, through the elementwise planner:
the program's kernel takes the same layout paths (contiguous vector
accesses, strided rows, tiled transposes) as a built-in operation.  Plans
and kernels are kept per context; the kernel's source, hence the disk
cache's key, depends on the program and the layout only.  They are
compiled without FMA contraction (:data:`OPTIONS`): ``a * b + c`` rounds
twice, as unfused and in numpy.
"""

import numpy as np

from . import _percontext
from ._elementwise_plan import plan_spec
from ._enums import device_attribute
from ._kernelspec import compile_function

__all__ = ["run_program", "scalar_argument", "OPTIONS"]

#: compiler options of fused kernels: no contraction of a multiply and an
#: add into one FMA, so that each operation rounds as it does unfused (and
#: in numpy)
OPTIONS = ("--fmad=false",)

_MAX_PLANS = 2048


def _new_state(ctx):
    sm = ctx.get_device().get_attribute(device_attribute.MULTIPROCESSOR_COUNT)
    return ({}, {}, int(sm))


#: (plans by key, kernels by kernel key, multiprocessor count) per context
_state = _percontext.state(_new_state)


def scalar_argument(value, dtype):
    """The kernel parameter of a scalar input of ``dtype``: a numpy scalar,
    float16 passed as float32 (the compute type)."""
    v = np.asarray(value).astype(dtype, casting="unsafe")[()]
    if dtype.kind == "f" and dtype.itemsize == 2:
        return np.float32(v)
    return v


def run_program(program, outputs, inputs, scalar, stream=None):
    """Run ``program`` elementwise.

    Parameters
    ----------
    program : gpuarr.kernels.program.Program
    outputs : sequence of array-like
        One per program output, all of one shape; each receives its result
        converted to its dtype.
    inputs : sequence
        One per program input: an array-like of the outputs' shape (broadcast
        already, 0 strides where needed), or, where ``scalar`` says so, a
        value converted by :func:`scalar_argument` to the dtype the program
        reads it as (``program.in_dtypes``).
    scalar : sequence of bool
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    (function, grid, block, tail) or None
        The launch made (None for size 0): it serves any operands of the
        same dtypes, shape, strides and addresses modulo 16 in this context.

    Notes
    -----
    Launches nothing for size 0.  An output may be an input of the same
    layout (in place); other overlaps are the caller's to resolve.
    """
    shape = tuple(outputs[0].shape)
    size = 1
    for n in shape:
        size *= n
    if not size:
        return None
    key = [program.key, shape, tuple(scalar)]
    for o in outputs:
        key.append((o.dtype, o.strides, o.ptr & 15))
    for x, s in zip(inputs, scalar):
        if not s:
            if tuple(x.shape) != shape:
                raise ValueError("operand of shape %s where %s was expected"
                                 % (tuple(x.shape), shape))
            key.append((x.dtype, x.strides, x.ptr & 15))
    key = tuple(key)
    plans, kernels, nsm = _state()
    plan = plans.get(key)
    if plan is None:
        loop_in = tuple(dt if s else np.dtype(x.dtype) for x, s, dt in
                        zip(inputs, scalar, program.in_dtypes))
        spec = plan_spec(program, loop_in, program.out_dtypes, list(outputs),
                         list(inputs), list(scalar), shape, nsm)
        ent = kernels.get(spec.kkey)
        if ent is None:
            ent = kernels[spec.kkey] = compile_function(
                spec.source(), spec.name, spec.chars, list(OPTIONS))
        plan = (ent[0], spec.grid, spec.block, spec.tail)
        if len(plans) >= _MAX_PLANS:
            plans.clear()
        plans[key] = plan
    args = [o.ptr for o in outputs]
    for x, s in zip(inputs, scalar):
        args.append(x if s else x.ptr)
    args.extend(plan[3])
    plan[0].prepared_async_call(plan[1], plan[2], stream, *args)
    return plan
