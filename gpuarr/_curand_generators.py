"""PyCUDA's cuRAND generator classes, on cuRAND's
device API (layer 6; the public names are :mod:`gpuarr.curandom`'s, which
re-exports them: see its docstring and docs/random.md).

The kernels and their dtype rules are :mod:`gpuarr._curand_plan`'s; the
host library and headers :mod:`gpuarr._curand`'s.  Each generator owns a
state array from the context's memory pool and launches its kind's kernels,
one thread per state.
"""

import operator

import numpy as np

from . import _creation, _curand_plan, _percontext, _transfer
from ._errors import LogicError
from ._sobol_tables import (  # noqa: F401 (re-exported, as PyCUDA's names)
    direction_vector_set, direction_vectors_host, generate_direction_vectors,
    generate_scramble_constants32, generate_scramble_constants64,
    get_curand_version)

__all__ = ["XORWOWRandomNumberGenerator", "MRG32k3aRandomNumberGenerator",
           "Sobol32RandomNumberGenerator",
           "ScrambledSobol32RandomNumberGenerator",
           "Sobol64RandomNumberGenerator",
           "ScrambledSobol64RandomNumberGenerator", "get_curand_version",
           "generate_direction_vectors", "generate_scramble_constants32",
           "generate_scramble_constants64", "direction_vector_set",
           "direction_vectors_host"]


_F4, _F8 = np.dtype(np.float32), np.dtype(np.float64)
_I4, _U4 = np.dtype(np.int32), np.dtype(np.uint32)


# -- argument checks ---------------------------------------------------------

def _check_out(data, what="data"):
    if not all(hasattr(data, a) for a in ("ptr", "dtype", "shape", "size",
                                          "flags")):
        raise TypeError("%s must be a GPUArray, not %s"
                        % (what, type(data).__name__))


def _uint(value, bits, what):
    if isinstance(value, (bool, np.bool_)):
        raise TypeError("%s must be an integer, not bool" % what)
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %s"
                        % (what, type(value).__name__)) from None
    if not 0 <= v < 1 << bits:
        raise ValueError("%s must be in [0, 2**%d), not %d" % (what, bits, v))
    return v


def _float(value, what):
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise TypeError("%s must be a real number, not %s"
                        % (what, type(value).__name__))
    return float(value)


def _device_table(arr, dtype, shape, what):
    """``arr`` (a GPUArray or numpy array) as a C-contiguous GPUArray of
    ``dtype`` (or the signed integer type of its size, whose bits are
    taken as they are: older PyCUDA made int32 direction vectors) and
    ``shape``.

    Raises
    ------
    TypeError
        For another type, dtype or shape (PyCUDA's exception).
    ValueError
        For a non-contiguous GPUArray.
    """
    ok = (dtype, np.dtype("i%d" % dtype.itemsize))
    if isinstance(arr, np.ndarray) or hasattr(arr, "ptr"):
        if arr.dtype not in ok or tuple(arr.shape) != shape:
            raise TypeError("%s must be of dtype %s and shape %s, not %s %s"
                            % (what, dtype, shape, arr.dtype, tuple(arr.shape)))
    else:
        raise TypeError("%s must be a GPUArray, not %s"
                        % (what, type(arr).__name__))
    if isinstance(arr, np.ndarray):
        return _creation.to_gpu(np.ascontiguousarray(arr))
    if not arr.flags.c_contiguous:
        raise ValueError("%s must be C-contiguous" % what)
    return arr


# -- the generator classes ---------------------------------------------------

class _CurandGenerator:
    """What PyCUDA's cuRAND generator classes share (see the subclasses).

    Attributes
    ----------
    block_count : int
        Blocks of every launch: the device's multiprocessor count (fewer
        for the Sobol forms only when it exceeds 625).
    generators_per_block : int
        Threads per block: the smallest ``max_threads_per_block`` of the
        module's kernels (1024 on current GPUs: they are compiled with
        ``__launch_bounds__(1024)``). The Sobol forms take fewer when
        needed (a multiple of 32) so that ``state_count`` stays at most
        20000, the dimensions of cuRAND's direction-vector tables: no two
        states share a dimension (PyCUDA's do, so its fills repeat every
        20000 elements). See :func:`gpuarr._curand_plan.launch_shape`.
    state_count : int
        ``block_count * generators_per_block`` cuRAND states, one per
        thread, in an array from the context's memory pool.
    state : allocation
        The state array's memory (``int(state)`` is its address), cuRAND's
        ``state_type`` structs in a row, for kernels of one's own.
    state_type : str
        The cuRAND state type, e.g. ``"curandStateXORWOW"``.
    """

    _kind = None
    has_box_muller = False

    def _setup(self):
        mod, fns, size, gpb, blocks = _curand_plan.module(self._kind)
        blocks, gpb = _curand_plan.launch_shape(self._kind, blocks, gpb)
        self._mod = mod
        self._fns = fns
        self._ctx = _percontext.current_context()
        self.block_count = blocks
        self.generators_per_block = gpb
        self.state_type = _curand_plan.KINDS[self._kind]["state"]
        self._state = _creation.empty((blocks * gpb * size,), np.uint8)

    @property
    def state_count(self):
        """Number of cuRAND states (``block_count * generators_per_block``)."""
        return self.block_count * self.generators_per_block

    @property
    def state(self):
        """The state array's device memory (``int()`` gives its address)."""
        return self._state.gpudata

    def _launch(self, name, stream, *args):
        if _percontext.current_context() is not self._ctx:
            raise LogicError("this %s belongs to another CUDA context"
                             % type(self).__name__)
        self._fns[name].prepared_async_call(
            (self.block_count, 1), (self.generators_per_block, 1, 1), stream,
            self._state.ptr, *args)

    def _fill(self, dist, data, params, stream):
        _check_out(data)
        pairs = self.has_box_muller and data.size % 2 == 0 and dist in (
            "normal", "log_normal")
        name, _ = _curand_plan.fill_kernel(self._kind, dist, data.dtype, pairs)
        if data.size == 0:
            return
        flags = data.flags
        if not (flags.c_contiguous or flags.f_contiguous):
            tmp = _creation.empty(tuple(data.shape), data.dtype)
            if dist == "poisson_inplace":       # the means, in C order
                _transfer.copy_into(tmp, data, stream=stream)
            self._fill(dist, tmp, params, stream)
            _transfer.copy_into(data, tmp, stream=stream)
            if stream is not None:
                # tmp goes back to the pool on return, and the pool does
                # not track streams: let the work on it finish
                stream.synchronize()
            return
        if pairs:
            aligned = int(data.ptr % (2 * data.dtype.itemsize) == 0)
            self._launch(name, stream, data.ptr, data.size // 2, *params,
                         aligned)
        else:
            self._launch(name, stream, data.ptr, data.size, *params)

    def _gen(self, dist, shape, dtype, params, stream):
        _curand_plan.fill_kernel(self._kind, dist, dtype)       # the dtype check first
        out = _creation.empty(shape, dtype)
        self._fill(dist, out, params, stream)
        return out

    def fill_uniform(self, data, stream=None):
        """Fill ``data`` with cuRAND's uniform values, in place.

        Element ``k`` of the flat array (memory order; C order through a
        temporary for a non-contiguous ``data``) is draw ``k //
        state_count`` of state ``k % state_count``: float32
        ``curand_uniform`` and float64 ``curand_uniform_double`` (in (0,
        1]), int32/uint32 the 32 bits of ``curand`` and, for the 64-bit
        Sobol forms, int64/uint64 its 64 bits (int32/uint32 then take the
        high 32 bits: PyCUDA stores the low 32, which are 0 for the first
        2**32 points of a state).

        Parameters
        ----------
        data : GPUArray
        stream : gpuarr.driver.Stream, optional
            The stream of the launches (None: the default stream). For a
            ``data`` that is neither C- nor F-contiguous the call
            synchronizes ``stream`` before it returns, as the temporary it
            fills goes back to the memory pool, which does not track
            streams; otherwise it returns at once.

        Raises
        ------
        UnsupportedDtypeError
            (TypeError and NotImplementedError) for another dtype, before
            anything runs.
        TypeError
            When ``data`` is not a GPUArray.
        """
        self._fill("uniform", data, (), stream)

    def gen_uniform(self, shape, dtype=np.float32, stream=None):
        """A new C-ordered array filled by :meth:`fill_uniform`.

        Parameters
        ----------
        shape : int or tuple of int
        dtype : numpy dtype
            As :meth:`fill_uniform` takes it.
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray

        Raises
        ------
        UnsupportedDtypeError
            For a dtype the distribution does not take, before anything is
            allocated.
        """
        return self._gen("uniform", shape, dtype, (), stream)

    def fill_normal(self, data, stream=None):
        """Fill float32/float64 ``data`` with cuRAND's standard normals.

        XORWOW and MRG32k3a use Box-Muller pairs (``curand_normal2``,
        elements ``2p, 2p + 1`` from draw ``p // state_count`` of state ``p
        % state_count``) when ``data.size`` is even, and ``curand_normal``
        per element otherwise, as PyCUDA; the Sobol forms the inverse
        normal CDF (``curand_normal``).

        Parameters
        ----------
        data : GPUArray
        stream : gpuarr.driver.Stream, optional
            The stream of the launches (None: the default stream). For a
            ``data`` that is neither C- nor F-contiguous the call
            synchronizes ``stream`` before it returns, as the temporary it
            fills goes back to the memory pool, which does not track
            streams; otherwise it returns at once.

        Raises
        ------
        UnsupportedDtypeError
            For a dtype other than float32 and float64.
        """
        self._fill("normal", data, (), stream)

    def gen_normal(self, shape, dtype=np.float32, stream=None):
        """A new C-ordered array filled by :meth:`fill_normal`.

        Parameters
        ----------
        shape : int or tuple of int
        dtype : numpy dtype
            As :meth:`fill_normal` takes it.
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray

        Raises
        ------
        UnsupportedDtypeError
            For a dtype the distribution does not take, before anything is
            allocated.
        """
        return self._gen("normal", shape, dtype, (), stream)

    def _lognormal_params(self, dtype, mean, stddev):
        m = _float(mean, "mean")
        s = _float(stddev, "stddev")
        if not np.isnan(s) and s < 0:
            raise ValueError("stddev < 0")
        dt = np.dtype(dtype)
        return (dt.type(m), dt.type(s)) if dt in (_F4, _F8) else (m, s)

    def fill_log_normal(self, data, mean, stddev, stream=None):
        """Fill float32/float64 ``data`` with ``exp(mean + stddev * z)``,
        cuRAND's ``curand_log_normal`` (pairs as in :meth:`fill_normal`).

        Parameters
        ----------
        data : GPUArray
        mean, stddev : float
            Of the underlying normal; ``stddev >= 0``. Rounded to the
            dtype of ``data`` (PyCUDA's kernels take them in it).
        stream : gpuarr.driver.Stream, optional
            The stream of the launches (None: the default stream). For a
            ``data`` that is neither C- nor F-contiguous the call
            synchronizes ``stream`` before it returns, as the temporary it
            fills goes back to the memory pool, which does not track
            streams; otherwise it returns at once.

        Raises
        ------
        UnsupportedDtypeError
            For a dtype other than float32 and float64.
        TypeError
            For a non-numeric ``mean`` or ``stddev``.
        ValueError
            For a negative ``stddev`` (numpy's rule for ``lognormal``).
        """
        _check_out(data)
        params = self._lognormal_params(data.dtype, mean, stddev)
        self._fill("log_normal", data, params, stream)

    def gen_log_normal(self, shape, dtype, mean, stddev, stream=None):
        """A new C-ordered array filled by :meth:`fill_log_normal`.

        Parameters
        ----------
        shape : int or tuple of int
        dtype : numpy dtype
            As :meth:`fill_log_normal` takes it.
        mean, stddev : float
            Of the underlying normal (``stddev >= 0``).
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray

        Raises
        ------
        UnsupportedDtypeError
            For a dtype the distribution does not take, before anything is
            allocated.
        """
        params = self._lognormal_params(dtype, mean, stddev)
        return self._gen("log_normal", shape, dtype, params, stream)

    @staticmethod
    def _lambda(lambda_value):
        lam = _float(lambda_value, "lambda_value")
        if not (np.isfinite(lam) and lam > 0):
            raise ValueError("lambda_value must be positive and finite, "
                             "not %r" % lam)
        return (lam,)

    def fill_poisson(self, data, lambda_value=None, stream=None):
        """Fill ``data`` with cuRAND's Poisson values (``curand_poisson``).

        Parameters
        ----------
        data : GPUArray
            uint32 for one mean ``lambda_value``; with ``lambda_value``
            None, float32, float64 or uint32 holding each element's own
            mean, replaced by its draw (PyCUDA's in-place form; means
            that are not positive give whatever cuRAND gives for them).
        lambda_value : float, optional
        stream : gpuarr.driver.Stream, optional
            The stream of the launches (None: the default stream). For a
            ``data`` that is neither C- nor F-contiguous the call
            synchronizes ``stream`` before it returns, as the temporary it
            fills goes back to the memory pool, which does not track
            streams; otherwise it returns at once.

        Raises
        ------
        UnsupportedDtypeError
            For another dtype (PyCUDA's one dtype for a given mean is
            uint32).
        ValueError
            Unless ``0 < lambda_value < inf`` (cuRAND's host API rule).
        """
        _check_out(data)
        if lambda_value is None:
            self._fill("poisson_inplace", data, (), stream)
            return
        _curand_plan.fill_kernel(self._kind, "poisson", data.dtype)
        self._fill("poisson", data, self._lambda(lambda_value), stream)

    def gen_poisson(self, shape, dtype, lambda_value, stream=None):
        """A new C-ordered array filled by :meth:`fill_poisson`.

        Parameters
        ----------
        shape : int or tuple of int
        dtype : numpy dtype
            As :meth:`fill_poisson` takes it.
        lambda_value : float
            The mean, ``0 < lambda_value < inf``.
        stream : gpuarr.driver.Stream, optional

        Returns
        -------
        GPUArray

        Raises
        ------
        UnsupportedDtypeError
            For a dtype the distribution does not take, before anything is
            allocated.
        """
        _curand_plan.fill_kernel(self._kind, "poisson", dtype)
        return self._gen("poisson", shape, dtype, self._lambda(lambda_value),
                         stream)

    def _skip_bits(self):
        k = _curand_plan.KINDS[self._kind]
        return 32 if (k["bits"] == 32 and not k["seeded"]) else 64

    def _skip(self, which, i, stream):
        bits = self._skip_bits()
        self._launch("ga_curand_" + which, stream, self.state_count,
                     _uint(i, bits, "i"))

    def _skip_array(self, which, i, stream):
        dt = np.dtype(np.uint32 if self._skip_bits() == 32 else np.uint64)
        dev = _device_table(i, dt, (self.state_count,), "i")
        self._launch("ga_curand_%s_array" % which, stream, self.state_count,
                     dev.ptr)
        if dev is not i and stream is not None:
            # the uploaded copy goes back to the pool on return, and the
            # pool does not track streams: let the kernel read it first
            stream.synchronize()

    def call_skip_ahead(self, i, stream=None):
        """Advance every state by ``i`` draws (cuRAND's ``skipahead``).

        Unlike PyCUDA, whose kernel stops at the first
        ``generators_per_block`` states, all ``state_count`` states move.

        Parameters
        ----------
        i : int
            In ``[0, 2**32)`` for Sobol32, ``[0, 2**64)`` otherwise.
        stream : gpuarr.driver.Stream, optional
        """
        self._skip("skipahead", i, stream)

    def call_skip_ahead_array(self, i, stream=None):
        """Advance state ``k`` by ``i[k]`` draws.

        Parameters
        ----------
        i : GPUArray or numpy.ndarray
            ``state_count`` skips, uint32 for Sobol32 and uint64 otherwise
            (a numpy array is copied to the GPU).
        stream : gpuarr.driver.Stream, optional
            The stream of the launch. With a numpy ``i`` the call
            synchronizes ``stream`` before it returns, as the copy goes
            back to the memory pool, which does not track streams; a
            GPUArray ``i`` must stay unchanged until the launch has run.
        """
        self._skip_array("skipahead", i, stream)


class _PseudoGenerator(_CurandGenerator):
    has_box_muller = True

    def __init__(self, seed_getter=None, offset=0):
        offset = _uint(offset, 64, "offset")
        self._setup()
        n = self.state_count
        if seed_getter is None:
            seed = _creation.to_gpu(
                np.random.randint(0, 2 ** 31 - 1, n).astype(np.int32))
        else:
            seed = seed_getter(n)
        if not (hasattr(seed, "ptr") and seed.dtype in (_I4, _U4)
                and seed.size == n and seed.flags.c_contiguous):
            raise TypeError("seed must be a contiguous int32 GPUArray of "
                            "state_count = %d seeds" % n)
        self._launch("ga_curand_init", None, n, seed.ptr, offset)

    def call_skip_ahead_sequence(self, i, stream=None):
        """Advance every state by ``i`` subsequences (cuRAND's
        ``skipahead_sequence``: 2**67 draws for XORWOW, 2**127 for
        MRG32k3a)."""
        self._skip("skipahead_sequence", i, stream)

    def call_skip_ahead_sequence_array(self, i, stream=None):
        """Advance state ``k`` by ``i[k]`` subsequences (``i``: uint64,
        ``state_count`` values; ``i`` and ``stream`` as for
        :meth:`call_skip_ahead_array`, which synchronizes for a numpy
        ``i``)."""
        self._skip_array("skipahead_sequence", i, stream)


class XORWOWRandomNumberGenerator(_PseudoGenerator):
    """cuRAND's XORWOW generator, one state per GPU thread (PyCUDA's class).

    State ``k`` is ``curand_init(seed[k], k, offset)``: seed ``k`` of the
    seed getter, subsequence ``k``; the values are cuRAND's own for those
    (see :meth:`fill_uniform` for which element comes from which state).

    Parameters
    ----------
    seed_getter : callable, optional
        ``seed_getter(state_count)`` -> int32 GPUArray of ``state_count``
        seeds (:func:`seed_getter_uniform`, :func:`seed_getter_unique`).
        Default: independent seeds from numpy's global random state in
        ``[0, 2**31 - 1)``, as PyCUDA.
    offset : int, optional
        Draws each state skips first, in ``[0, 2**64)``.

    Raises
    ------
    TypeError
        When the seeds are not ``state_count`` int32 values on the GPU.
    gpuarr._curand.CurandNotFoundError
        When cuRAND's headers are missing (``pip install nvidia-curand
        nvidia-cuda-cccl``).
    """
    _kind = "xorwow"


class MRG32k3aRandomNumberGenerator(_PseudoGenerator):
    """cuRAND's MRG32k3a generator (PyCUDA's class); parameters and values
    as for :class:`XORWOWRandomNumberGenerator` (``curand_init(seed[k], k,
    offset)``, subsequences of 2**76 draws).

    Parameters
    ----------
    seed_getter : callable, optional
        ``seed_getter(state_count)`` -> a C-contiguous int32 (or uint32)
        GPUArray of ``state_count`` seeds (:func:`seed_getter_uniform`,
        :func:`seed_getter_unique`).  Default: independent seeds from
        numpy's global random state in ``[0, 2**31 - 1)``, as PyCUDA.
    offset : int, optional
        Draws each state skips first, in ``[0, 2**64)``.

    Raises
    ------
    TypeError
        When the seeds are not ``state_count`` contiguous int32 values on
        the GPU, or ``offset`` is not an integer (bool included).
    ValueError
        For an ``offset`` outside ``[0, 2**64)``.
    gpuarr._curand.CurandNotFoundError
        When cuRAND's headers are missing (``pip install nvidia-curand
        nvidia-cuda-cccl``).
    """
    _kind = "mrg32k3a"

    def call_skip_ahead_subsequence(self, i, stream=None):
        """Advance every state by ``i`` subsequences of 2**76 draws
        (``skipahead_subsequence``)."""
        self._skip("skipahead_subsequence", i, stream)

    def call_skip_ahead_subsequence_array(self, i, stream=None):
        """Advance state ``k`` by ``i[k]`` subsequences (uint64; ``i``
        and ``stream`` as for :meth:`call_skip_ahead_array`)."""
        self._skip_array("skipahead_subsequence", i, stream)


class _SobolGenerator(_CurandGenerator):
    _set = None

    def __init__(self, dir_vector=None, offset=0, scramble_vector=None,
                 scrambled=False):
        bits = _curand_plan.KINDS[self._kind]["bits"]
        offset = _uint(offset, bits, "offset")
        self._setup()
        n = self.state_count
        dt = np.dtype(np.uint32 if bits == 32 else np.uint64)
        if dir_vector is None:
            dir_vector = generate_direction_vectors(n, self._set)
        dir_vector = _device_table(dir_vector, dt, (n, bits), "dir_vector")
        args = [n, dir_vector.ptr]
        if scrambled:
            if scramble_vector is None:
                scramble_vector = (generate_scramble_constants32(n) if bits == 32
                                   else generate_scramble_constants64(n))
            scramble_vector = _device_table(scramble_vector, dt, (n,),
                                            "scramble_vector")
            args.append(scramble_vector.ptr)
        self._launch("ga_curand_init", None, *(args + [offset]))


class Sobol32RandomNumberGenerator(_SobolGenerator):
    """cuRAND's Sobol32 quasi-random generator (PyCUDA's class).

    State ``k`` is dimension ``k`` of the sequence: ``curand_init(
    dir_vector[k], offset)``. ``state_count`` is at most 20000, the
    dimensions cuRAND has, so that no dimension repeats within a fill
    (unlike PyCUDA's, which has one state per thread of every
    multiprocessor: 135168 on an H200, dimension ``k % 20000``).

    Parameters
    ----------
    dir_vector : GPUArray, optional
        ``(state_count, 32)`` uint32 direction vectors; default
        ``generate_direction_vectors(state_count, VECTOR_32)``.
    offset : int, optional
        Points each dimension skips first, in ``[0, 2**32)``.

    Raises
    ------
    TypeError
        For direction vectors of another dtype or shape.
    """
    _kind = "sobol32"
    _set = direction_vector_set.VECTOR_32

    def __init__(self, dir_vector=None, offset=0):
        super().__init__(dir_vector, offset)


class ScrambledSobol32RandomNumberGenerator(_SobolGenerator):
    """cuRAND's scrambled Sobol32 generator (PyCUDA's class):
    ``curand_init(dir_vector[k], scramble_vector[k], offset)``.

    Parameters
    ----------
    dir_vector : GPUArray, optional
        ``(state_count, 32)`` uint32; default the ``SCRAMBLED_VECTOR_32``
        set.
    scramble_vector : GPUArray, optional
        ``(state_count,)`` uint32; default
        ``generate_scramble_constants32(state_count)``.
    offset : int, optional
        In ``[0, 2**32)``.
    """
    _kind = "scrambled_sobol32"
    _set = direction_vector_set.SCRAMBLED_VECTOR_32

    def __init__(self, dir_vector=None, scramble_vector=None, offset=0):
        super().__init__(dir_vector, offset, scramble_vector, True)


class Sobol64RandomNumberGenerator(_SobolGenerator):
    """cuRAND's Sobol64 generator (PyCUDA's class); uniform also gives
    int64/uint64 (64 raw bits).

    Parameters
    ----------
    dir_vector : GPUArray, optional
        ``(state_count, 64)`` uint64 direction vectors, one dimension per
        state; default cuRAND's ``VECTOR_64`` set.
    offset : int
        Points skipped in every dimension, in ``[0, 2**64)``.

    Raises
    ------
    TypeError, ValueError
        For direction vectors of another dtype or shape, or an offset out
        of range, before anything is launched.
    """
    _kind = "sobol64"
    _set = direction_vector_set.VECTOR_64

    def __init__(self, dir_vector=None, offset=0):
        super().__init__(dir_vector, offset)


class ScrambledSobol64RandomNumberGenerator(_SobolGenerator):
    """cuRAND's scrambled Sobol64 generator (PyCUDA's class).

    Parameters
    ----------
    dir_vector : GPUArray, optional
        ``(state_count, 64)`` uint64 direction vectors; default cuRAND's
        ``SCRAMBLED_VECTOR_64`` set.
    scramble_vector : GPUArray, optional
        ``(state_count,)`` uint64 scramble constants; default
        :func:`generate_scramble_constants64`.
    offset : int
        Points skipped in every dimension, in ``[0, 2**64)``.

    Raises
    ------
    TypeError, ValueError
        For vectors of another dtype or shape, or an offset out of range,
        before anything is launched.
    """
    _kind = "scrambled_sobol64"
    _set = direction_vector_set.SCRAMBLED_VECTOR_64

    def __init__(self, dir_vector=None, scramble_vector=None, offset=0):
        super().__init__(dir_vector, offset, scramble_vector, True)
