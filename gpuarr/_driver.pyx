# cython: language_level=3
"""The CUDA driver API, bound at run time.

``libcuda.so.1`` is opened with ``dlopen`` the first time a call needs it,
and every entry point used is resolved once into one table (``api``). Every
``CUresult`` passes through :func:`check`, which raises the exception class
that :mod:`gpuarr._errors` maps the code to, naming the call.

Each class here owns one driver handle and keeps a reference to the
:class:`Context` it was made in, so a context outlives what was allocated in
it. Handles are released in their own context (pushed for the release when
another is current). Destructors never raise: after interpreter shutdown has
begun, or once their context is gone, they drop the handle (with a warning
in the second case).
"""

from libc.stdint cimport uintptr_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset
from posix.dlfcn cimport dlopen, dlsym, dlerror, RTLD_NOW, RTLD_GLOBAL
from cpython.number cimport PyNumber_Index
from cpython.buffer cimport (PyObject_GetBuffer, PyBuffer_Release,
                             PyBUF_ANY_CONTIGUOUS, PyBUF_WRITABLE,
                             PyBUF_FORMAT, PyBUF_ND, PyBUF_STRIDES)
cimport numpy as cnp
cimport cython      # compile-time directives only (embedsignature)

from gpuarr._cuda cimport *

import atexit
import functools
import os
import sys
import threading
import warnings
import weakref

import numpy as np

from gpuarr import _config, _errors, _image
from gpuarr._argtypes import parse_arg_types

cnp.import_array()

#: The CUDA version whose ``cuda.h`` these declarations follow.
CUDA_HEADER_VERSION = 13000

cdef DriverAPI api
cdef bint _loaded = False
cdef bint _initialized = False
cdef void* _libcuda = NULL
cdef bint _finalizing = False
_load_lock = threading.Lock()


def _on_exit():
    global _finalizing
    _finalizing = True


atexit.register(_on_exit)


# The sections, one file each. Cython reads an included file in place, so
# this is still one extension module (gpuarr._driver) and the sections share
# its globals; none of the .pxi files is compiled on its own.
include "_driver_load.pxi"       # libcuda, check(), release helpers
include "_driver_device.pxi"     # Device
include "_driver_context.pxi"    # Context, the context stack, detach hooks
include "_driver_release.pxi"    # releasing handles now or from a context's queue
include "_driver_memory.pxi"     # device memory, memory pools
include "_driver_copy.pxi"       # copies and memsets
include "_driver_host.pxi"       # page-locked host memory
include "_driver_stream.pxi"     # Stream, Event
include "_driver_module.pxi"     # Module
include "_driver_link.pxi"       # Linker (cuLink*)
include "_driver_launch.pxi"     # In/Out/InOut, Function
include "_driver_ipc.pxi"        # IPC handles of memory and events, peer access
include "_driver_memkinds.pxi"   # managed memory, prefetch/advice, pointer attributes, pools
include "_driver_launchex.pxi"   # occupancy, cooperative and cluster launches
include "_driver_graph.pxi"      # host callbacks, stream capture
include "_driver_graph_nodes.pxi"  # Graph, GraphNode
include "_driver_graph_exec.pxi"   # GraphExec
include "_driver_array.pxi"      # CUDA arrays, descriptors, np_to_array
include "_driver_copy3d.pxi"     # pitched memory, 2-D memsets, peer copies
include "_driver_memcpy.pxi"     # Memcpy2D, Memcpy3D, Memcpy3DPeer
include "_driver_texture.pxi"    # TextureObject, SurfaceObject
