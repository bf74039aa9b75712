"""Dask arrays with GPUArray chunks.

``import gpuarr.dask`` teaches Dask about GPUArrays (:func:`register`, run
at import): they become a chunk type of ``dask.array`` (so results of mixed
operations keep GPUArray chunks and a GPUArray meta), Dask's per-type hooks
get gpuarr's answers (element counts for ``mean``/``var``, ``sizeof``,
tokens, conversion to numpy) and, when ``distributed`` is installed,
GPUArrays travel between processes as their host bytes.  The chunk
operations themselves (``numpy.sum(chunk, axis=..., keepdims=True)``,
``numpy.concatenate``, ufuncs, ``@``, indexing) reach gpuarr through
numpy's dispatch protocols (``__array_function__``, ``__array_ufunc__``),
as for CuPy chunks.

CUDA contexts are per thread, and Dask runs tasks in threads of its own:

- the threaded scheduler: pass a :class:`ContextThreadPoolExecutor`
  (``dask.config.set(pool=ContextThreadPoolExecutor(8))`` or
  ``x.compute(pool=...)``), whose threads make a context current before
  their first task;
- ``dask.distributed``: start workers with this module as a preload
  (``LocalCluster(preload=["gpuarr.dask"])``,
  ``dask worker --preload gpuarr.dask``): :func:`dask_setup` gives each
  worker such an executor on the primary context of ``CUDA_DEVICE``.

Example::

    import dask, dask.array as da, numpy as np
    import gpuarr.autoinit, gpuarr, gpuarr.dask

    x = da.from_array(gpuarr.to_gpu(np.random.rand(4096, 4096)),
                      chunks=1024, asarray=False)
    with dask.config.set(pool=gpuarr.dask.ContextThreadPoolExecutor(4)):
        col = (np.sin(x) ** 2).sum(axis=0).compute()   # a GPUArray

Raises
------
ImportError
    On import, when Dask is not installed (``pip install "gpuarr[dask]"``).
"""

import concurrent.futures
import contextlib
import copyreg
import logging
import math
import operator
import threading

import numpy as np

try:
    import dask
    import dask.array as da
    from dask.array.backends import (ArrayBackendEntrypoint,
                                     array_creation_dispatch)
    from dask.array.chunk_types import register_chunk_type
    from dask.array.dispatch import (nannumel_lookup, numel_lookup,
                                     take_lookup, to_numpy_dispatch)
    from dask.sizeof import sizeof
except ImportError as _e:        # pragma: no cover - CI has Dask
    raise ImportError(
        'gpuarr.dask needs Dask: pip install "gpuarr[dask]" (or '
        'pip install "dask[array]" distributed)') from _e

from . import _config
from . import driver as _drv
from ._array import GPUArray
from ._creation import empty, full_like, to_gpu
from ._selection import take

__all__ = ["register", "ContextThreadPoolExecutor", "dask_setup",
           "local_cluster", "GPUArrBackendEntrypoint", "numel", "nannumel",
           "serialize", "deserialize"]

_lock = threading.Lock()
_registered = False
# the context for threads that have none (see _home_context)
_home = None


def register():
    """Register GPUArray with Dask; run by ``import gpuarr.dask``.

    Idempotent.  Registers GPUArray as a ``dask.array`` chunk type
    (``register_chunk_type``), gpuarr's element count for ``mean``, ``var``
    and ``std`` (``numel_lookup``; ``nannumel_lookup`` for the nan-forms),
    ``take`` with Dask's host index arrays uploaded (``take_lookup``),
    ``.get()`` for ``to_numpy_dispatch`` (``Array.to_backend("numpy")``),
    ``nbytes`` for ``dask.sizeof``, a token from the host values for
    ``dask.base.tokenize`` (as Dask hashes a numpy array's values; give
    ``da.from_array`` a ``name`` to skip the copy), pickling that works
    on threads with no context current (``copyreg``: a task graph holding
    a GPUArray is unpickled on ``distributed``'s event loop threads; the
    array is made in the home context there), and, where
    ``distributed`` is importable, its ``dask`` serialization family
    (:func:`serialize`); and the ``"gpuarr"`` array backend
    (:class:`GPUArrBackendEntrypoint`).

    Returns
    -------
    None
    """
    global _registered
    with _lock:
        if _registered:
            return
        register_chunk_type(GPUArray)
        numel_lookup.register(GPUArray, numel)
        nannumel_lookup.register(GPUArray, nannumel)
        take_lookup.register(GPUArray, _take)
        to_numpy_dispatch.register(GPUArray, _to_numpy)
        sizeof.register(GPUArray, _sizeof)
        _normalize_token().register(GPUArray, _token)
        # pickles made and loaded on threads with no context current (the
        # scheduler's and workers' event loops unpickle task graphs)
        copyreg.pickle(GPUArray, _reduce)
        array_creation_dispatch.register_backend("gpuarr",
                                                 GPUArrBackendEntrypoint())
        try:
            from distributed.protocol import dask_deserialize, dask_serialize
        except ImportError:
            pass
        else:
            dask_serialize.register(GPUArray, serialize)
            dask_deserialize.register(GPUArray, deserialize)
        _registered = True


def _normalize_token():
    try:
        from dask.tokenize import normalize_token
    except ImportError:          # pragma: no cover - Dask before 2024.2
        from dask.base import normalize_token
    return normalize_token


def _take(a, indices, axis=None):
    # Dask's fancy indexing passes the graph's host index arrays
    if isinstance(indices, np.ndarray):
        indices = to_gpu(indices)
    return take(a, indices, axis=axis)


def _reduce(x):
    with _some_context():
        host = x.get()
    return (_unpickle, (host,))


def _unpickle(host):
    with _some_context():
        return to_gpu(host)


def _to_numpy(x, **kwargs):
    return x.get()


def _sizeof(x):
    return int(x.nbytes)


def _token(x):
    with _some_context():
        host = x.get()
    return ("gpuarr.GPUArray", _normalize_token()(host))


def numel(x, axis=None, keepdims=False, dtype=np.float64, **kwargs):
    """The number of elements a reduction over ``axis`` of ``x`` combines:
    Dask's ``numel`` for GPUArray chunks.

    Dask's default answers with a numpy array, which gpuarr would refuse to
    mix with the chunk's GPUArray sums; this one answers like the sums do.

    Parameters
    ----------
    x : GPUArray
        The chunk (only its shape is read).
    axis : int or tuple of ints, optional
        The reduced axes; None for all.
    keepdims : bool, optional
        Keep the reduced axes with length one.
    dtype : dtype-like, optional
        Of the count (default float64, as Dask's).
    **kwargs
        Other arguments of the reduction, ignored.

    Returns
    -------
    numpy scalar or GPUArray
        A numpy scalar for ``axis=None`` without ``keepdims``; else a
        GPUArray of the reduced shape filled with the count.
    """
    shape = x.shape
    if axis is None:
        n = np.prod(shape, dtype=dtype)   # Dask's: dtype=None counts in int
        if not keepdims:
            return n
        return full_like(x, n, dtype=dtype, shape=(1,) * len(shape))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(a % len(shape) for a in axes) if shape else ()
    n = math.prod(shape[a] for a in axes)
    if keepdims:
        out = tuple(1 if i in axes else s for i, s in enumerate(shape))
    else:
        out = tuple(s for i, s in enumerate(shape) if i not in axes)
    return full_like(x, n, dtype=dtype, shape=out)


def nannumel(x, **kwargs):
    """The number of non-NaN elements a reduction combines: Dask's
    ``nannumel`` for GPUArray chunks (``sum(~isnan(x))``).

    Parameters
    ----------
    x : GPUArray
    **kwargs
        The reduction's ``axis``, ``keepdims`` and ``dtype``.

    Returns
    -------
    GPUArray or numpy scalar
        As ``numpy.sum`` of the mask with those arguments.
    """
    return np.sum(~np.isnan(x), **kwargs)


def _home_context():
    """The context given to threads that have none: the one current in the
    thread that first asks, else the primary context of ``CUDA_DEVICE``
    (retained once, for the life of the process, as gpuarr.autoinit's)."""
    global _home
    with _lock:
        if _home is None:
            _drv.init()
            cur = _drv.Context.get_current()
            _home = cur if cur is not None else \
                _drv.Device(_config.device()).retain_primary_context()
        return _home


@contextlib.contextmanager
def _some_context():
    """Make the home context current for the block when none is."""
    if _drv.Context.get_current() is not None:
        yield
        return
    _home_context().push()
    try:
        yield
    finally:
        _drv.Context.pop()


def _run_in(ctx, fn, args, kwargs):
    # a pool thread's task: its context is made current once, then kept
    if _drv.Context.get_current() is None:
        ctx.push()
    return fn(*args, **kwargs)


class _ContextSubmit:
    """The ``submit`` of an executor whose threads run in one context."""

    _gpuarr_context = None

    def submit(self, fn, /, *args, **kwargs):
        """Run ``fn(*args, **kwargs)`` in a pool thread that has this
        executor's context current (made current before the thread's first
        task and kept; a task may push others over it).

        Returns
        -------
        concurrent.futures.Future
        """
        return super().submit(_run_in, self._gpuarr_context, fn, args,
                              kwargs)


class ContextThreadPoolExecutor(_ContextSubmit,
                                concurrent.futures.ThreadPoolExecutor):
    """A thread pool whose threads have a CUDA context current: the pool
    for Dask's threaded scheduler over GPUArray chunks.

    Parameters
    ----------
    max_workers : int, optional
        Number of threads (``concurrent.futures.ThreadPoolExecutor``'s
        default when None).
    context : gpuarr.driver.Context, optional
        The context the threads use; default the one current in the
        calling thread, else the primary context of ``CUDA_DEVICE``.
    **kwargs
        Passed to ``concurrent.futures.ThreadPoolExecutor``
        (``thread_name_prefix``, ...).

    Raises
    ------
    gpuarr.driver.DriverNotFoundError
        When there is no CUDA driver.

    Examples
    --------
    >>> pool = ContextThreadPoolExecutor(8)          # doctest: +SKIP
    >>> with dask.config.set(pool=pool):             # doctest: +SKIP
    ...     total = x.sum().compute()
    """

    def __init__(self, max_workers=None, context=None, **kwargs):
        super().__init__(max_workers, **kwargs)
        if context is None:
            context = _drv.Context.get_current() or _home_context()
        self._gpuarr_context = context

    @property
    def context(self):
        """The :class:`~gpuarr.driver.Context` the threads use."""
        return self._gpuarr_context


def _with_gpuarr_meta(name, *args, meta=None, **kwargs):
    # Dask's creation function with a GPUArray meta: its chunks are made by
    # numpy's *_like functions on the meta, which dispatch to gpuarr
    if meta is None:
        meta = empty((), np.float64)
    with dask.config.set({"array.backend": "numpy"}):
        return getattr(da, name)(*args, meta=meta, **kwargs)


def _to_gpuarr(x, **kwargs):
    return x if isinstance(x, GPUArray) else to_gpu(np.asarray(x))


class GPUArrBackendEntrypoint(ArrayBackendEntrypoint):
    """Dask's ``"gpuarr"`` array backend: creation with GPUArray chunks.

    With ``dask.config.set({"array.backend": "gpuarr"})``, ``da.ones``,
    ``da.zeros``, ``da.empty``, ``da.full`` and ``da.arange`` make arrays
    whose chunks (and meta) are GPUArrays; ``x.to_backend("gpuarr")`` copies
    a numpy-backed dask array's chunks to the device, chunk by chunk, as
    its tasks run.  Registered by :func:`register` (no entry point is
    needed).  Dask's random generators are not provided
    (``RandomState`` and ``default_bit_generator`` raise
    ``NotImplementedError``): make numpy chunks and convert them with
    ``to_backend("gpuarr")``.
    """

    @classmethod
    def to_backend_dispatch(cls):
        """The per-chunk conversion: a GPUArray as it is, anything else
        through ``numpy.asarray`` and :func:`gpuarr.to_gpu`."""
        return _to_gpuarr

    @classmethod
    def to_backend(cls, data, **kwargs):
        """``data`` (a dask array) with GPUArray chunks.

        Parameters
        ----------
        data : dask.array.Array
        **kwargs
            Passed to ``map_blocks``.

        Returns
        -------
        dask.array.Array
            ``data`` itself when its meta is a GPUArray.
        """
        if isinstance(data._meta, GPUArray):
            return data
        meta = empty((0,) * data.ndim, data.dtype)
        return data.map_blocks(_to_gpuarr, meta=meta, **kwargs)

    @property
    def RandomState(self):
        """Not provided: raises ``NotImplementedError``."""
        raise NotImplementedError(
            "the gpuarr Dask backend has no random generators: make numpy "
            "chunks and convert them with .to_backend('gpuarr')")

    @property
    def default_bit_generator(self):
        """Not provided: raises ``NotImplementedError``."""
        return self.RandomState

    @staticmethod
    def ones(*args, **kwargs):
        """``da.ones`` with GPUArray chunks."""
        return _with_gpuarr_meta("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args, **kwargs):
        """``da.zeros`` with GPUArray chunks."""
        return _with_gpuarr_meta("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args, **kwargs):
        """``da.empty`` with GPUArray chunks."""
        return _with_gpuarr_meta("empty", *args, **kwargs)

    @staticmethod
    def full(*args, **kwargs):
        """``da.full`` with GPUArray chunks."""
        return _with_gpuarr_meta("full", *args, **kwargs)

    @staticmethod
    def arange(*args, like=None, **kwargs):
        """``da.arange`` with GPUArray chunks (``numpy.arange(like=)``)."""
        if like is None:
            like = empty((), np.float64)
        with dask.config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=like, **kwargs)


def dask_setup(worker):
    """The ``dask.distributed`` preload hook: run tasks in a context.

    ``distributed`` calls it when a worker started with
    ``--preload gpuarr.dask`` (or ``preload=["gpuarr.dask"]``) starts.  It
    replaces the worker's default executor with one of as many threads
    whose threads have the primary context of ``CUDA_DEVICE`` current
    (``distributed``'s own thread pool, so tasks may still ``secede`` and
    ``rejoin``), and makes that context the one GPUArrays arriving from
    other processes are made in.

    Parameters
    ----------
    worker : distributed.Worker
        The worker being started.

    Returns
    -------
    None

    Raises
    ------
    gpuarr.driver.DriverNotFoundError
        When the worker's machine has no CUDA driver.
    """
    from distributed.threadpoolexecutor import ThreadPoolExecutor

    # the name keeps "ThreadPoolExecutor": distributed times such pools'
    # tasks in their threads
    class GPUArrThreadPoolExecutor(_ContextSubmit, ThreadPoolExecutor):
        pass

    ctx = _home_context()
    old = worker.executors.get("default")
    pool = GPUArrThreadPoolExecutor(
        worker.state.nthreads,
        thread_name_prefix="%s-gpuarr-threads" % (worker.name,))
    pool._gpuarr_context = ctx
    worker.executors["default"] = pool
    if old is not None and old is not pool:
        old.shutdown(wait=False)


def local_cluster(devices=None, threads_per_worker=4, memory_limit="auto",
                  dashboard_address=":0", silence_logs=logging.WARNING,
                  asynchronous=False):
    """A ``dask.distributed`` cluster on this machine with one worker
    process per GPU, each pinned to its device.

    Worker ``"gpu-<n>"`` is a ``distributed.Nanny`` whose process has
    ``CUDA_DEVICE=<n>`` in its environment and ``gpuarr.dask`` as its
    preload, so its tasks run in device n's primary context
    (:func:`dask_setup`) and the chunks it makes or receives live there.
    Chunks move between workers, and so between devices, as host bytes
    (:func:`serialize`).  gpuarr's answer to dask-cuda's
    ``LocalCUDACluster``, without its device-memory spilling.

    Parameters
    ----------
    devices : iterable of int, optional
        The device ordinals, one worker each, in order.  Default: every
        device the driver lists.
    threads_per_worker : int
        Task threads per worker (each with the device's context current).
    memory_limit : str or int
        Each worker's host memory limit (``distributed``'s
        ``memory_limit``).
    dashboard_address : str
        The scheduler's dashboard address; ``":0"`` picks a free port.
    silence_logs : int
        The log level below which the cluster's messages are dropped.
    asynchronous : bool
        An asynchronous cluster (``await`` it), as ``distributed``'s.

    Returns
    -------
    distributed.SpecCluster
        Started; pass it to ``distributed.Client``, close it (or use it as
        a context manager) when done.

    Raises
    ------
    ImportError
        When ``distributed`` is not installed.
    ValueError
        For no devices or a device listed twice.
    TypeError
        For a device that is not an integer.
    """
    import distributed

    if devices is None:
        _drv.init()
        devices = range(_drv.Device.count())
    devices = [operator.index(d) for d in devices]
    if not devices:
        raise ValueError("local_cluster needs at least one device")
    if len(set(devices)) != len(devices):
        raise ValueError("a device is listed twice: %r" % (devices,))
    workers = {
        "gpu-%d" % d: {"cls": distributed.Nanny, "options": {
            "nthreads": threads_per_worker, "memory_limit": memory_limit,
            "preload": ["gpuarr.dask"], "env": {"CUDA_DEVICE": str(d)}}}
        for d in devices}
    scheduler = {"cls": distributed.Scheduler,
                 "options": {"dashboard_address": dashboard_address}}
    return distributed.SpecCluster(workers=workers, scheduler=scheduler,
                                   silence_logs=silence_logs,
                                   asynchronous=asynchronous,
                                   name="gpuarr-local")


def serialize(x):
    """``distributed``'s ``dask`` serialization of a GPUArray: its values
    as one host frame (C order).

    Parameters
    ----------
    x : GPUArray

    Returns
    -------
    header : dict
        ``shape`` and ``dtype`` (numpy's ``dtype.str``).
    frames : list of memoryview
        One frame of ``x.nbytes`` bytes.
    """
    with _some_context():
        host = np.ascontiguousarray(x.get())
    return ({"shape": tuple(x.shape), "dtype": x.dtype.str},
            [memoryview(host.reshape(-1).view(np.uint8))])


def deserialize(header, frames):
    """A GPUArray from :func:`serialize`'s header and frame, made in the
    current context, or in the worker's (:func:`dask_setup`) or process's
    home context when the receiving thread has none.

    Parameters
    ----------
    header : dict
    frames : list of bytes-like

    Returns
    -------
    GPUArray
    """
    dtype = np.dtype(header["dtype"])
    data = frames[0] if len(frames) == 1 else b"".join(frames)
    host = np.frombuffer(data, dtype=dtype).reshape(header["shape"])
    with _some_context():
        return to_gpu(host)


register()
