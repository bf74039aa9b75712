"""CUDA's vector types as numpy dtypes: PyCUDA's ``gpuarray.vec`` (layer 0).

Pure numpy.  Each of CUDA's built-in vector types (``vector_types.h``:
``char1`` ... ``double4``) is a structured dtype with fields ``x``, ``y``,
``z``, ``w`` of its scalar type, the size CUDA gives it, and is registered
in :mod:`gpuarr._dtypes` under its C name, so that arrays of them can be
passed to user kernels declared with ``float3 *p`` (``ElementwiseKernel``,
``ReductionKernel``), values of them as ``float3 s``, and :func:`gpuarr.tools.dtype_to_ctype` names
them.

Alignment: CUDA aligns ``float4`` to 16 bytes, ``float2`` to 8, ``double2``
to 16, ... (two and four components: the struct's size, at most 16 bytes;
one and three: the scalar's).  numpy cannot carry an alignment larger than
its fields', so the dtypes are numpy-aligned structs (``align=True``; equal
to PyCUDA's unaligned dtypes of the same fields) and CUDA's alignment is
given by :func:`cuda_alignment`; gpuarr's kernel builders refuse, before any
launch, an array of such a type whose address is not aligned as CUDA needs
(the GPU would fault on it).  Device allocations are 256-byte aligned.

``long`` is 64-bit (Linux).  ``long4``, ``longlong4``, ``ulong4``,
``ulonglong4`` and ``double4`` are deprecated by CUDA 13 (in favour of
``..._16a``/``..._32a``) but still compile; PyCUDA lacks the 3- and
4-component ``longlong``, ``ulonglong`` and ``double`` types, which are
given here too.
"""

import numpy as np

from . import _dtypes

__all__ = ["vec", "cuda_alignment", "VECTOR_TYPES"]

_FIELDS = ("x", "y", "z", "w")

#: (base name, numpy scalar type) of every family, PyCUDA's order
_FAMILIES = (
    ("char", np.int8), ("uchar", np.uint8),
    ("short", np.int16), ("ushort", np.uint16),
    ("int", np.int32), ("uint", np.uint32),
    ("long", np.int64), ("ulong", np.uint64),
    ("longlong", np.int64), ("ulonglong", np.uint64),
    ("float", np.float32), ("double", np.float64),
)

#: C name -> (dtype, scalar dtype, count, CUDA alignment in bytes)
VECTOR_TYPES = {}
_ALIGN_BY_DTYPE = {}


def _cuda_align(scalar, count):
    # vector_types.h: __align__(n * sizeof(T)) for 2 and 4 components
    # (int4, float4, long2, double2, ... at 16 bytes, the largest), none
    # for 1 and 3 (the scalar's own alignment).
    if count in (2, 4):
        return min(16, count * scalar.itemsize)
    return scalar.itemsize


def cuda_alignment(dtype):
    """CUDA's alignment in bytes of a vector type's dtype.

    Parameters
    ----------
    dtype : dtype-like or str
        A dtype of :data:`vec` (or one equal to it), or a C name such as
        ``"float4"``.

    Returns
    -------
    int
        ``16`` for ``float4``, ``8`` for ``float2``, ``4`` for ``float3``,
        ...

    Raises
    ------
    KeyError
        For anything that is not one of CUDA's vector types.
    """
    if isinstance(dtype, str) and dtype in VECTOR_TYPES:
        return VECTOR_TYPES[dtype][3]
    return _ALIGN_BY_DTYPE[np.dtype(dtype)]


class vec:  # noqa: N801 -- PyCUDA's name
    """PyCUDA's ``gpuarray.vec``: CUDA's vector types as numpy dtypes.

    ``vec.float3`` is the dtype; ``vec.make_float3(x, y, z)`` a 0-d numpy
    array of it; ``vec.filled_float3(v)``, ``vec.zeros_float3()`` and
    ``vec.ones_float3()`` fill every component (as PyOpenCL's
    ``cltypes`` does).  Names: ``char``, ``uchar``, ``short``, ``ushort``,
    ``int``, ``uint``, ``long``, ``ulong``, ``longlong``, ``ulonglong``,
    ``float``, ``double``, each with 1 to 4 components.
    ``vec.types[(numpy.dtype(numpy.float32), 3)]`` is ``vec.float3``.
    """

    types = {}
    cuda_alignment = staticmethod(cuda_alignment)


def _maker(dtype, count, name):
    def make(*args, **kwargs):
        if len(args) + len(kwargs) != count:
            raise TypeError("make_%s() takes %d components (%d given)"
                            % (name, count, len(args) + len(kwargs)))
        values = dict(zip(_FIELDS, args))
        for k, v in kwargs.items():
            if k not in _FIELDS[:count] or k in values:
                raise TypeError("make_%s() got an unexpected or repeated "
                                "component %r" % (name, k))
            values[k] = v
        return np.array(tuple(values[f] for f in _FIELDS[:count]), dtype)
    make.__name__ = "make_" + name
    make.__doc__ = ("A 0-d numpy array of dtype ``vec.%s`` from its %d "
                    "components (%s)." % (name, count,
                                          ", ".join(_FIELDS[:count])))
    return make


def _filler(make, count, name, value=None):
    if value is None:
        def filled(v):
            return make(*([v] * count))
        filled.__name__ = "filled_" + name
        filled.__doc__ = "``make_%s`` with every component ``v``." % name
    else:
        def filled():
            return make(*([value] * count))
        filled.__name__ = ("zeros_" if value == 0 else "ones_") + name
        filled.__doc__ = "``make_%s`` with every component %d." % (name, value)
    return filled


def _create():
    for base, scalar in _FAMILIES:
        sdt = np.dtype(scalar)
        for count in (1, 2, 3, 4):
            name = "%s%d" % (base, count)
            dt = np.dtype([(f, sdt) for f in _FIELDS[:count]], align=True)
            dt = _dtypes.get_or_register(name, dt)
            align = _cuda_align(sdt, count)
            VECTOR_TYPES[name] = (dt, sdt, count, align)
            # long<n> and longlong<n> are one dtype with one alignment
            _ALIGN_BY_DTYPE.setdefault(dt, align)
            vec.types.setdefault((sdt, count), dt)
            make = _maker(dt, count, name)
            setattr(vec, name, dt)
            setattr(vec, "make_" + name, staticmethod(make))
            setattr(vec, "filled_" + name, staticmethod(_filler(make, count, name)))
            setattr(vec, "zeros_" + name, staticmethod(_filler(make, count, name, 0)))
            setattr(vec, "ones_" + name, staticmethod(_filler(make, count, name, 1)))


_create()
