"""gpuarr's ``GPUARR_*`` settings, read once from the environment.

Pure Python (layer 0). Other modules read ``_config.settings.<name>`` at the
moment they need a value (never ``from ._config import settings``), so that
:func:`reload` (used by tests after changing the environment) takes effect.

Settings
--------
``GPUARR_CACHE_DIR``
    Root of gpuarr's on-disk caches. Default: ``$XDG_CACHE_HOME/gpuarr`` when
    ``XDG_CACHE_HOME`` is set to an absolute path, else ``~/.cache/gpuarr``.
    Compiled kernels go in its ``kernels`` subdirectory.
``GPUARR_CACHE``
    ``0``, ``false``, ``no`` or ``off`` switch the on-disk kernel cache off.
    Anything else (or unset) leaves it on. The in-memory cache of loaded
    modules is per process and always on.
``GPUARR_COMPILER``
    ``nvrtc`` or ``nvcc`` forces that compiler; ``auto`` or unset picks NVRTC
    when it can be found, else nvcc. Another value makes compiling raise
    :class:`ValueError`.
``GPUARR_NVRTC``
    Full path of the NVRTC shared library to use (``libnvrtc.so.13``...).
    When set, no other NVRTC is looked for.
``GPUARR_LIBCUDA``
    Path (or name) of the CUDA driver library that the driver layer opens
    at its first call. Default: ``libcuda.so.1``, found by the dynamic
    loader. Tests point it at a fake driver.
``GPUARR_POOL``
    The device memory pool each context gets: ``async`` (stream-ordered
    ``cuMemAllocAsync`` pools; an error where the device has none),
    ``binned`` (PyCUDA's ``DeviceMemoryPool``) or ``auto`` (the default:
    ``async`` where the device has pools, else ``binned``).
``GPUARR_SCAN``
    The look-back scan kernel: ``pipelined`` (persistent blocks whose warps
    pipeline TMA loads, look-back and stores; the default, used on sm_90
    and newer for 16-byte aligned arrays) or ``block-per-tile`` (one block
    per tile, any device). See ``docs/performance/scan.md``.
``GPUARR_RANDOM``
    The random-number kernel: ``warp-chunks`` (the default: each warp takes
    chunks of 64 whole Philox blocks, two per lane) or ``grid-stride`` (one
    block per thread per step of a grid-stride loop). Both give the same
    numbers. See ``docs/performance/random.md``.
``CUDA_DEVICE``
    The device ordinal :mod:`gpuarr.autoinit` uses (default 0), as PyCUDA.

An invalid value is kept as given and refused, with a message naming the
variable, where it is used (so that a typo cannot break ``import gpuarr``).
"""

import os

__all__ = ["Settings", "CHOICES", "settings", "read", "reload", "choice",
           "check_compiler", "device"]

_FALSE = frozenset(["0", "false", "no", "off", "disable", "disabled"])
_COMPILERS = frozenset(["nvrtc", "nvcc"])
#: the choices of each implementation setting: variable -> (default, others)
CHOICES = {
    "GPUARR_POOL": ("auto", ("async", "binned")),
    "GPUARR_SCAN": ("pipelined", ("block-per-tile",)),
    "GPUARR_RANDOM": ("warp-chunks", ("grid-stride",)),
}


class Settings:
    """A snapshot of the ``GPUARR_*`` environment variables.

    Attributes
    ----------
    cache_dir : str
        Absolute root directory of the on-disk caches.
    cache_enabled : bool
        False when ``GPUARR_CACHE`` switches the on-disk cache off.
    compiler : str or None
        ``"nvrtc"``, ``"nvcc"``, None for automatic choice, or the invalid
        string the user gave (rejected when a compile is attempted, so that a
        typo cannot break ``import gpuarr``).
    nvrtc_path : str or None
        The NVRTC library path from ``GPUARR_NVRTC``, or None.
    pool, scan, random : str
        ``GPUARR_POOL``, ``GPUARR_SCAN``, ``GPUARR_RANDOM`` lowercased, or
        their defaults (see :data:`CHOICES`); check them with
        :func:`choice`.
    cuda_device : str
        ``CUDA_DEVICE`` as given (default ``"0"``); see :func:`device`.
    libcuda_path : str or None
        The driver library from ``GPUARR_LIBCUDA``, or None for
        ``libcuda.so.1``.
    """

    __slots__ = ("cache_dir", "cache_enabled", "compiler", "nvrtc_path",
                 "pool", "scan", "random", "cuda_device", "libcuda_path")

    def __init__(self, cache_dir, cache_enabled, compiler, nvrtc_path,
                 pool="auto", scan="pipelined", random="warp-chunks",
                 cuda_device="0", libcuda_path=None):
        self.cache_dir = cache_dir
        self.cache_enabled = cache_enabled
        self.compiler = compiler
        self.nvrtc_path = nvrtc_path
        self.pool = pool
        self.scan = scan
        self.random = random
        self.cuda_device = cuda_device
        self.libcuda_path = libcuda_path

    def __repr__(self):
        return "Settings(%s)" % ", ".join(
            "%s=%r" % (k, getattr(self, k)) for k in self.__slots__)


def _default_cache_dir(environ):
    xdg = environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return os.path.join(xdg, "gpuarr")
    return os.path.join(os.path.expanduser("~"), ".cache", "gpuarr")


def read(environ=None):
    """Parse the settings from a mapping of environment variables.

    Parameters
    ----------
    environ : mapping of str to str, optional
        Defaults to :data:`os.environ`.

    Returns
    -------
    Settings
        Never raises: an invalid ``GPUARR_COMPILER`` is kept as given and
        reported when a compile is attempted.
    """
    if environ is None:
        environ = os.environ
    cache_dir = environ.get("GPUARR_CACHE_DIR", "")
    if cache_dir:
        cache_dir = os.path.abspath(os.path.expanduser(cache_dir))
    else:
        cache_dir = _default_cache_dir(environ)
    cache_enabled = environ.get("GPUARR_CACHE", "").strip().lower() not in _FALSE
    compiler = environ.get("GPUARR_COMPILER", "").strip().lower()
    if compiler in ("", "auto", "default"):
        compiler = None
    nvrtc_path = environ.get("GPUARR_NVRTC", "") or None
    if nvrtc_path is not None:
        nvrtc_path = os.path.expanduser(nvrtc_path)
    impl = {}
    for var, (default, _) in CHOICES.items():
        impl[var] = environ.get(var, "").strip().lower() or default
    cuda_device = environ.get("CUDA_DEVICE", "").strip() or "0"
    libcuda_path = environ.get("GPUARR_LIBCUDA", "") or None
    return Settings(cache_dir, cache_enabled, compiler, nvrtc_path,
                    impl["GPUARR_POOL"], impl["GPUARR_SCAN"],
                    impl["GPUARR_RANDOM"], cuda_device, libcuda_path)


def reload():
    """Re-read the environment into :data:`settings` and return it."""
    global settings
    settings = read()
    return settings


def check_compiler(name):
    """Validate a compiler choice.

    Parameters
    ----------
    name : str or None
        ``"nvrtc"``, ``"nvcc"`` or None (automatic).

    Returns
    -------
    str or None
        ``name`` lowercased.

    Raises
    ------
    ValueError
        For any other value.
    """
    if name is None:
        return None
    if isinstance(name, str) and name.lower() in _COMPILERS:
        return name.lower()
    raise ValueError("unknown compiler %r: use 'nvrtc', 'nvcc' or None (auto); "
                     "check GPUARR_COMPILER or the backend argument" % (name,))


def choice(variable, value):
    """Validate an implementation setting.

    Parameters
    ----------
    variable : str
        A key of :data:`CHOICES` (``"GPUARR_SCAN"``...).
    value : str
        The setting's value (from :data:`settings`, or given by a caller).

    Returns
    -------
    str
        ``value``.

    Raises
    ------
    ValueError
        When ``value`` is not one of the variable's choices.
    """
    default, others = CHOICES[variable]
    if value == default or value in others:
        return value
    raise ValueError("%s must be one of %s, not %r" % (
        variable, ", ".join((default,) + others), value))


def device():
    """The device ordinal ``CUDA_DEVICE`` names (default 0).

    Raises
    ------
    ValueError
        When ``CUDA_DEVICE`` is not a non-negative integer.
    """
    text = settings.cuda_device
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise ValueError("CUDA_DEVICE must be a device ordinal (0, 1, ...), "
                         "not %r" % text)
    return n


#: The settings read when gpuarr was imported (see :func:`reload`).
settings = read()
