"""The headers gpuarr ships in ``gpuarr/include`` (layer 0, pure Python).

Three groups, by their path under ``gpuarr/include``:

``gpuarr/complex.hpp``
    gpuarr's complex type and its math. gpuarr's generated kernels carry
    its text (:func:`text`, from ``kernels/common.cu.mako``); user kernels
    ``#include <gpuarr/complex.hpp>``.
``pycuda-complex.hpp``, ``pycuda-helpers.hpp``
    PyCUDA's header names, on gpuarr's complex type.
``nvrtc/*.h``, ``nvrtc/cstdio``
    The C headers nvcc kernels include (``stdio.h``, ``math.h``,
    ``stdint.h``, ..., and C++'s ``cstdio``) written for NVRTC, which has no C library headers,
    and ``gpuarr_nvcc_compat.h``, pre-included under NVRTC, with the
    typedefs that nvcc's host headers bring (``uint``, ``ushort``,
    ``ulong``).

:func:`for_nvrtc` gives the name -> contents table handed to
``nvrtcCreateProgram`` and a digest of it for the cache key; names that
one of the given include directories provides are left out, so a real
header there wins. Files are read once per process.
"""

import hashlib
import os

__all__ = ["INCLUDE_DIR", "PRE_INCLUDE", "names", "text", "for_nvrtc",
           "for_nvcc", "digest", "reset"]

#: The directory of the shipped headers (``-I`` it to use them with nvcc).
INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "include")

#: The header NVRTC pre-includes (``-include``), shipped in ``include/nvrtc``.
PRE_INCLUDE = "gpuarr_nvcc_compat.h"

_NVRTC_SUB = "nvrtc"
_memo = {}


def _scan():
    """{include name: path} for every shipped header."""
    try:
        return _memo["scan"]
    except KeyError:
        pass
    found = {}
    for root, dirs, files in os.walk(INCLUDE_DIR):
        dirs.sort()
        rel = os.path.relpath(root, INCLUDE_DIR)
        for f in sorted(files):
            # C++'s extension-less names (<cstdio>) only among the C headers
            if not (f.endswith((".h", ".hpp"))
                    or (rel == _NVRTC_SUB and "." not in f)):
                continue
            if rel == _NVRTC_SUB:
                name = f                      # nvrtc/stdio.h is <stdio.h>
            elif rel == os.curdir:
                name = f
            else:
                name = "/".join(rel.split(os.sep) + [f])
            found[name] = os.path.join(root, f)
    _memo["scan"] = found
    return found


def names():
    """The include names of the shipped headers, sorted.

    Returns
    -------
    list of str
        Such as ``"gpuarr/complex.hpp"``, ``"pycuda-complex.hpp"``,
        ``"stdio.h"``.
    """
    return sorted(_scan())


def text(name):
    """The contents of the shipped header ``name``.

    Parameters
    ----------
    name : str
        An include name from :func:`names`.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        No such shipped header.
    """
    key = ("text", name)
    try:
        return _memo[key]
    except KeyError:
        pass
    with open(_scan()[name], encoding="utf-8") as f:
        out = f.read()
    _memo[key] = out
    return out


def _shadowed(name, include_dirs):
    for d in include_dirs:
        if os.path.isfile(os.path.join(d, name)):
            return True
    return False


def for_nvrtc(include_dirs=()):
    """The headers to hand to NVRTC, and their digest.

    Parameters
    ----------
    include_dirs : sequence of str
        The directories NVRTC will search (the user's, then the toolkit's
        and the wheels'). A shipped header whose name one of them holds is
        left out: the real one is used.

    Returns
    -------
    headers : tuple of (str, bytes)
        ``(include name, contents)`` pairs, sorted by name.
    digest : str
        sha256 over the names and contents (for the cache key).
    """
    include_dirs = tuple(include_dirs)
    key = ("nvrtc", include_dirs)
    hit = _memo.get(key)
    if hit is not None and hit[2] == _stamp(include_dirs, hit[0]):
        return hit[0], hit[1]
    headers = tuple((n, text(n).encode("utf-8")) for n in names()
                    if not _shadowed(n, include_dirs))
    out = (headers, digest(headers))
    _memo[key] = out + (_stamp(include_dirs, headers),)
    return out


def _stamp(include_dirs, headers):
    # which names the directories shadow now (a header may appear later)
    return tuple(n for n in names() if _shadowed(n, include_dirs))


def for_nvcc():
    """The digest of the shipped headers nvcc sees (all but ``nvrtc/``:
    nvcc gets ``-I`` :data:`INCLUDE_DIR` and has the host's C headers), for
    the cache key."""
    try:
        return _memo["nvcc"]
    except KeyError:
        pass
    nvrtc_dir = os.path.join(INCLUDE_DIR, _NVRTC_SUB)
    out = digest(tuple((n, text(n).encode("utf-8")) for n, p in
                       sorted(_scan().items())
                       if os.path.dirname(p) != nvrtc_dir))
    _memo["nvcc"] = out
    return out


def digest(headers):
    """sha256 (hex) over ``(name, contents)`` pairs."""
    h = hashlib.sha256()
    for name, data in headers:
        h.update(name.encode("utf-8") + b"\0")
        h.update(hashlib.sha256(data).digest())
    return h.hexdigest()


def reset():
    """Forget what was read (tests that edit the headers)."""
    _memo.clear()
