"""PyCUDA's ``pycuda.tools`` helpers beyond the pools (layer 2).

Re-exported by :mod:`gpuarr.tools`, where PyCUDA has them: the default
context (:func:`make_default_context`), the device's limits
(:class:`DeviceData`) and PyCUDA's occupancy arithmetic
(:class:`OccupancyRecord`), C type names of dtypes (:func:`dtype_to_ctype`,
:func:`get_or_register_dtype`, :func:`register_dtype`, on the table of
:mod:`gpuarr._dtypes`), and the pytest helpers (:func:`mark_cuda_test`,
:func:`init_cuda_context_fixture`).
"""

import functools
import gc
import warnings

import numpy as np

from . import _config, _dtypes, _vectypes  # noqa: F401 (_vectypes registers)
from . import driver as _drv
from ._enums import device_attribute as _attr

__all__ = ["make_default_context", "get_default_device", "bitlog2",
           "DeviceData", "OccupancyRecord",
           "dtype_to_ctype", "get_or_register_dtype", "register_dtype",
           "mark_cuda_test", "init_cuda_context_fixture"]


# ---------------------------------------------------------------------------
# the default context

def make_default_context(ctx_maker=None):
    """Make a context on the default device and return it (PyCUDA's
    ``make_default_context``).

    With ``CUDA_DEVICE`` naming a device other than 0, the context is made
    on that device; otherwise on the first device, in ordinal order, where
    ``ctx_maker`` succeeds.  PyCUDA also reads ``~/.cuda_device``; gpuarr
    reads only ``CUDA_DEVICE`` (once, at import: :mod:`gpuarr._config`).

    Parameters
    ----------
    ctx_maker : callable, optional
        ``ctx_maker(device) -> Context``; default
        ``device.make_context()`` (a new context, made current, as in
        PyCUDA).  ``lambda dev: dev.retain_primary_context()`` shares the
        device's primary context instead (then call ``push()``).

    Returns
    -------
    Context
        What ``ctx_maker`` returned.

    Raises
    ------
    RuntimeError
        When the driver reports no device, or ``ctx_maker`` raised a
        :class:`gpuarr.driver.Error` on every device.
    ValueError
        When ``CUDA_DEVICE`` is not a device ordinal.
    """
    make = _new_context if ctx_maker is None else ctx_maker
    _drv.init()
    count = _drv.Device.count()
    if count == 0:
        raise RuntimeError("make_default_context: the CUDA driver sees no "
                           "device (is a GPU visible to this process?)")
    if _config.settings.cuda_device.strip() != "0":
        # CUDA_DEVICE chose the device: no fallback to the others
        return make(_drv.Device(_config.device()))
    reasons = []
    for ordinal in range(count):
        try:
            return make(_drv.Device(ordinal))
        except _drv.Error as exc:
            reasons.append("device %d: %s" % (ordinal, exc))
    raise RuntimeError("make_default_context: ctx_maker failed on every one "
                       "of the %d devices (%s)" % (count, "; ".join(reasons)))


def _new_context(dev):
    return dev.make_context()


def get_default_device(default=0):
    """The device ``CUDA_DEVICE`` names, else ``Device(default)``
    (PyCUDA's deprecated ``get_default_device``).

    Parameters
    ----------
    default : int, optional
        The ordinal used when ``CUDA_DEVICE`` is unset or 0.

    Returns
    -------
    gpuarr.driver.Device

    Warns
    -----
    DeprecationWarning
        Always: use :func:`make_default_context`.

    Raises
    ------
    ValueError
        When ``CUDA_DEVICE`` is not a device ordinal.
    """
    warnings.warn("gpuarr.tools.get_default_device is kept for PyCUDA "
                  "code only: make a context with make_default_context()",
                  DeprecationWarning, stacklevel=2)
    if _config.settings.cuda_device.strip() != "0":
        return _drv.Device(_config.device())
    return _drv.Device(int(default))


def bitlog2(n):
    """``floor(log2(n))`` of a positive integer (PyCUDA's ``bitlog2``).

    Exact for any size of integer (from ``int.bit_length``); PyCUDA's
    looks the bits up in a table.

    Parameters
    ----------
    n : int
        Converted with ``int()`` first (a float is truncated).

    Returns
    -------
    int
        The index of ``n``'s highest set bit: ``2**r <= n < 2**(r + 1)``.

    Raises
    ------
    ValueError
        For ``n < 1``.
    """
    n = int(n)
    if n < 1:
        raise ValueError("bitlog2 needs a positive integer, got %d" % n)
    return n.bit_length() - 1


# ---------------------------------------------------------------------------
# device data and occupancy

def _ceil_div(value, divisor):
    return -(-value // divisor)


def _ceil_to(value, multiple):
    return _ceil_div(value, multiple) * multiple


#: bytes of the memory segment a warp's coalesced access of words of each
#: size falls in (CUDA C Programming Guide, compute capability 1.2/1.3
#: coalescing rules, which PyCUDA's helpers follow)
_SEGMENT_BYTES = {4: 64, 8: 128, 16: 128}


class DeviceData:
    """A device's limits, for launch-size arithmetic (PyCUDA's
    ``DeviceData``).

    Parameters
    ----------
    dev : gpuarr.driver.Device, optional
        Default: the current context's device.

    Attributes
    ----------
    max_threads : int
        ``MAX_THREADS_PER_BLOCK``.
    warp_size : int
        ``WARP_SIZE``.
    warps_per_mp : int
        Resident warps per multiprocessor:
        ``MAX_THREADS_PER_MULTIPROCESSOR // warp_size`` (PyCUDA: a table by
        compute capability, 64 from 3.0 on, which is the same on current
        GPUs).
    thread_blocks_per_mp : int
        ``MAX_BLOCKS_PER_MULTIPROCESSOR`` (PyCUDA: always 8, the limit of
        the GPUs of its day; 32 on an H100/H200).
    registers : int
        ``MAX_REGISTERS_PER_BLOCK``.
    shared_memory : int
        ``MAX_SHARED_MEMORY_PER_BLOCK`` (bytes).
    smem_alloc_granularity, smem_granularity : int
        128 and 32 bytes (PyCUDA's values for compute capability >= 2.0).
    register_allocation_unit : str
        ``"warp"`` (compute capability >= 2.0).

    Raises
    ------
    gpuarr.driver.InvalidContextError
        Without ``dev`` and with no current context.
    """

    def __init__(self, dev=None):
        if dev is None:
            dev = _drv.Context.get_device()
        get = dev.get_attribute
        self.max_threads = get(_attr.MAX_THREADS_PER_BLOCK)
        self.warp_size = get(_attr.WARP_SIZE)
        self.warps_per_mp = (get(_attr.MAX_THREADS_PER_MULTIPROCESSOR)
                             // self.warp_size)
        self.thread_blocks_per_mp = get(_attr.MAX_BLOCKS_PER_MULTIPROCESSOR)
        self.registers = get(_attr.MAX_REGISTERS_PER_BLOCK)
        self.shared_memory = get(_attr.MAX_SHARED_MEMORY_PER_BLOCK)
        self.smem_alloc_granularity = 128
        self.smem_granularity = 32
        self.register_allocation_unit = "warp"

    def align_bytes(self, word_size=4):
        """Bytes a coalesced access of ``word_size``-byte words is aligned
        to: 64 for 4-byte words, 128 for 8 and 16.

        Raises
        ------
        ValueError
            For another word size.
        """
        try:
            return _SEGMENT_BYTES[word_size]
        except (KeyError, TypeError):
            raise ValueError("align_bytes: word_size must be 4, 8 or 16 "
                             "bytes, not %r" % (word_size,)) from None

    def align(self, bytes, word_size=4):  # noqa: A002 -- PyCUDA's name
        """``bytes`` rounded up to a multiple of :meth:`align_bytes`."""
        return _ceil_to(bytes, self.align_bytes(word_size))

    def align_words(self, word_size):
        """:meth:`align_bytes` in words of ``word_size`` bytes."""
        # every segment size is a multiple of the word sizes it admits
        return self.align_bytes(word_size) // word_size

    def align_dtype(self, elements, dtype_size):
        """``elements`` rounded up to a multiple of :meth:`align_words` of
        ``dtype_size``."""
        return _ceil_to(elements, self.align_words(dtype_size))

    def coalesce(self, thread_count):
        """``thread_count`` rounded up to a multiple of 16 (a half warp)."""
        return _ceil_to(thread_count, 16)

    @staticmethod
    def make_valid_tex_channel_count(size):
        """The smallest texture channel count (1, 2 or 4) of at least
        ``size``.

        Raises
        ------
        ValueError
            For ``size`` over 4.
        """
        if size > 4:
            raise ValueError("a texture element has 1, 2 or 4 channels; %r "
                             "do not fit" % (size,))
        if size <= 1:
            return 1
        return 2 if size <= 2 else 4

    def __repr__(self):
        return ("<DeviceData max_threads=%d warp_size=%d warps_per_mp=%d "
                "thread_blocks_per_mp=%d registers=%d shared_memory=%d>"
                % (self.max_threads, self.warp_size, self.warps_per_mp,
                   self.thread_blocks_per_mp, self.registers,
                   self.shared_memory))


class OccupancyRecord:
    """PyCUDA's occupancy estimate of a launch (``OccupancyRecord``).

    Parameters
    ----------
    devdata : DeviceData
        Or any object with its attributes.
    threads : int
        Threads per block, ``1 <= threads <= devdata.max_threads``.
    shared_mem : int
        Shared memory per block in bytes.
    registers : int
        Registers per thread.

    Attributes
    ----------
    tb_per_mp_limits : list of (int, str)
        Blocks per multiprocessor allowed by each limit: ``"device"``,
        ``"warps"``, ``"regs"`` (when ``registers > 0``), ``"smem"`` (when
        ``shared_mem > 0``).
    tb_per_mp : int
        The smallest of them; ``limited_by`` names it (on a tie, the name
        first in alphabetical order, as in PyCUDA).
    warps_per_mp : int
        ``tb_per_mp`` times the block's warps.
    occupancy : float
        ``warps_per_mp / devdata.warps_per_mp``.

    Raises
    ------
    ValueError
        A block over ``max_threads`` ("too many threads ..."), over the
        registers ("too many registers ...") or the shared memory ("too
        much smem ...") there is, or with fewer than one thread.
    """

    def __init__(self, devdata, threads, shared_mem=0, registers=0):
        if threads > devdata.max_threads:
            raise ValueError("too many threads: %d in a block, the device "
                             "allows %d" % (threads, devdata.max_threads))
        if threads < 1:
            raise ValueError("a block needs at least one thread, not %d"
                             % threads)
        # What one block takes of a multiprocessor.  Threads are scheduled
        # in whole warps; registers are handed out per warp (or, on
        # compute capability 1.x, per pair of warps); shared memory in
        # units of smem_alloc_granularity bytes.
        warps = _ceil_div(threads, devdata.warp_size)
        unit = devdata.register_allocation_unit
        if unit == "warp":
            warps_holding_registers = warps
        elif unit == "block":
            warps_holding_registers = _ceil_to(warps, 2)
        else:
            raise ValueError("register_allocation_unit must be 'warp' or "
                             "'block', not %r" % (unit,))
        block_regs = warps_holding_registers * devdata.warp_size * registers
        block_smem = _ceil_to(shared_mem, devdata.smem_alloc_granularity)
        if block_regs > devdata.registers:
            raise ValueError("too many registers: a block needs %d, the "
                             "device has %d" % (block_regs, devdata.registers))
        if block_smem > devdata.shared_memory:
            raise ValueError("too much smem: a block needs %d bytes, the "
                             "device allows %d"
                             % (block_smem, devdata.shared_memory))
        # Blocks resident at once: the device's own cap, and how many
        # blocks' worth of each resource there is; a resource the block
        # does not use sets no limit.
        self.tb_per_mp_limits = [(devdata.thread_blocks_per_mp, "device")]
        for name, have, need in (("warps", devdata.warps_per_mp, warps),
                                 ("regs", devdata.registers, block_regs),
                                 ("smem", devdata.shared_memory, block_smem)):
            if need > 0:
                self.tb_per_mp_limits.append((have // need, name))
        self.tb_per_mp, self.limited_by = min(self.tb_per_mp_limits)
        self.warps_per_mp = self.tb_per_mp * warps
        self.occupancy = self.warps_per_mp / devdata.warps_per_mp

    def __repr__(self):
        return ("<OccupancyRecord tb_per_mp=%d limited_by=%r occupancy=%.3f>"
                % (self.tb_per_mp, self.limited_by, self.occupancy))


# ---------------------------------------------------------------------------
# C type names

_TEX_HACK = {np.dtype(np.float32): "fp_tex_float",
             np.dtype(np.float64): "fp_tex_double",
             np.dtype(np.complex64): "fp_tex_cfloat",
             np.dtype(np.complex128): "fp_tex_cdouble"}


def dtype_to_ctype(dtype, with_fp_tex_hack=False):
    """The C type name of ``dtype`` (PyCUDA's ``dtype_to_ctype``).

    PyCUDA's names on 64-bit Linux: ``int64`` is ``"long"``, ``uint16``
    ``"unsigned short"``, ``int8`` ``"signed char"``, ``complex64``
    ``"pycuda::complex<float>"``, CUDA's vector types by their names
    (``"float3"``), and structs by the first name given to
    :func:`get_or_register_dtype`.  float16 has no name here, as in PyCUDA
    (gpuarr's own kernels call it ``ga_half``).

    Parameters
    ----------
    dtype : dtype-like
    with_fp_tex_hack : bool
        Name float32, float64, complex64 and complex128 ``fp_tex_float``,
        ``fp_tex_double``, ``fp_tex_cfloat``, ``fp_tex_cdouble`` (the types
        of PyCUDA's ``pycuda-helpers.hpp`` for texture fetches).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        For None or a dtype without a registered name.
    """
    if dtype is None:
        raise ValueError("dtype_to_ctype needs a dtype, got None")
    dt = np.dtype(dtype)
    if with_fp_tex_hack and dt in _TEX_HACK:
        return _TEX_HACK[dt]
    name = _dtypes.registered_name(dt)
    if name is None:
        raise ValueError("dtype %s has no C type name (register one with "
                         "get_or_register_dtype)" % (dt,))
    return name


def get_or_register_dtype(c_names, dtype=None):
    """Look up the dtype of C type names, or give a dtype C names
    (PyCUDA's ``get_or_register_dtype``).

    A registered struct dtype may then be declared by name in user kernels'
    argument lists (``"my_struct *p"`` for an array of them,
    ``"my_struct s"`` for one by value) and arrays of it created; the struct
    itself is defined in the kernel's ``preamble``.

    Parameters
    ----------
    c_names : str or list of str
    dtype : dtype-like, optional
        None to look up.

    Returns
    -------
    numpy.dtype

    Raises
    ------
    KeyError
        Looking up an unknown name.
    RuntimeError
        A name already registered to another dtype.
    """
    return _dtypes.get_or_register(c_names, dtype)


def register_dtype(dtype, c_names, alias_ok=False):
    """Deprecated form of :func:`get_or_register_dtype` (PyCUDA's
    ``register_dtype``; warns with DeprecationWarning).

    Note the argument order, PyCUDA's: ``dtype`` first, unlike
    ``get_or_register_dtype(c_names, dtype)``.

    Parameters
    ----------
    dtype : dtype-like
        The dtype to name.
    c_names : str or list of str
        Its C type names; the first becomes the dtype's name.
    alias_ok : bool, optional
        Allow adding names to a dtype that has one already.

    Raises
    ------
    RuntimeError
        When ``dtype`` already has a name and ``alias_ok`` is false, or a
        name is registered to another dtype.
    TypeError
        For an empty list of names or a name that is not a str.
    """
    warnings.warn("gpuarr.tools.register_dtype is kept for PyCUDA code "
                  "only: call get_or_register_dtype(c_names, dtype)",
                  DeprecationWarning, stacklevel=2)
    if isinstance(c_names, str):
        c_names = [c_names]
    dt = np.dtype(dtype)
    old = _dtypes.registered_name(dt)
    if not alias_ok and old is not None:
        raise RuntimeError("register_dtype: %s has the C name '%s' already; "
                           "alias_ok=True adds %s to it"
                           % (dt, old, ", ".join(repr(c) for c in c_names)))
    _dtypes.get_or_register(c_names, dt)


# ---------------------------------------------------------------------------
# pytest helpers

def init_cuda_context_fixture():
    """A generator for a pytest fixture: a fresh default context is current
    while the test runs (PyCUDA's ``init_cuda_context_fixture``)::

        @pytest.fixture(autouse=True)
        def init_cuda_context():
            yield from gpuarr.tools.init_cuda_context_fixture()

    Yields the :class:`~gpuarr.driver.Context` of
    :func:`make_default_context`; afterwards it is popped and detached,
    :func:`gpuarr.tools.clear_context_caches` runs and garbage is
    collected.
    """
    from . import tools
    ctx = make_default_context()
    try:
        yield ctx
    finally:
        try:
            if _drv.Context.get_current() == ctx:
                _drv.Context.pop()
        finally:
            ctx.detach()
            tools.clear_context_caches()
            gc.collect()


def mark_cuda_test(inner_f):
    """Decorator: run the test in a fresh default context (PyCUDA's
    ``mark_cuda_test``), as :func:`init_cuda_context_fixture` does, and
    mark it ``pytest.mark.cuda`` when pytest is importable.

    Parameters
    ----------
    inner_f : callable
        The test function.

    Returns
    -------
    callable
        The wrapped test: a context is made (:func:`make_default_context`)
        and current while it runs, and detached after, even when it raises.

    Raises
    ------
    RuntimeError
        From the wrapped call, when no device can give a context.
    """
    @functools.wraps(inner_f)
    def in_fresh_context(*args, **kwargs):
        fixture = init_cuda_context_fixture()
        next(fixture)                   # the new context is current
        try:
            return inner_f(*args, **kwargs)
        finally:
            fixture.close()             # pop, detach, clear the caches
    try:
        import pytest
    except ImportError:
        return in_fresh_context
    return pytest.mark.cuda(in_fresh_context)
