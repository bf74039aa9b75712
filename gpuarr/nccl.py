"""NCCL's collectives over GPUArrays on several devices (issue 16).

NCCL (``pip install nvidia-nccl-cu13``) is loaded at the first call, as
cuBLAS and cuSOLVER are (:mod:`gpuarr._nccl`).  Two ways in:

* one process driving several GPUs: :func:`all_reduce` takes one array a
  device and leaves the reduction on each (a communicator over those
  devices is made at the first call and kept);
* one process a GPU (Dask workers, MPI ranks): each makes its
  :class:`Communicator` from the same :func:`get_unique_id` bytes (sent
  by whatever the processes share) and calls its
  :meth:`Communicator.all_reduce` or :meth:`Communicator.broadcast` with
  its own array.

NCCL runs on the CUDA runtime, which works in each device's primary
context: arrays must live there (gpuarr's default: ``gpuarr.autoinit``,
``gpuarr.Device(n)``, ``to_device``); an array of a context made with
``make_context`` raises ValueError.  The collectives are queued on the
legacy default stream of the array's context (where gpuarr's own kernels
run), or on a given :class:`gpuarr.driver.Stream`; they are asynchronous
like any launch.
"""

import threading

import numpy as np

from . import _creation, _layout, _nccl, _placement
from . import driver as _drv
from ._array import GPUArray
from ._nccl import NcclError, NcclNotFoundError

__all__ = ["Communicator", "get_unique_id", "all_reduce", "version",
           "NcclError", "NcclNotFoundError"]


def version():
    """NCCL's version code (``ncclGetVersion``: 23206 for 2.32.6).

    Returns
    -------
    int

    Raises
    ------
    NcclNotFoundError
        When NCCL is not installed (the message names the wheel).
    """
    return _nccl.version()


def get_unique_id():
    """A new communicator id (``ncclGetUniqueId``), for every rank's
    :class:`Communicator`.

    Returns
    -------
    bytes
        128 bytes, to send to the other ranks as they are.
    """
    return _nccl.unique_id()


def _stream_handle(stream):
    return 0 if stream is None else int(stream.handle)


def _current_device():
    cur = _drv.Context.get_current()
    if cur is None:
        raise _drv.InvalidContextError("no CUDA context is current")
    return cur.get_device().handle


def _device_of(a, what):
    """``(ordinal, primary Context)`` of GPUArray ``a``'s device, after
    the checks every collective makes; ``(None, None)`` for an empty
    array, which has no memory and so no device."""
    if not isinstance(a, GPUArray):
        raise TypeError("%s must be a GPUArray, not %s"
                        % (what, type(a).__name__))
    if not a._c:
        raise ValueError("%s must be C-contiguous (NCCL moves a flat "
                         "buffer); pass a copy" % what)
    dev, ctx = _placement.device_of(a)
    if dev is None:
        return None, None
    primary = _drv.Device(dev).get_primary_context()
    if ctx is not None and ctx != primary:
        raise ValueError("%s lives in a context of device %d other than its "
                         "primary context; NCCL works in the primary "
                         "contexts (the CUDA runtime's)" % (what, dev))
    return dev, primary


def _out_for(a, out, what):
    if out is None:
        return _creation.empty_c(a.shape, a.dtype)
    if (not isinstance(out, GPUArray) or out.shape != a.shape
            or out.dtype != a.dtype):
        raise ValueError("out must be a GPUArray of %s's shape %s and dtype "
                         "%s" % (what, a.shape, a.dtype))
    if out.ptr != a.ptr and _layout.overlaps(a, out):
        raise ValueError("out overlaps %s without being it; pass %s itself "
                         "for in place, or memory of its own" % (what, what))
    return out


def _out_list(out, arrays):
    outs = list(out)
    if len(outs) != len(arrays):
        raise ValueError("out must hold one array an input (%d, not %d)"
                         % (len(arrays), len(outs)))
    return outs


class Communicator:
    """One rank of an NCCL communicator (``ncclComm_t``) on one device.

    Parameters
    ----------
    nranks : int
        The communicator's number of ranks (one a device).
    unique_id : bytes
        :func:`get_unique_id`'s 128 bytes, the same for every rank.
    rank : int
        This rank, ``0 <= rank < nranks``.
    device : int, optional
        The device ordinal of this rank (default: the current context's).

    Raises
    ------
    ValueError
        For a rank out of range or an id of another length.
    NcclError
        When NCCL refuses (two ranks on one device among them).

    Notes
    -----
    The constructor blocks until every rank has made its communicator
    (``ncclCommInitRank``).  :meth:`destroy` (or the end of a ``with``
    block, or the object's death) frees it.  CuPy's counterpart is
    ``cupy.cuda.nccl.NcclCommunicator``.
    """

    def __init__(self, nranks, unique_id, rank, device=None):
        nranks, rank = int(nranks), int(rank)
        if not 0 <= rank < nranks:
            raise ValueError("rank must be in [0, %d), not %d"
                             % (nranks, rank))
        if device is None:
            device = _current_device()
        self._comm = None
        self._set(nranks, rank, device)
        with self._primary:
            self._comm = _nccl.comm_init_rank(nranks, unique_id, rank)

    def _set(self, nranks, rank, device):
        self.rank, self.size, self.device = rank, nranks, int(device)
        self._primary = _drv.Device(self.device).get_primary_context()

    @classmethod
    def init_all(cls, devices):
        """One communicator over ``devices`` driven from this process, a
        rank each (rank ``k`` on ``devices[k]``).

        Parameters
        ----------
        devices : sequence of int
            Distinct device ordinals.

        Returns
        -------
        list of Communicator
        """
        devices = [int(d) for d in devices]
        if not devices or len(set(devices)) != len(devices):
            raise ValueError("devices must be distinct ordinals, at least "
                             "one (got %r)" % (devices,))
        uid = _nccl.unique_id()
        comms = []
        _nccl.group_start()
        try:
            for rank, dev in enumerate(devices):
                with _drv.Device(dev).get_primary_context():
                    comms.append(_nccl.comm_init_rank(len(devices), uid, rank))
        finally:
            _nccl.group_end()
        out = []
        for rank, (dev, comm) in enumerate(zip(devices, comms)):
            c = cls.__new__(cls)
            c._set(len(devices), rank, dev)
            c._comm = comm
            out.append(c)
        return out

    def _check_device(self, dev, what):
        if self._comm is None:
            raise ValueError("the communicator was destroyed")
        if dev is not None and dev != self.device:     # None: empty
            raise ValueError("%s is on device %d, this rank on device %d"
                             % (what, dev, self.device))

    def all_reduce(self, a, out=None, op="sum", stream=None):
        """Reduce ``a`` over every rank (``ncclAllReduce``).

        Parameters
        ----------
        a : GPUArray
            C-contiguous, on this rank's device; the same shape and dtype
            on every rank.
        out : GPUArray, optional
            The result, ``a``'s shape and dtype (``a`` itself: in place).
        op : {"sum", "prod", "max", "min", "avg"}
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray
            ``out``, or a new array; the elementwise reduction over the
            ranks' arrays, in ``a``'s dtype (integers wrap as NCCL's do).

        Raises
        ------
        ValueError, TypeError
            For an array elsewhere or not C-contiguous, a bad ``out``, an
            ``op`` or dtype NCCL lacks (bool; complex other than sum and
            avg).
        """
        dev, _ = _device_of(a, "a")
        self._check_device(dev, "a")
        code, per = _nccl.type_code(a.dtype, op)
        with self._primary:             # a new out on this rank's device
            out = _out_for(a, out, "a")
        if out is not a:
            self._check_device(_device_of(out, "out")[0], "out")
        if not a.size:          # every rank's array is empty: nothing to do
            return out
        with self._primary:
            _nccl.all_reduce(a.ptr, out.ptr, a.size * per, code,
                             _nccl.OPS[op], self._comm,
                             _stream_handle(stream))
        return out

    def broadcast(self, a, root=0, out=None, stream=None):
        """Rank ``root``'s ``a`` into every rank's ``out``
        (``ncclBroadcast``).

        Parameters
        ----------
        a : GPUArray
            C-contiguous, on this rank's device (read on ``root`` only,
            but of the same shape and dtype on every rank).
        root : int
        out : GPUArray, optional
            ``a``'s shape and dtype (``a`` itself: in place).
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray
            ``out``, or a new array.
        """
        root = int(root)
        if not 0 <= root < self.size:
            raise ValueError("root must be in [0, %d), not %d"
                             % (self.size, root))
        dev, _ = _device_of(a, "a")
        self._check_device(dev, "a")
        with self._primary:
            out = _out_for(a, out, "a")
        if out is not a:
            self._check_device(_device_of(out, "out")[0], "out")
        code, _ = _nccl.type_code(np.uint8, "sum")     # moved as bytes
        if not a.size:
            return out
        with self._primary:
            _nccl.broadcast(a.ptr, out.ptr, a.nbytes, code, root,
                            self._comm, _stream_handle(stream))
        return out

    def destroy(self):
        """Free the communicator (``ncclCommDestroy``); later calls raise."""
        comm, self._comm = self._comm, None
        if comm:
            with self._primary:
                _nccl.comm_destroy(comm)

    def __enter__(self):
        """``with`` frees the communicator at the end of the block."""
        return self

    def __exit__(self, *exc):
        self.destroy()
        return False

    def __del__(self):
        try:
            self.destroy()
        except Exception:       # at interpreter exit, or the device gone
            pass

    def __repr__(self):
        return "<gpuarr.nccl.Communicator rank %d of %d on device %d>" % (
            self.rank, self.size, self.device)


_comms = {}
_comms_lock = threading.Lock()


def all_reduce(arrays, op="sum", out=None):
    """Reduce one array a device over those devices, from this process
    (``ncclAllReduce`` in one group).

    Parameters
    ----------
    arrays : sequence of GPUArray
        One a device, C-contiguous, of one shape and dtype.
    op : {"sum", "prod", "max", "min", "avg"}
    out : sequence of GPUArray, optional
        One result an array, on the same device (the arrays themselves:
        in place).

    Returns
    -------
    list of GPUArray
        The elementwise reduction of ``arrays``, on each one's device.

    Raises
    ------
    ValueError
        For no arrays, two on one device, shapes or dtypes that differ,
        an array outside its device's primary context or not
        C-contiguous, a bad ``out``.
    TypeError
        For a dtype or ``op`` NCCL lacks.
    NcclNotFoundError
        When NCCL is not installed.

    Notes
    -----
    The communicator over the arrays' devices is made at the first call
    for those devices (in that order) and kept for the process.
    """
    arrays = list(arrays)
    if not arrays:
        raise ValueError("all_reduce needs at least one array")
    devs = [_device_of(a, "arrays[%d]" % k)[0] for k, a in enumerate(arrays)]
    first = arrays[0]
    for k, a in enumerate(arrays[1:], 1):
        if a.shape != first.shape or a.dtype != first.dtype:
            raise ValueError("arrays[%d] is %s %s, arrays[0] %s %s" % (
                k, a.shape, a.dtype, first.shape, first.dtype))
    code, per = _nccl.type_code(first.dtype, op)
    if not first.size:
        # Empty arrays have no memory and so no device: nothing to check
        # or reduce; new outs are empty too.
        if out is None:
            return [_creation.empty_c(a.shape, a.dtype) for a in arrays]
        outs = _out_list(out, arrays)
        for k, (a, o) in enumerate(zip(arrays, outs)):
            _out_for(a, o, "arrays[%d]" % k)
        return outs
    if len(set(devs)) != len(devs):
        raise ValueError("all_reduce takes one array a device (devices %r)"
                         % (devs,))
    if out is None:
        outs = []
        for d, a in zip(devs, arrays):
            with _drv.Device(d).get_primary_context():
                outs.append(_creation.empty_c(a.shape, a.dtype))
    else:
        outs = _out_list(out, arrays)
        for k, (d, a, o) in enumerate(zip(devs, arrays, outs)):
            _out_for(a, o, "arrays[%d]" % k)
            if o is not a and _device_of(o, "out[%d]" % k)[0] != d:
                raise ValueError("out[%d] is not on arrays[%d]'s device"
                                 % (k, k))
    key = tuple(devs)
    with _comms_lock:
        comms = _comms.get(key)
        if comms is None:
            comms = _comms[key] = Communicator.init_all(devs)
    _nccl.group_start()
    try:
        for c, a, o in zip(comms, arrays, outs):
            with c._primary:
                _nccl.all_reduce(a.ptr, o.ptr, a.size * per, code,
                                 _nccl.OPS[op], c._comm, 0)
    finally:
        _nccl.group_end()
    return outs
