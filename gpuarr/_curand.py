"""cuRAND's host library and device headers, found at run time (layer 3).

Two things of cuRAND are used, neither at import:

* The host library ``libcurand`` for the tables the device API needs from
  the host: Sobol direction vectors (``curandGetDirectionVectors32/64``),
  scramble constants (``curandGetScrambleConstants32/64``) and the version
  (``curandGetVersion``). It is loaded with :mod:`ctypes` on first use, like
  NVRTC (:mod:`gpuarr._nvrtc`); none of these calls needs a GPU.
* The device headers (``curand_kernel.h`` and the CCCL headers it includes
  under NVRTC: ``nv/target``, ``cuda/std/type_traits``), whose directories
  :func:`include_dirs` gives for :class:`gpuarr.compiler.SourceModule`.

Search order for the library (first existing file wins; :func:`candidates`):
the ``nvidia-curand`` wheel (``nvidia/cu13/lib/libcurand.so.10`` for CUDA
13, ``nvidia/curand/lib/libcurand.so.10`` for CUDA 12), then the toolkit
(``$CUDA_PATH``, ``$CUDA_HOME``, ``/usr/local/cuda``: ``lib64``), then the
bare soname through the dynamic loader.  The headers are looked for where
every NVRTC compile looks, :func:`gpuarr._toolchain.default_includes` (the
toolkit's ``include`` and ``include/cccl``, then the wheels'
``nvidia/cu13/include``, ``nvidia/cu13/include/cccl``,
``nvidia/curand/include``, ``nvidia/cuda_cccl/include``, ...), in its
order, so the generators compile against the ``curand_kernel.h`` that a
kernel of one's own including it gets.
"""

import os
import threading

import numpy as np

from . import _toolchain
from ._errors import RuntimeError as _GpuarrRuntimeError

__all__ = ["CurandNotFoundError", "CurandError", "candidates", "load",
           "version", "direction_vectors", "scramble_constants",
           "include_dirs", "reset", "DIMENSIONS", "VECTOR_32",
           "SCRAMBLED_VECTOR_32", "VECTOR_64", "SCRAMBLED_VECTOR_64",
           "LIBRARY_HINT", "HEADER_HINT"]

#: curandDirectionVectorSet_t values (curand.h)
VECTOR_32 = 101
SCRAMBLED_VECTOR_32 = 102
VECTOR_64 = 103
SCRAMBLED_VECTOR_64 = 104

#: Dimensions in cuRAND's direction-vector and scramble-constant tables.
DIMENSIONS = 20000

LIBRARY_HINT = ("install it with `pip install nvidia-curand` (with "
                "nvidia-cuda-runtime, whose libcudart it needs), or the CUDA "
                "toolkit")
HEADER_HINT = ("install them with `pip install nvidia-curand "
               "nvidia-cuda-cccl`, or the CUDA toolkit")

_WHEEL_DIRS = ("cu13", "curand")
_SONAMES = ("libcurand.so.10", "libcurand.so")


class CurandNotFoundError(_GpuarrRuntimeError):
    """cuRAND's library or headers were not found.

    A subclass of :class:`gpuarr._errors.RuntimeError` (hence of the builtin
    :class:`RuntimeError`); the message names the package to install.
    """


class CurandError(_GpuarrRuntimeError):
    """A cuRAND host call returned an error status (its ``code``)."""


_lock = threading.Lock()
_memo = {}


def reset():
    """Forget what was found (tests change the environment). A loaded
    library stays mapped. The header search is
    :func:`gpuarr._toolchain.default_includes`', whose memo
    :func:`gpuarr._toolchain.reset` clears."""
    with _lock:
        _memo.clear()
    _library.reset()


def _toolkit_roots():
    roots = []
    for r in _toolchain.toolkit_roots():
        if r not in roots:
            roots.append(r)
    return roots


def candidates():
    """The paths where ``libcurand`` is looked for, in order.

    Returns
    -------
    list of str
        Full paths; the bare-soname ``dlopen`` that follows is not listed.
    """
    out = []
    for base in _toolchain.nvidia_dirs():
        for sub in _WHEEL_DIRS:
            out.append(os.path.join(base, sub, "lib", "libcurand.so.10"))
    for root in _toolkit_roots():
        for name in _SONAMES:
            out.append(os.path.join(root, "lib64", name))
    return out


def _search():
    return candidates(), _SONAMES


def _declare(lib, path):
    import ctypes
    ptr = ctypes.POINTER(ctypes.c_void_p)
    return _toolchain.declare(lib, {
        "curandGetVersion": (ctypes.POINTER(ctypes.c_int),),
        "curandGetDirectionVectors32": (ptr, ctypes.c_int),
        "curandGetDirectionVectors64": (ptr, ctypes.c_int),
        "curandGetScrambleConstants32": (ptr,),
        "curandGetScrambleConstants64": (ptr,)})


def _open(path):
    import ctypes
    return ctypes.CDLL(path)


_library = _toolchain.RuntimeLibrary(
    "cuRAND", "libcurand.so.10", "nvidia-curand", _search, _open,
    CurandNotFoundError, LIBRARY_HINT, setup=_declare)


def load():
    """The loaded ``libcurand`` (a :class:`ctypes.CDLL`), loaded once.

    Returns
    -------
    ctypes.CDLL

    Raises
    ------
    CurandNotFoundError
        When no library is found or none loads (the message says which
        package to install, and why a found one did not load).
    """
    return _library.load()


def _check(status, call):
    if status != 0:
        raise CurandError("%s failed with curandStatus_t %d" % (call, status),
                          code=status)


def version():
    """cuRAND's version number, ``curandGetVersion`` (e.g. 10405).

    Raises
    ------
    CurandNotFoundError
        When the library is missing.
    """
    import ctypes
    v = ctypes.c_int()
    _check(load().curandGetVersion(ctypes.byref(v)), "curandGetVersion")
    return v.value


def _table(call, args, ctype, shape):
    """A read-only copy of one of libcurand's tables (made once)."""
    key = (call,) + tuple(args)
    hit = _memo.get(key)
    if hit is not None:
        return hit
    import ctypes
    p = ctypes.c_void_p()
    _check(getattr(load(), call)(ctypes.byref(p), *args), call)
    n = int(np.prod(shape))
    buf = (ctype * n).from_address(p.value)
    table = np.frombuffer(buf, dtype=np.dtype(ctype)).reshape(shape).copy()
    table.flags.writeable = False
    _memo[key] = table
    return table


def direction_vectors(vector_set):
    """cuRAND's whole table of Sobol direction vectors for one set.

    Parameters
    ----------
    vector_set : int
        :data:`VECTOR_32`, :data:`SCRAMBLED_VECTOR_32`, :data:`VECTOR_64` or
        :data:`SCRAMBLED_VECTOR_64`.

    Returns
    -------
    numpy.ndarray
        ``(DIMENSIONS, 32)`` uint32 or ``(DIMENSIONS, 64)`` uint64: a
        read-only copy, made once.

    Raises
    ------
    ValueError
        For another set.
    """
    import ctypes
    if vector_set in (VECTOR_32, SCRAMBLED_VECTOR_32):
        return _table("curandGetDirectionVectors32", (int(vector_set),),
                      ctypes.c_uint32, (DIMENSIONS, 32))
    if vector_set in (VECTOR_64, SCRAMBLED_VECTOR_64):
        return _table("curandGetDirectionVectors64", (int(vector_set),),
                      ctypes.c_uint64, (DIMENSIONS, 64))
    raise ValueError("unknown direction vector set %r" % (vector_set,))


def scramble_constants(bits):
    """cuRAND's scramble constants, ``(DIMENSIONS,)`` uint32 (``bits=32``)
    or uint64 (``bits=64``): a read-only copy, made once."""
    import ctypes
    if bits == 32:
        return _table("curandGetScrambleConstants32", (), ctypes.c_uint32,
                      (DIMENSIONS,))
    if bits == 64:
        return _table("curandGetScrambleConstants64", (), ctypes.c_uint64,
                      (DIMENSIONS,))
    raise ValueError("bits must be 32 or 64, not %r" % (bits,))


def include_dirs():
    """The directories NVRTC needs for ``#include <curand_kernel.h>``.

    Both are the first of :func:`gpuarr._toolchain.default_includes`
    (the directories every NVRTC compile searches after its own) that has
    them, the one search gpuarr makes for headers. They are returned (as
    ``include_dirs``) so that nvcc, which is not given those directories,
    finds them too; under NVRTC that puts the CCCL directory found ahead of
    the headers NVRTC 13.3+ bundles, as the generators were tested with.

    Returns
    -------
    tuple of str
        The directory of ``curand_kernel.h``, then (when it is another one)
        that of the CCCL headers it includes under NVRTC
        (``cuda/std/type_traits``, ``nv/target``).

    Raises
    ------
    CurandNotFoundError
        When either is missing; the message names the wheels to install
        and the directories looked in.
    """
    hit = _memo.get("includes")
    if hit is not None:
        return hit
    places = _toolchain.default_includes()
    looked = ", ".join(places) if places else "(none exist)"
    cur = next((d for d in places
                if os.path.isfile(os.path.join(d, "curand_kernel.h"))), None)
    if cur is None:
        raise CurandNotFoundError(
            "cuRAND's device headers (curand_kernel.h) were not found in the "
            "nvidia-curand wheel, $CUDA_PATH/include, $CUDA_HOME/include or "
            "/usr/local/cuda/include (looked in %s); %s"
            % (looked, HEADER_HINT))
    probe = os.path.join("cuda", "std", "type_traits")
    cccl = next((d for d in places
                 if os.path.isfile(os.path.join(d, probe))
                 and os.path.isfile(os.path.join(d, "nv", "target"))), None)
    if cccl is None:
        raise CurandNotFoundError(
            "curand_kernel.h (in %s) needs the CCCL headers under NVRTC "
            "(cuda/std/type_traits, nv/target), which were not found in the "
            "nvidia-cuda-cccl wheel or the CUDA toolkit (looked in %s); %s"
            % (cur, looked, HEADER_HINT))
    found = (cur,) if cccl == cur else (cur, cccl)
    _memo["includes"] = found
    return found
