"""Run-time compilation of CUDA C++: :class:`SourceModule` and :func:`compile`.

Drop-in for ``pycuda.compiler``::

    import gpuarr.autoinit
    from gpuarr.compiler import SourceModule

    mod = SourceModule('''
    __global__ void twice(float *a, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i] *= 2;
    }
    ''')
    twice = mod.get_function("twice")

The source is wrapped in ``extern "C" { ... }`` (unless ``no_extern_c``) so
that kernels keep their plain names, and compiled to a **cubin** for the
current context's device (``sm_XY`` from its compute capability), which the
driver loads with no JIT step. A cubin from a newer NVRTC loads on an older
driver of the same CUDA major version; PTX would not.

Compilers
---------
NVRTC (a shared library, no process started) is preferred; where it cannot
be found, ``nvcc`` is run as a subprocess. See :mod:`gpuarr._nvrtc` for
where NVRTC is looked for. ``pip install nvidia-cuda-nvrtc`` installs it.
``GPUARR_COMPILER=nvrtc|nvcc`` (or ``backend=`` on :func:`compile`) forces
one; ``GPUARR_NVRTC=/path/libnvrtc.so.13`` picks a library.

With NVRTC, ``-O0``..``-O3`` and ``-Xcompiler``/``--compiler-options``
(which only affect host code under nvcc) are dropped from ``options``.
nvcc-style sources compile under NVRTC: gpuarr hands NVRTC its built-in
C headers (``stdio.h`` for ``printf``, ``math.h``, ``stdint.h``,
``stddef.h``, ``limits.h``, ``float.h``, ``assert.h``), PyCUDA's
``pycuda-complex.hpp``/``pycuda-helpers.hpp`` and ``gpuarr/complex.hpp``
(:mod:`gpuarr._headers`), pre-includes the typedefs ``uint``, ``ushort``,
``ulong``, and searches after ``include_dirs`` the headers NVRTC 13.3+
bundles, the CUDA toolkit's ``include`` (``$CUDA_PATH``, ``$CUDA_HOME`` or
``/usr/local/cuda``) and NVIDIA's header wheels (``nvidia-curand``,
``nvidia-cuda-runtime``, ``nvidia-cuda-cccl``), so that
``#include <curand_kernel.h>`` works with the wheels alone. A missing header's
error names the package to install. See docs/compiler.md.

Caches
------
In memory
    ``SourceModule(...)`` with the same arguments in the same context
    returns the same, already loaded, object: one tuple built and one dict
    lookup, no hashing, no compiling. The key is (context handle, class,
    source, nvcc, options, no_extern_c, arch, code, include_dirs).
    :func:`clear_memory_cache` empties it (the driver layer should call it
    for a context that is destroyed).
On disk
    Compiled images are kept in ``$GPUARR_CACHE_DIR/kernels`` (default
    ``$XDG_CACHE_HOME/gpuarr/kernels`` or ``~/.cache/gpuarr/kernels``),
    one file per key. ``GPUARR_CACHE=0`` switches it off, as does
    ``cache_dir=False`` on one call; ``cache_dir="some/dir"`` uses that
    directory instead (even with ``GPUARR_CACHE=0``). ``keep=True`` skips
    the lookup (so the compiler really runs and leaves its files).

    The key is a sha256 over: the cache format version, the compiler's
    identity (NVRTC: resolved library path, size and mtime; nvcc: resolved
    executable path, size and mtime, plus the same for absolute paths named
    in it when it is a small wrapper script), the target (cubin, PTX, or
    "best image for this device"), arch and code, the options, the include
    directory *paths* (not your headers' contents: edit a header and you
    must clear the cache or change an option), a digest of gpuarr's built-in
    headers as given to the compiler, and the source after wrapping.
    Computing it never loads NVRTC and never starts a process, so a warm hit
    in a fresh process costs about a millisecond.

    Entries carry a header with their length and checksum; a truncated or
    corrupt file is deleted and recompiled. Writes are atomic (temporary
    file, then :func:`os.replace`). :func:`clear_disk_cache` empties it.

Errors
------
A failing compile raises :class:`CompileError` whose message holds the
compiler's log and the source lines around each reported error, numbered as
in your source. No compiler at all raises :class:`CompilerNotFoundError`
(a :class:`RuntimeError`) saying what to install. ``SourceModule`` with no
current context raises :class:`gpuarr._errors.InvalidContextError`.
"""

import os
import re

from . import _cache, _config, _headers, _nvrtc, _toolchain
from ._errors import CompileError, Error, no_context_error
from ._nvrtc import CompilerNotFoundError
from ._toolchain import PROGRAM_NAME, CompilerWarning, find_compiler

__all__ = ["SourceModule", "compile", "CompileError", "CompilerNotFoundError",
           "CompilerWarning", "clear_memory_cache", "clear_disk_cache",
           "default_cache_dir", "find_compiler", "DynamicModule",
           "DynamicSourceModule", "get_nvcc_version"]

#: PyCUDA's linking names, defined in gpuarr._dynamic (which uses compile()).
_DYNAMIC = ("DynamicModule", "DynamicSourceModule", "get_nvcc_version")


def __getattr__(name):
    if name in _DYNAMIC:
        from . import _dynamic
        return getattr(_dynamic, name)
    raise AttributeError("module 'gpuarr.compiler' has no attribute %r" % name)

_TARGETS = ("cubin", "ptx")
_memo = {}          # the driver's CUDA major version (see _reset)
_ARCH_RE = re.compile(r"(sm|compute)_(\d+)([a-z]?)\Z")


# --------------------------------------------------------------------------
# argument checking

def _check_source(source):
    if isinstance(source, bytes):
        try:
            return source.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError("source bytes are not UTF-8: %s" % exc) from None
    if not isinstance(source, str):
        raise TypeError("source must be str (CUDA C++), not %s"
                        % type(source).__name__)
    return source


def _check_options(options):
    if options is None:
        return []
    if isinstance(options, (str, bytes)):
        raise TypeError("options must be a list of str, such as "
                        "['-use_fast_math'], not a single %s"
                        % type(options).__name__)
    try:
        out = list(options)
    except TypeError:
        raise TypeError("options must be a list of str, not %s"
                        % type(options).__name__) from None
    for opt in out:
        if not isinstance(opt, str):
            raise TypeError("every option must be str, got %r" % (opt,))
    return out


def _check_include_dirs(include_dirs):
    if include_dirs is None:
        return ()
    if isinstance(include_dirs, (str, bytes)) or hasattr(include_dirs, "__fspath__"):
        raise TypeError("include_dirs must be a list of directories, not a "
                        "single path")
    out = []
    for d in include_dirs:
        d = os.fspath(d)
        if not isinstance(d, str):
            raise TypeError("include directory must be str, got %r" % (d,))
        out.append(os.path.abspath(d))
    return tuple(out)


def _normalize_arch(arch, what="arch"):
    """``"sm_90"``, ``"compute_90"``, ``"sm_90a"``, ``(9, 0)`` -> canonical str."""
    if arch is None:
        return None
    if isinstance(arch, (tuple, list)):
        if (len(arch) != 2 or not all(isinstance(x, int) and x >= 0 for x in arch)
                or arch[1] > 9):
            raise ValueError("%s as a compute capability must be (major, minor), "
                             "got %r" % (what, arch))
        return "sm_%d%d" % tuple(arch)
    if not isinstance(arch, str):
        raise TypeError("%s must be a str such as 'sm_90', not %s"
                        % (what, type(arch).__name__))
    arch = arch.strip()
    if what == "code" and "," in arch:
        return arch  # several codes: nvcc only, checked there
    if not _ARCH_RE.match(arch):
        raise ValueError("invalid %s %r: expected 'sm_XY' or 'compute_XY' "
                         "(such as 'sm_90', 'sm_90a', 'compute_80')" % (what, arch))
    return arch


def _arch_number(arch):
    return int(_ARCH_RE.match(arch).group(2))


def _as_real(arch):
    """compute_XY -> sm_XY (what a cubin is built for)."""
    m = _ARCH_RE.match(arch)
    return "sm_%s%s" % (m.group(2), m.group(3))


def _as_virtual(arch):
    """sm_XY -> compute_XY (what PTX is built for)."""
    m = _ARCH_RE.match(arch)
    return "compute_%s%s" % (m.group(2), m.group(3))


def _split_arch_option(options):
    """Take ``-arch X`` / ``-arch=X`` / ``--gpu-architecture=X`` out of options."""
    rest, found = [], None
    it = iter(options)
    for opt in it:
        value = None
        for flag in ("-arch", "--gpu-architecture", "-gpu-architecture"):
            if opt == flag:
                value = next(it, None)
                if value is None:
                    raise ValueError("option %s needs a value" % flag)
            elif opt.startswith(flag + "="):
                value = opt[len(flag) + 1:]
            elif opt.startswith(flag + " "):
                value = opt[len(flag) + 1:].strip()
            if value is not None:
                break
        if value is None:
            rest.append(opt)
        else:
            found = _normalize_arch(value)
    return rest, found


def _nvrtc_options(options):
    """Drop nvcc options that only concern host code (NVRTC rejects them)."""
    out = []
    it = iter(options)
    for opt in it:
        if re.match(r"-O[0-3]\Z", opt):
            continue
        if opt in ("-Xcompiler", "--compiler-options"):
            next(it, None)
            continue
        if opt.startswith(("-Xcompiler=", "--compiler-options=")):
            continue
        out.append(opt)
    return out


# --------------------------------------------------------------------------
# the compile pipeline

def _reset():
    """Forget what was found on disk (tests change the environment)."""
    _memo.clear()
    _toolchain.reset()


def _wrap(source, no_extern_c):
    if no_extern_c:
        return source
    # '#line' keeps the compiler's line numbers equal to the user's.
    return 'extern "C" {\n#line 1 "%s"\n%s\n}\n' % (PROGRAM_NAME, source)


def _disk_dir(cache_dir):
    if cache_dir is None or cache_dir is True:
        settings = _config.settings
        if not settings.cache_enabled:
            return None
        return os.path.join(settings.cache_dir, "kernels")
    if cache_dir is False:
        return None
    try:
        return os.fspath(cache_dir)
    except TypeError:
        raise TypeError("cache_dir must be None, False or a directory path, "
                        "not %s" % type(cache_dir).__name__) from None


def _run_nvrtc(path, ident, wrapped, source, options, includes, headers,
               target, real_arch, keep, fallback_ptx, directory):
    """Compile with NVRTC. ``includes`` is ``(user dirs, default dirs)``;
    the NVRTC's bundled headers (13.3+, extracted next to the disk cache
    ``directory`` or in a temporary one) are searched between the two."""
    lib = _nvrtc.load(path)
    if target == "cubin" and fallback_ptx:
        archs = lib.supported_archs()
        number = _arch_number(real_arch)
        if not lib.has_cubin or (archs and number not in archs):
            # The device is newer than this NVRTC: emit PTX for the newest
            # architecture it knows; the driver compiles that for the device.
            older = [a for a in archs if a <= number]
            if older:
                target, real_arch = "ptx", "compute_%d" % max(older)
    user_inc, default_inc = includes
    searched = (user_inc + _toolchain.bundled_includes(lib, ident, directory)
                + default_inc)
    arch_opt = "-arch=" + (real_arch if target == "cubin" else _as_virtual(real_arch))
    opts = (options + ["-I" + d for d in searched]
            + ["-include=" + _headers.PRE_INCLUDE, arch_opt])
    result, image, log = lib.compile(wrapped.encode("utf-8"), PROGRAM_NAME,
                                     opts, target, headers)
    what = "NVRTC %d.%d (%s)" % (lib.version + (" ".join(opts),))
    if keep:
        d = _toolchain.keep_dir()
        with open(os.path.join(d, PROGRAM_NAME), "w") as f:
            f.write(wrapped)
        with open(os.path.join(d, "kernel.log"), "w") as f:
            f.write(log)
        with open(os.path.join(d, "options.txt"), "w") as f:
            f.write("\n".join(opts) + "\n")
        if image is not None:
            with open(os.path.join(d, "kernel." + target), "wb") as f:
                f.write(image)
        print("*** compiler output in %s" % d)
    if result != 0:
        raise _toolchain.compile_error(
            what, log, source, wrapped,
            notes=_toolchain.hints(log, searched + ("(gpuarr's built-in "
                                                    "headers)",)))
    if log.strip():
        _toolchain.warn(what, log)
    return image, target


def _build(source, nvcc, options, keep, no_extern_c, arch, code, cache_dir,
           include_dirs, target, backend, max_major=None, fallback_ptx=False):
    """Validate, look up the disk cache, compile, store.

    Returns ``(image, kind, compiler name, arch)`` where kind is the actual
    format of ``image`` (``"cubin"`` or ``"ptx"``) and arch the canonical
    architecture it was requested for.
    """
    source = _check_source(source)
    options, option_arch = _split_arch_option(_check_options(options))
    include_dirs = _check_include_dirs(include_dirs)
    arch = _normalize_arch(arch)
    code = _normalize_arch(code, "code")
    if option_arch is not None:
        if arch is not None and arch != option_arch:
            raise ValueError("arch=%r conflicts with %r in options"
                             % (arch, option_arch))
        arch = option_arch
    if target not in _TARGETS:
        raise ValueError("target must be 'cubin' or 'ptx', got %r" % (target,))
    if arch is None:
        if code is None or "," in code:
            raise ValueError("arch is needed (such as arch='sm_90')")
        arch = _as_virtual(code)
    keep = bool(keep)
    wrapped = _wrap(source, no_extern_c)

    while True:
        name, path, ident = _toolchain.select(backend, nvcc, max_major)
        if name == "nvrtc":
            if code is not None and "," in code:
                raise ValueError("NVRTC compiles for one architecture; got "
                                 "code=%r (use nvcc for several)" % code)
            real_arch = _as_real(code or arch)
            opts = _nvrtc_options(options)
            includes = (include_dirs, _toolchain.default_includes())
            headers, headers_id = _headers.for_nvrtc(includes[0] + includes[1])
            key_opts = opts + ["-I" + d for d in includes[0] + includes[1]]
            key_opts.append(_toolchain.includes_stamp(includes[0] + includes[1]))
        else:
            real_arch = arch
            opts = options + ["-I" + d for d in include_dirs + (_headers.INCLUDE_DIR,)]
            headers_id = _headers.for_nvcc()
            key_opts = opts + [_toolchain.includes_stamp(include_dirs)]
        directory = _disk_dir(cache_dir)
        key = kind = None
        if directory is not None:
            key_target = "image" if (fallback_ptx and name == "nvrtc") else target
            key = _cache.make_key([
                "gpuarr-kernel", _cache.FORMAT_VERSION, ident, key_target,
                real_arch, code, tuple(key_opts), headers_id, wrapped])
            if not keep:
                image = _cache.load(directory, key, key_target)
                if image is not None:
                    kind = "ptx" if image[:4] != b"\x7fELF" else "cubin"
                    return image, kind, name, arch
        if name == "nvrtc":
            try:
                image, kind = _run_nvrtc(path, ident, wrapped, source, opts,
                                         includes, headers, target,
                                         real_arch, keep,
                                         fallback_ptx and code is None,
                                         directory)
            except CompilerNotFoundError:
                if _config.check_compiler(backend if backend is not None
                                          else _config.settings.compiler):
                    raise
                _toolchain.mark_broken(path)  # unloadable: fall back to nvcc
                continue
        else:
            image = _toolchain.run_nvcc(path, wrapped, source, opts, target,
                                        arch, code, keep)
            kind = target
        if directory is not None:
            _cache.store(directory, key, key_target, image)
        return image, kind, name, arch


def _driver():
    global _drv
    if _drv is None:
        from . import driver
        hook = getattr(driver, "add_detach_hook", None)
        if hook is not None:   # absent on the fake drivers of the CPU tests
            hook(clear_memory_cache)
        _drv = driver
    return _drv


_drv = None


def _driver_major(drv):
    """The CUDA major version of the driver (13 for 13.0), or None."""
    try:
        return _memo["driver_major"]
    except KeyError:
        pass
    major = None
    get = getattr(drv, "get_driver_version", None)
    if get is not None:
        try:
            major = int(get()) // 1000
        except Exception:  # an odd driver layer must not break compiling
            major = None
    _memo["driver_major"] = major
    return major


def _current_arch():
    """(``sm_XY`` of the current context's device, driver major) or raise."""
    try:
        drv = _driver()
        ctx = drv.Context.get_current()
    except (ImportError, Error):
        ctx = None
    if ctx is None:
        raise ValueError("no CUDA context is current, so the target "
                         "architecture is unknown: pass arch= (such as "
                         "arch='sm_90')")
    major, minor = ctx.get_device().compute_capability()
    return "sm_%d%d" % (major, minor), _driver_major(drv)


def compile(source, nvcc="nvcc", options=None, keep=False, no_extern_c=False,
            arch=None, code=None, cache_dir=None, include_dirs=(),
            target="cubin", backend=None):
    """Compile CUDA C++ to a cubin or PTX image. Needs no GPU.

    Parameters
    ----------
    source : str
        CUDA C++ source (``bytes`` are decoded as UTF-8).
    nvcc : str, optional
        Name or path of the nvcc executable, used when nvcc is the compiler.
    options : list of str, optional
        Compiler options, such as ``["-use_fast_math", "-DN=4"]``. An
        ``-arch`` among them is taken as ``arch``.
    keep : bool, optional
        Keep the compiler's files in a temporary directory (its path is
        printed) and skip the disk-cache lookup.
    no_extern_c : bool, optional
        Do not wrap the source in ``extern "C" { ... }`` (kernel names are
        then C++-mangled).
    arch : str or tuple of int, optional
        ``"sm_XY"`` (``"sm_90a"``...), ``"compute_XY"``, or a compute
        capability ``(9, 0)``. Default: the current context's device; with
        no current context, required.
    code : str, optional
        nvcc's ``-code``. With NVRTC, one ``sm_XY``/``compute_XY`` that
        then replaces ``arch`` as the target.
    cache_dir : str, os.PathLike, None or False, optional
        Disk cache directory. None: ``GPUARR_CACHE_DIR``'s ``kernels``
        subdirectory, unless ``GPUARR_CACHE=0``. False: no disk cache.
    include_dirs : list of str, optional
        Directories searched by ``#include``.
    target : {"cubin", "ptx"}, optional
        The image format. A cubin (ELF, ``nvrtcGetCUBIN`` or ``nvcc
        --cubin``) runs only on the architecture it was built for, with no
        JIT; PTX (``nvrtcGetPTX``/``nvcc --ptx``) is JIT-compiled by a
        driver at least as new as the compiler.
    backend : {None, "nvrtc", "nvcc"}, optional
        Force a compiler. None: ``GPUARR_COMPILER``, else NVRTC when found,
        else nvcc.

    Returns
    -------
    bytes
        The cubin (starts with ``b"\\x7fELF"``) or the PTX text (ASCII, no
        trailing NUL).

    Raises
    ------
    CompileError
        The source failed to compile; ``log`` holds the compiler's output and
        the message the offending source lines.
    CompilerNotFoundError
        No compiler (or not the requested one) is installed.
    TypeError
        For arguments of the wrong type (``options`` given as one string...).
    ValueError
        For a malformed ``arch``, ``code`` or ``target``, an unknown
        ``backend``, or no ``arch`` with no current context.
    """
    if arch is None and code is None and not _has_arch_option(options):
        arch, max_major = _current_arch()
    else:
        max_major = None
    image = _build(source, nvcc, options, keep, no_extern_c, arch, code,
                   cache_dir, include_dirs, target, backend, max_major)[0]
    return image


def _has_arch_option(options):
    if not options or isinstance(options, (str, bytes)):
        return False
    return any(isinstance(o, str) and (o == "-arch" or o.startswith(
        ("-arch=", "-arch ", "--gpu-architecture", "-gpu-architecture")))
        for o in options)


# --------------------------------------------------------------------------
# SourceModule and the in-memory cache

#: (context handle, class, source, nvcc, options, no_extern_c, arch, code,
#: include_dirs) -> SourceModule
_modules = {}


class SourceModule:
    """Compile CUDA C++ and load it into the current context.

    ``SourceModule(source)`` with the same arguments in the same context
    returns the same object (the in-memory cache); otherwise the image
    comes from the disk cache or the compiler (see :func:`compile`) and is
    loaded with :func:`gpuarr.driver.module_from_buffer`
    (``cuModuleLoadData``).

    Parameters
    ----------
    source, nvcc, options, keep, no_extern_c, arch, code, cache_dir, include_dirs
        As for :func:`compile`. ``arch`` defaults to the current device's
        ``sm_XY``; then, if NVRTC is older than the device and cannot emit
        its cubin, PTX for the newest architecture it knows is loaded
        instead (the driver JIT-compiles it).

    Attributes
    ----------
    module : gpuarr.driver.Module
        The loaded module.
    cubin : bytes
        The image that was loaded (a cubin, or PTX in the case above).
    arch : str
        The ``sm_XY`` the image was requested for.
    image_kind : {"cubin", "ptx"}
    compiler : {"nvrtc", "nvcc"}
        Which compiler built it (also on a disk-cache hit).

    Raises
    ------
    gpuarr._errors.InvalidContextError
        No context is current in this thread.
    CompileError, CompilerNotFoundError, TypeError, ValueError
        As for :func:`compile`.
    gpuarr.driver.Error
        The driver refused the image (``cuModuleLoadData``).
    """

    def __new__(cls, source, nvcc="nvcc", options=None, keep=False,
                no_extern_c=False, arch=None, code=None, cache_dir=None,
                include_dirs=()):
        drv = _drv if _drv is not None else _driver()
        ctx = drv.Context.get_current()
        if ctx is None:
            raise no_context_error()
        key = (ctx.handle, cls, source, nvcc,
               tuple(options) if options else (), no_extern_c, arch, code,
               tuple(include_dirs) if include_dirs else ())
        if not keep:
            try:
                hit = _modules[key]
                # A detached context's handle may be reused by a new context;
                # the entry holds its context, so identity tells them apart.
                if hit._context is ctx:
                    return hit
            except (KeyError, TypeError):  # TypeError: unhashable arguments
                pass
        self = super().__new__(cls)
        self._load(drv, ctx, source, nvcc, options, keep, no_extern_c, arch,
                   code, cache_dir, include_dirs)
        if not keep:
            try:
                old = _modules.get(key)
                if old is not None and old._context is ctx:
                    self = old  # a racing thread got there first
                else:
                    _modules[key] = self
            except TypeError:
                pass
        return self

    def __init__(self, *args, **kwargs):
        # All the work is in __new__ (a cache hit returns an existing object);
        # this accepts the arguments so subclasses may call super().__init__.
        pass

    def _load(self, drv, ctx, source, nvcc, options, keep, no_extern_c, arch,
              code, cache_dir, include_dirs):
        fallback = arch is None and code is None and not _has_arch_option(options)
        if fallback:
            major, minor = ctx.get_device().compute_capability()
            arch = "sm_%d%d" % (major, minor)
        image, kind, compiler, arch = _build(
            source, nvcc, options, keep, no_extern_c, arch, code, cache_dir,
            include_dirs, "cubin", None, _driver_major(drv), fallback)
        self.module = drv.module_from_buffer(image)
        self._context = ctx
        self.cubin = image
        self.arch = arch
        self.image_kind = kind
        self.compiler = compiler

    def get_function(self, name):
        """The kernel ``name`` (``cuModuleGetFunction``).

        Parameters
        ----------
        name : str
            The kernel's name (unmangled unless ``no_extern_c``).

        Returns
        -------
        gpuarr.driver.Function

        Raises
        ------
        gpuarr.driver.LogicError
            No such kernel (``CUDA_ERROR_NOT_FOUND``).
        """
        return self.module.get_function(name)

    def get_global(self, name):
        """A ``__device__``/``__constant__`` variable (``cuModuleGetGlobal``).

        Parameters
        ----------
        name : str

        Returns
        -------
        tuple of int
            ``(device address, size in bytes)``.

        Raises
        ------
        gpuarr.driver.LogicError
            No such variable.
        """
        return self.module.get_global(name)

    def __getattr__(self, name):
        # get_texref, get_surfref and whatever else the Module offers.
        if name in ("module", "_context"):
            raise AttributeError(name)
        return getattr(self.module, name)

    def __repr__(self):
        return "<%s %s %s via %s>" % (type(self).__name__, self.arch,
                                      self.image_kind, self.compiler)


def clear_memory_cache(context=None):
    """Forget loaded modules kept by the in-memory cache.

    Parameters
    ----------
    context : gpuarr.driver.Context or int, optional
        Only this context's (or context handle's) modules; default all.
        The driver layer should call this when a context is destroyed, as
        a new context may get the same handle.

    Returns
    -------
    int
        The number of entries removed.
    """
    if context is None:
        n = len(_modules)
        _modules.clear()
        return n
    handle = context if isinstance(context, int) else context.handle
    dead = [k for k in list(_modules) if k[0] == handle]
    for k in dead:
        _modules.pop(k, None)
    return len(dead)


def default_cache_dir():
    """The disk-cache directory used when ``cache_dir`` is None.

    Returns
    -------
    str or None
        None when ``GPUARR_CACHE=0``.
    """
    return _disk_dir(None)


def clear_disk_cache(cache_dir=None):
    """Delete the compiled images kept on disk.

    Parameters
    ----------
    cache_dir : str or os.PathLike, optional
        Default: :func:`default_cache_dir` (even when ``GPUARR_CACHE=0``).

    Returns
    -------
    int
        The number of files removed.
    """
    if cache_dir is None:
        cache_dir = os.path.join(_config.settings.cache_dir, "kernels")
    return _cache.clear(os.fspath(cache_dir))
