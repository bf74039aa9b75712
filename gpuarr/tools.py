"""Memory pools for device and page-locked host memory (layer 2).

:func:`default_pool` (what arrays and their temporaries allocate from) is a
:class:`StreamOrderedMemoryPool` where the device has stream-ordered memory
pools (``cuMemAllocAsync``; CUDA 11.2+ drivers, almost every GPU), and a
:class:`DeviceMemoryPool` elsewhere or with ``GPUARR_POOL=binned``.

:class:`DeviceMemoryPool` keeps freed device blocks in size bins so the next
allocation of a similar size is one ``dict`` lookup and one ``list.pop``
instead of a ``cuMemAlloc`` (which synchronizes the device on some drivers and
costs microseconds). :class:`PageLockedMemoryPool` does the same for pinned
host buffers. Both keep PyCUDA's method names (``allocate``, ``free_held``,
``stop_holding``, ``held_blocks``, ``active_blocks``).

Binning: sizes up to 512 bytes share one bin; above that a request is rounded
up to the next multiple of a quarter of its power-of-two octave
(``2**(e-3)`` for ``2**(e-1) < n <= 2**e``), so at most 25 % of a block
is wasted while blocks of nearby sizes are still shared.

:func:`context_dependent_memoize` (PyCUDA's name) caches a function's
results per current context, on the mechanism of :mod:`gpuarr._percontext`.

PyCUDA's other tools names (:func:`make_default_context`,
:class:`DeviceData`, :class:`OccupancyRecord`, :func:`dtype_to_ctype`,
:func:`get_or_register_dtype`, :func:`register_dtype`,
:func:`mark_cuda_test`, :func:`init_cuda_context_fixture`) live in
:mod:`gpuarr._pycudatools` and are re-exported here.
"""

import functools
import gc

import numpy as np

from . import _config, _percontext
from . import driver as _drv
from ._enums import device_attribute, mem_pool_attribute
from ._pycudatools import (  # noqa: F401 -- PyCUDA's tools names
    make_default_context, get_default_device, bitlog2, DeviceData,
    OccupancyRecord, dtype_to_ctype,
    get_or_register_dtype, register_dtype, mark_cuda_test,
    init_cuda_context_fixture)

__all__ = ["DeviceMemoryPool", "PageLockedMemoryPool", "PooledDeviceAllocation",
           "PooledHostAllocation", "StreamOrderedMemoryPool", "bin_size",
           "default_pool", "context_dependent_memoize",
           "clear_context_caches", "make_default_context",
           "get_default_device", "bitlog2", "DeviceData",
           "OccupancyRecord", "dtype_to_ctype", "get_or_register_dtype",
           "register_dtype", "mark_cuda_test", "init_cuda_context_fixture"]

_MIN_BLOCK = 512
_BIN_CACHE = {}


def bin_size(nbytes):
    """Return the block size a request of ``nbytes`` bytes is served from.

    Parameters
    ----------
    nbytes : int
        Requested size in bytes, ``>= 0``.

    Returns
    -------
    int
        ``512`` for requests up to 512 bytes; otherwise ``nbytes`` rounded up
        to a multiple of ``2**(e-3)`` where ``2**(e-1) < nbytes <= 2**e``.

    Raises
    ------
    ValueError
        If ``nbytes`` is negative.
    """
    size = _BIN_CACHE.get(nbytes)
    if size is not None:
        return size
    n = int(nbytes)
    if n < 0:
        raise ValueError("negative allocation size: %d" % n)
    if n <= _MIN_BLOCK:
        size = _MIN_BLOCK
    else:
        step = 1 << ((n - 1).bit_length() - 3)
        size = (n + step - 1) // step * step
    if len(_BIN_CACHE) < 65536:
        _BIN_CACHE[nbytes] = size
    return size


class PooledDeviceAllocation:
    """A device block lent by a :class:`DeviceMemoryPool` or a
    :class:`StreamOrderedMemoryPool`.

    ``int(block)`` (and ``block.ptr``) is the device address. The block goes
    back to its pool when this object is garbage collected or :meth:`free`
    is called, whichever happens first.

    Attributes
    ----------
    ptr : int
        Device address.
    size : int
        Size of the block in bytes (``DeviceMemoryPool``: the binned size,
        ``>=`` the request).

    Parameters
    ----------
    pool : DeviceMemoryPool or StreamOrderedMemoryPool
        The pool the block goes back to (its ``_give_back``).
    raw : object
        The underlying allocation (``int(raw)`` its device address): a
        :class:`gpuarr.driver.DeviceAllocation` or the stream-ordered
        pool's block.
    size : int
        The block's size in bytes.
    stream : gpuarr.driver.Stream, optional
        The stream a stream-ordered block belongs to (None: the default
        stream, or a :class:`DeviceMemoryPool` block).

    Notes
    -----
    Made by the pools' ``allocate``, not by user code (PyCUDA's
    ``PooledDeviceAllocation`` is likewise only returned by its pool).
    """

    __slots__ = ("ptr", "size", "_raw", "_pool", "_stream")

    def __init__(self, pool, raw, size, stream=None):
        self._pool = pool
        self._raw = raw
        self.size = size
        self.ptr = int(raw)
        self._stream = stream

    def __int__(self):
        return self.ptr

    __index__ = __int__

    def __repr__(self):
        return "<PooledDeviceAllocation 0x%x, %d bytes>" % (self.ptr, self.size)

    def free(self):
        """Return the block to its pool now (idempotent)."""
        raw = self._raw
        if raw is not None:
            self._raw = None
            self._pool._give_back(raw, self.size, self._stream)

    release = free

    def __del__(self):
        raw = self._raw
        if raw is not None:
            self._raw = None
            try:
                self._pool._give_back(raw, self.size, self._stream)
            except Exception:  # destructors never raise (interpreter shutdown)
                pass


def _keep(bins, key, raw):
    """Add a freed block to the list of its key (the pools' reuse bins)."""
    lst = bins.get(key)
    if lst is None:
        bins[key] = [raw]
    else:
        lst.append(raw)


def _free_kept(bins):
    """Give every block of the bins back to the driver, ignoring errors
    (freeing held memory is best effort)."""
    for lst in bins.values():
        for raw in lst:
            try:
                raw.free()
            except Exception:
                pass


_capture_in_progress = _drv.capture_in_progress


def _refuse_during_capture(nbytes):
    raise _drv.LogicError(
        "an array operation asked gpuarr's memory pool for %d bytes while a "
        "stream capture is in progress (Stream.begin_capture): a CUDA graph "
        "cannot own pooled memory, which gpuarr reuses as soon as the array "
        "dies. Allocate before the capture and pass out= to the operations "
        "inside it" % nbytes)


class DeviceMemoryPool:
    """Size-binned pool of device memory (PyCUDA's ``DeviceMemoryPool``).

    Parameters
    ----------
    allocator : callable, optional
        ``allocator(nbytes) -> allocation`` with ``int(allocation)`` the
        address and ``allocation.free()``; default :func:`gpuarr.driver.mem_alloc`.

    Notes
    -----
    Blocks are bound to the context that was current when they were first
    allocated; use one pool per context (:func:`default_pool` does). A pool is
    not thread safe beyond what the GIL gives to ``list.append``/``pop``.
    """

    def __init__(self, allocator=None):
        self._allocator = allocator
        self._bins = {}
        self._held = 0
        self.active_blocks = 0
        self._holding = True

    @property
    def held_blocks(self):
        """Number of free blocks kept by the pool for reuse."""
        return self._held

    def allocate(self, nbytes):
        """Return a block of at least ``nbytes`` bytes.

        Parameters
        ----------
        nbytes : int
            Requested size in bytes.

        Returns
        -------
        PooledDeviceAllocation

        Raises
        ------
        gpuarr.driver.MemoryError
            If the device is out of memory even after the pool gave back every
            block it held and a garbage collection ran.
        gpuarr.driver.LogicError
            While a stream capture is in progress.
        """
        if _capture_in_progress():
            _refuse_during_capture(nbytes)
        size = _BIN_CACHE.get(nbytes) or bin_size(nbytes)
        lst = self._bins.get(size)
        raw = None
        if lst:
            try:
                raw = lst.pop()     # another thread may have emptied it
                self._held -= 1
            except IndexError:
                pass
        if raw is None:
            raw = self._fresh(size)
        self.active_blocks += 1
        return PooledDeviceAllocation(self, raw, size)

    __call__ = allocate

    def _fresh(self, size):
        alloc = self._allocator
        if alloc is None:
            alloc = self._allocator = _drv.mem_alloc
        try:
            return alloc(size)
        except MemoryError:  # gpuarr.driver.MemoryError derives from it
            pass
        self.free_held()
        try:
            return alloc(size)
        except MemoryError:
            pass
        gc.collect()
        self.free_held()
        return alloc(size)

    def _give_back(self, raw, size, stream=None):
        self.active_blocks -= 1
        if self._holding:
            _keep(self._bins, size, raw)
            self._held += 1
        else:
            raw.free()

    def free_held(self):
        """Give every block the pool holds back to the driver."""
        bins = self._bins
        self._bins = {}
        self._held = 0
        _free_kept(bins)

    def stop_holding(self):
        """Free held blocks and free future returned blocks immediately."""
        self._holding = False
        self.free_held()

    def __repr__(self):
        return "<DeviceMemoryPool active=%d held=%d>" % (self.active_blocks,
                                                         self._held)


_SMALL_BLOCK = 1 << 20   # StreamOrderedMemoryPool keeps blocks up to this
_SMALL_CACHE_LIMIT = 64 << 20   # ... and at most this many bytes of them


class StreamOrderedMemoryPool:
    """Device memory from the device's stream-ordered pool (``cuMemAllocAsync``).

    Each block is allocated with ``cuMemAllocAsync`` on ``stream`` (default:
    the legacy default stream) and freed with ``cuMemFreeAsync`` on the same
    stream when it dies, so the driver reuses it only for work ordered after
    everything that stream queued before the free: a temporary can be
    dropped while kernels using it are still queued on that stream.  Work on
    another stream that uses the block must be ordered with the allocating
    stream (the legacy default stream is, with blocking streams).

    Parameters
    ----------
    device : gpuarr.driver.Device, optional
        Default: the current context's device.

    Raises
    ------
    gpuarr.driver.NotSupportedError
        When the driver has no stream-ordered pools.

    Notes
    -----
    The device's default pool (``cuDeviceGetDefaultMemPool``) is shared by
    every user of the device in the process.  Its ``RELEASE_THRESHOLD`` is
    raised to ``2**64 - 1`` so that freed memory stays in the pool across
    synchronizations instead of going back to the OS at each one (the
    driver's default is 0); :meth:`free_held` trims it.

    Blocks of up to 1 MiB are also kept by this object when they die (up to
    64 MiB in all), per (size, stream), and handed to the next allocation of
    that size on that stream without a driver call: the reuse the driver's pool would make
    (a block freed on a stream serves later work on the same stream), at
    the cost of a list pop instead of ``cuMemAllocAsync`` and
    ``cuMemFreeAsync``.  ``active_blocks`` counts blocks from this object
    not yet freed; ``held_bytes`` is what this object and the device's pool
    hold beyond memory in use.
    """

    def __init__(self, device=None):
        if device is None:
            device = _drv.Context.get_device()
        self.device = device
        self._attr = mem_pool_attribute
        device.get_default_mem_pool().set_attribute(
            mem_pool_attribute.RELEASE_THRESHOLD, 2 ** 64 - 1)
        self._alloc = _drv.mem_alloc_async
        self.active_blocks = 0
        self._holding = True    # keep small blocks (off after stop_holding)
        self._cache = {}        # (size, stream) -> blocks freed there
        self._cached_bytes = 0

    @property
    def mem_pool(self):
        """The :class:`gpuarr.driver.MemoryPool` blocks come from: the
        device's current pool (``cuDeviceGetMemPool``), the default one
        unless :meth:`gpuarr.driver.Device.set_mem_pool` chose another."""
        return self.device.get_mem_pool()

    @property
    def held_bytes(self):
        """Bytes the pool holds for reuse (reserved minus in use); frees
        still queued on a stream count as in use until they run."""
        a = self._attr
        pool = self.device.get_mem_pool()
        return (pool.get_attribute(a.RESERVED_MEM_CURRENT)
                - pool.get_attribute(a.USED_MEM_CURRENT)
                + self._cached_bytes)

    def allocate(self, nbytes, stream=None):
        """Return a block of ``nbytes`` bytes, ordered on ``stream``.

        Parameters
        ----------
        nbytes : int
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        PooledDeviceAllocation
            Of ``nbytes`` rounded up to a multiple of 16 bytes.

        Raises
        ------
        gpuarr.driver.MemoryError
            If the device is out of memory even after a garbage collection
            and a trim of the pool.
        gpuarr.driver.LogicError
            While a stream capture is in progress and ``stream`` is the
            capturing one or the legacy default stream.
        """
        # whole 16-byte units, as the binned pool's 512-byte minimum gives:
        # kernels may then load 16 bytes at a time, or compare-and-swap the
        # aligned 32-bit word holding a 1-byte item, at the end of a block
        nbytes = (nbytes + 15) & ~15
        raw = None
        if _capture_in_progress() and (stream is None or stream.capturing
                                       or stream.is_capturing()):
            _refuse_during_capture(nbytes)     # is_capturing: joined by an event
        if nbytes <= _SMALL_BLOCK:
            lst = self._cache.get((nbytes, stream))
            if lst:
                try:
                    raw = lst.pop()     # another thread may have emptied it
                    self._cached_bytes -= nbytes
                except IndexError:
                    pass
        if raw is None:
            try:
                raw = self._alloc(nbytes, stream)
            except MemoryError:
                gc.collect()
                self.free_held()
                try:
                    raw = self._alloc(nbytes, stream)
                except MemoryError:
                    # a failed cuMemAllocAsync may leave the driver's pool
                    # holding what it reserved trying (near the whole
                    # device, seen on the H200): give it back
                    self.device.get_mem_pool().trim_to(0)
                    raise
        self.active_blocks += 1
        return PooledDeviceAllocation(self, raw, nbytes, stream)

    __call__ = allocate

    def _give_back(self, raw, size, stream=None):
        self.active_blocks -= 1
        if (self._holding and size <= _SMALL_BLOCK
                and self._cached_bytes + size <= _SMALL_CACHE_LIMIT):
            _keep(self._cache, (size, stream), raw)
            self._cached_bytes += size
        else:
            raw.free()

    def free_held(self):
        """Free the small blocks this object keeps (``cuMemFreeAsync`` on
        their streams), synchronize the context so that queued frees run,
        then release the pool's unused memory (``cuMemPoolTrimTo(pool,
        0)``)."""
        cache = self._cache
        self._cache = {}
        self._cached_bytes = 0
        _free_kept(cache)
        _drv.Context.synchronize()
        self.device.get_mem_pool().trim_to(0)

    def stop_holding(self):
        """Keep no unused memory from now on (release threshold 0) and
        release what is held, the small blocks this object kept included."""
        self._holding = False
        self.device.get_mem_pool().set_attribute(self._attr.RELEASE_THRESHOLD, 0)
        self.free_held()

    def __repr__(self):
        return "<StreamOrderedMemoryPool active=%d>" % self.active_blocks


def _new_pool(ctx):
    """The pool a new context gets: stream-ordered where the device of
    ``ctx`` (a Context) has memory pools, unless ``GPUARR_POOL=binned``."""
    choice = _config.choice("GPUARR_POOL", _config.settings.pool)
    if choice != "binned":
        try:
            dev = ctx.get_device()
            if dev.get_attribute(device_attribute.MEMORY_POOLS_SUPPORTED):
                return StreamOrderedMemoryPool(dev)
            if choice == "async":
                raise _drv.NotSupportedError(
                    "GPUARR_POOL=async: this device has no memory pools")
        except _drv.Error:
            if choice == "async":
                raise
    return DeviceMemoryPool()


default_pool = _percontext.state(_new_pool, "default_pool", """\
Return the device memory pool of the current context.

One pool is created per context, lazily: a
:class:`StreamOrderedMemoryPool` where the device supports
``cuMemAllocAsync`` pools, else a :class:`DeviceMemoryPool`;
``GPUARR_POOL=binned`` asks for the latter, ``GPUARR_POOL=async`` for the
former (an error where there is none).  The pool is dropped when its
context is detached.

Returns
-------
DeviceMemoryPool or StreamOrderedMemoryPool

Raises
------
gpuarr.driver.InvalidContextError
    If no context is current (a :class:`gpuarr.driver.LogicError`).
ValueError
    For a ``GPUARR_POOL`` other than ``async`` or ``binned``.
""")


class PooledHostAllocation:
    """Owner of a pinned host block lent by a :class:`PageLockedMemoryPool`.

    Arrays returned by :meth:`PageLockedMemoryPool.allocate` keep this object
    as their ``base``; the block returns to the pool when the last such array
    dies.

    Parameters
    ----------
    pool : PageLockedMemoryPool
        The pool the block goes back to.
    raw : numpy.ndarray
        The pinned uint8 block (``size`` bytes) the array's data lies in.
    size : int
        The block's (binned) size in bytes.
    shape : tuple of int
        The shape of the array built over the block.
    dtype : numpy.dtype
        Its dtype.
    strides : tuple of int or None
        Its strides in bytes; None for C order.

    Notes
    -----
    Made by :meth:`PageLockedMemoryPool.allocate`, not by user code; it
    exposes the block through ``__array_interface__`` (writable).
    """

    __slots__ = ("_raw", "_pool", "size", "__array_interface__")

    def __init__(self, pool, raw, size, shape, dtype, strides):
        self._pool = pool
        self._raw = raw
        self.size = size
        self.__array_interface__ = {
            "shape": shape, "typestr": dtype.str, "version": 3,
            "data": (raw.__array_interface__["data"][0], False),
            "strides": strides}

    def __del__(self):
        raw = self._raw
        if raw is not None:
            self._raw = None
            try:
                self._pool._give_back(raw, self.size)
            except Exception:
                pass


class PageLockedMemoryPool:
    """Size-binned pool of page-locked host memory.

    Parameters
    ----------
    allocator : callable, optional
        ``allocator(shape, dtype) -> numpy.ndarray`` of pinned memory; default
        :func:`gpuarr.driver.pagelocked_empty`.
    """

    def __init__(self, allocator=None):
        self._allocator = allocator
        self._bins = {}
        self._held = 0
        self.active_blocks = 0
        self._holding = True

    @property
    def held_blocks(self):
        """Number of free blocks kept by the pool for reuse."""
        return self._held

    def allocate(self, shape, dtype, order="C"):
        """Return a pinned ``numpy.ndarray`` of ``shape`` and ``dtype``.

        Parameters
        ----------
        shape : int or tuple of int
        dtype : dtype-like
        order : {'C', 'F'}

        Returns
        -------
        numpy.ndarray
            Its memory returns to the pool when the array (and every view of
            it) is gone.
        """
        dtype = np.dtype(dtype)
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
        if any(n < 0 for n in shape):
            raise ValueError("negative dimensions are not allowed")
        if order not in ("C", "F"):
            raise ValueError("order must be 'C' or 'F'")
        nbytes = dtype.itemsize
        for n in shape:
            nbytes *= n
        size = bin_size(nbytes)
        lst = self._bins.get(size)
        raw = None
        if lst:
            try:
                raw = lst.pop()     # another thread may have emptied it
                self._held -= 1
            except IndexError:
                pass
        if raw is None:
            alloc = self._allocator
            if alloc is None:
                alloc = self._allocator = _drv.pagelocked_empty
            try:
                raw = alloc((size,), np.uint8)
            except MemoryError:
                self.free_held()
                raw = alloc((size,), np.uint8)
        self.active_blocks += 1
        strides = None
        if order == "F" and len(shape) > 1:
            strides, s = [], dtype.itemsize
            for n in shape:
                strides.append(s)
                s *= max(n, 1)
            strides = tuple(strides)
        owner = PooledHostAllocation(self, raw, size, shape, dtype, strides)
        return np.asarray(owner)

    def _give_back(self, raw, size):
        self.active_blocks -= 1
        if self._holding:
            self._bins.setdefault(size, []).append(raw)
            self._held += 1

    def free_held(self):
        """Drop every held block (the pinned memory is freed with it)."""
        self._bins = {}
        self._held = 0

    def stop_holding(self):
        """Free held blocks and stop keeping returned ones."""
        self._holding = False
        self.free_held()


# ---------------------------------------------------------------------------
# per-context memoization (PyCUDA's pycuda.tools names)

_memos = []        # the results getters of every memoized function
_KWARGS = object()  # separates positional from keyword arguments in keys


def context_dependent_memoize(func):
    """Decorator: remember ``func``'s results per current context and per
    arguments (PyCUDA's ``pycuda.tools.context_dependent_memoize``).

    The first call with some arguments in a context calls ``func``; later
    calls with equal arguments while that context is current return the
    same object.  Results are kept per :class:`~gpuarr.driver.Context` and
    dropped when it is detached, so nothing made in one context (a compiled
    kernel, device memory) is handed out in another.

    Parameters
    ----------
    func : callable
        Its positional and keyword arguments must be hashable.  A call that
        raises caches nothing.

    Returns
    -------
    callable
        The memoized function (``functools.wraps`` of ``func``), with
        ``clear_cache()`` forgetting its results in every context.

    Raises
    ------
    gpuarr.driver.InvalidContextError
        When the memoized function is called with no current context.

    See Also
    --------
    clear_context_caches : forget the results of every memoized function.

    Examples
    --------
    >>> from gpuarr.elementwise import ElementwiseKernel
    >>> @context_dependent_memoize
    ... def axpy(ctype):
    ...     return ElementwiseKernel("%s a, %s *x, %s *y" % ((ctype,) * 3),
    ...                              "y[i] = a * x[i] + y[i]")
    >>> axpy("float") is axpy("float")      # while one context is current
    True
    """
    results = _percontext.state(lambda ctx: {})

    @functools.wraps(func)
    def memoized(*args, **kwargs):
        key = args + (_KWARGS, frozenset(kwargs.items())) if kwargs else args
        memo = results()
        try:
            return memo[key]
        except KeyError:
            pass
        value = func(*args, **kwargs)
        memo[key] = value
        return value

    memoized.clear_cache = results.clear
    _memos.append(results)
    return memoized


def clear_context_caches():
    """Forget the results of every :func:`context_dependent_memoize`
    function in every context (PyCUDA's ``clear_context_caches``)."""
    for results in _memos:
        results.clear()
