"""Separately compiled, linked device code (layer 3): PyCUDA's
``DynamicModule``, ``DynamicSourceModule`` and ``get_nvcc_version``,
offered by :mod:`gpuarr.compiler`.

Sources are compiled to *relocatable* device code (``-rdc=true``) by
:func:`gpuarr.compiler.compile` (NVRTC or nvcc, with its caches), and the
pieces are linked with the driver's linker (:class:`gpuarr.driver.Linker`,
``cuLink*``) into one module. ``DynamicSourceModule`` links one source with
the device runtime library ``libcudadevrt.a`` so that kernels can launch
kernels (dynamic parallelism).

``libcudadevrt.a`` (and the other static libraries :meth:`DynamicModule.add_stdlib`
takes) is looked for in ``cuda_libdir``, the CUDA toolkit
(``$CUDA_PATH``, ``$CUDA_HOME``, ``$CUDA_ROOT``, ``/usr/local/cuda``: ``lib64``,
``lib``, ``targets/<arch>-linux/lib``), NVIDIA's wheels (``nvidia/cu13/lib``
of ``nvidia-cuda-runtime``, CUDA 12's ``nvidia/cuda_runtime/lib``),
``LD_LIBRARY_PATH``, ``/usr/lib/<arch>-linux-gnu`` and next to nvcc.

The driver links code of its own CUDA version or older: relocatable code
from an NVRTC newer than the driver is refused there (the error says what
to install); nvJitLink (``pip install nvidia-nvjitlink``) links it.
"""

import functools
import os
import subprocess

from . import _nvjitlink, _toolchain, compiler

__all__ = ["get_nvcc_version", "find_cuda_library", "DynamicModule",
           "DynamicSourceModule"]


@functools.lru_cache(maxsize=None)
def get_nvcc_version(nvcc="nvcc"):
    """The output of ``nvcc --version`` (PyCUDA's ``get_nvcc_version``).

    Parameters
    ----------
    nvcc : str, optional
        Name or path of nvcc.

    Returns
    -------
    str
        nvcc's version text; when nvcc cannot be run or prints nothing, a
        warning giving the reason and ``"nvcc version unknown"`` (PyCUDA
        warns too, with another placeholder). Remembered per ``nvcc``.
    """
    if not isinstance(nvcc, str) or not nvcc:
        raise TypeError("nvcc must be the name or path of nvcc, got %r" % (nvcc,))
    path = _toolchain.which(nvcc) or nvcc
    try:
        proc = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        why = str(exc) or type(exc).__name__
    else:
        if proc.returncode == 0 and proc.stdout:
            return proc.stdout.decode("utf-8", "replace")
        why = ("exit status %d" % proc.returncode if proc.returncode
               else "it printed nothing")
    import warnings
    warnings.warn("get_nvcc_version: `%s --version` gave no version (%s); "
                  "returning %r" % (nvcc, why, _NVCC_UNKNOWN), stacklevel=2)
    return _NVCC_UNKNOWN


#: get_nvcc_version's answer when nvcc cannot tell
_NVCC_UNKNOWN = "nvcc version unknown"


def _library_dirs(cuda_libdir):
    machine = os.uname().machine
    dirs = []
    if cuda_libdir:
        dirs.append(os.fspath(cuda_libdir))
    roots = list(_toolchain.toolkit_roots())
    if os.environ.get("CUDA_ROOT"):
        roots.insert(0, os.environ["CUDA_ROOT"])
    for root in roots:
        dirs += [os.path.join(root, "lib64"), os.path.join(root, "lib"),
                 os.path.join(root, "targets", "%s-linux" % machine, "lib")]
    for base in _toolchain.nvidia_dirs():
        dirs += [os.path.join(base, "cu13", "lib"),
                 os.path.join(base, "cuda_runtime", "lib")]
    dirs += [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    dirs.append("/usr/lib/%s-linux-gnu" % machine)
    nvcc = _toolchain.which("nvcc")
    if nvcc is not None:
        dirs.append(os.path.join(os.path.dirname(os.path.realpath(nvcc)), "..", "lib64"))
    return dirs


def find_cuda_library(libname, cuda_libdir=None):
    """The path of CUDA's static library ``lib<libname>.a``.

    Parameters
    ----------
    libname : str
        Such as ``"cudadevrt"``.
    cuda_libdir : str, optional
        Looked in first (PyCUDA's ``cuda_libdir``).

    Returns
    -------
    str

    Raises
    ------
    OSError
        Not found; the message lists where it was looked for and what to
        install.
    """
    if not isinstance(libname, str) or not libname or os.sep in libname:
        raise ValueError("libname must be a library name such as 'cudadevrt', "
                         "got %r" % (libname,))
    name = "lib%s.a" % libname
    dirs = _library_dirs(cuda_libdir)
    for d in dirs:
        path = os.path.join(d, name)
        if os.path.isfile(path):
            return os.path.normpath(path)
    raise FileNotFoundError(
        "CUDA library %s not found (looked in %s); `pip install "
        "nvidia-cuda-runtime` ships libcudadevrt.a, or install the CUDA "
        "toolkit, or pass cuda_libdir=" % (name, ", ".join(dirs)))


def _current_device_arch():
    from . import driver
    ctx = driver.Context.get_current()
    if ctx is None:
        from ._errors import no_context_error
        raise no_context_error()
    return ctx.get_device().compute_capability()


class DynamicModule:
    """Device code from several pieces, linked into one module (PyCUDA's
    ``DynamicModule``): sources (compiled to relocatable code), PTX,
    cubins, fatbinaries, objects and libraries.

    Parameters
    ----------
    nvcc, keep, no_extern_c, arch, code, cache_dir, include_dirs
        As for :class:`gpuarr.compiler.SourceModule`; used by
        :meth:`add_source`. ``arch`` defaults to the current device's.
    link_options : list of (jit_option, int), optional
        Options of the link (``cuLinkCreate``). When nvJitLink links, they
        become its flags (:func:`gpuarr._nvjitlink.link_flags` lists those
        it has); an option it lacks raises ``ValueError``, also under
        ``linker="auto"``: pass ``linker="driver"`` for it.
    message_handler : callable, optional
        ``message_handler(succeeded, info_log, error_log)`` after linking.
    log_verbose : bool, optional
        A verbose link log (nvJitLink: ``-verbose``).
    cuda_libdir : str, optional
        Where :meth:`add_stdlib` looks first.
    linker : {"auto", "driver", "nvjitlink"}, optional
        gpuarr's addition: who links. ``"auto"`` takes nvJitLink where it
        is installed and no older than the compiler, else the driver.

    Attributes
    ----------
    linked_by : {"driver", "nvjitlink"}

    Raises
    ------
    gpuarr._errors.InvalidContextError
        No current context.
    ValueError
        An unknown ``linker``, ``"nvjitlink"`` where none is installed, or
        a link option nvJitLink lacks when it links.
    TypeError
        ``link_options`` holds something other than ``(jit_option, int)``
        pairs (checked when nvJitLink links; the driver's Linker checks
        its own).

    Notes
    -----
    Each ``add_*`` returns the module, so calls chain; :meth:`link` ends
    it, after which ``get_function`` and ``get_global`` work.
    """

    def __init__(self, nvcc="nvcc", link_options=None, keep=False,
                 no_extern_c=False, arch=None, code=None, cache_dir=None,
                 include_dirs=(), message_handler=None, log_verbose=False,
                 cuda_libdir=None, linker="auto"):
        from . import driver
        major, minor = _current_device_arch()
        if (major, minor) < (3, 5):
            raise ValueError("dynamic parallelism needs compute capability 3.5 "
                             "or newer (found %d.%d)" % (major, minor))
        target = arch if arch is not None else (code or "sm_%d%d" % (major, minor))
        jit = self._nvjitlink(linker, nvcc)
        if jit is not None:
            try:
                flags = _nvjitlink.link_flags(link_options, log_verbose)
            except ValueError as exc:
                if linker == "auto":
                    exc.args = ("%s (linker='auto' chose nvJitLink %d.%d)"
                                % (exc.args[0], jit.version[0], jit.version[1]),)
                raise
            self.linker = _nvjitlink.NvJitLinker(jit, target, message_handler,
                                                 flags)
            self.linked_by = "nvjitlink"
        else:
            self.linker = driver.Linker(message_handler, link_options, log_verbose)
            self.linked_by = "driver"
        self.nvcc = nvcc
        self.keep = keep
        self.no_extern_c = no_extern_c
        self.arch = arch if arch is not None else (
            None if code is not None else "sm_%d%d" % (major, minor))
        self.code = code
        self.cache_dir = cache_dir
        self.include_dirs = list(include_dirs or ())
        self.cuda_libdir = cuda_libdir
        self.module = None
        self._input = driver.jit_input_type

    @staticmethod
    def _nvjitlink(linker, nvcc):
        """The nvJitLink to link with, or None for the driver's linker."""
        if linker not in ("auto", "driver", "nvjitlink"):
            raise ValueError("linker must be 'auto', 'driver' or 'nvjitlink', "
                             "got %r" % (linker,))
        if linker == "driver":
            return None
        import warnings
        from . import _nvrtc
        from ._errors import Error
        jit = _nvjitlink.load()
        if jit is None:
            why = _nvjitlink.load_error()
            if linker == "nvjitlink":
                raise ValueError("linker='nvjitlink' but nvJitLink was %s" % why)
            if why is not None and why.startswith("found"):
                warnings.warn("linker='auto': nvJitLink was %s; the driver "
                              "links" % why, _toolchain.CompilerWarning,
                              stacklevel=4)
            return None
        if linker == "nvjitlink":
            return jit
        try:
            name, path = compiler.find_compiler(nvcc=nvcc)
        except _nvrtc.CompilerNotFoundError:
            return None              # add_source will say so; data links anyway
        if name != "nvrtc":
            return None              # nvcc's version: not known without running it
        try:
            version = _nvrtc.load(path).version
        except (OSError, Error) as exc:
            warnings.warn("linker='auto': NVRTC at %s could not be loaded to "
                          "compare its version with nvJitLink %d.%d (%s); the "
                          "driver links" % (path, jit.version[0], jit.version[1],
                                            exc),
                          _toolchain.CompilerWarning, stacklevel=4)
            return None
        if version > jit.version:
            return None              # an older nvJitLink cannot read the code
        return jit

    def _check_open(self):
        if self.linker is None:
            raise RuntimeError("this DynamicModule is linked already")

    def add_source(self, source, nvcc_options=None, name="kernel.ptx"):
        """Compile ``source`` to relocatable device code and add it.

        Parameters
        ----------
        source : str
            CUDA C++ (wrapped in ``extern "C"`` unless ``no_extern_c``).
        nvcc_options : list of str, optional
            Compiler options; ``-rdc=true`` is added.
        name : str, optional
            The name the link log uses.

        Returns
        -------
        DynamicModule
        """
        self._check_open()
        options = list(nvcc_options or ())
        if not any(o in ("-rdc=true", "--relocatable-device-code=true", "-dc",
                         "--device-c") for o in options):
            options.append("-rdc=true")
        image = compiler.compile(source, nvcc=self.nvcc, options=options,
                                 keep=self.keep, no_extern_c=self.no_extern_c,
                                 arch=self.arch, code=self.code,
                                 cache_dir=self.cache_dir,
                                 include_dirs=self.include_dirs, target="cubin")
        kind = self._input.CUBIN if image[:4] == b"\x7fELF" else self._input.PTX
        self._add(image, kind, name)
        return self

    def _add(self, data, kind, name):
        try:
            self.linker.add_data(data, kind, name)
        except Exception as exc:
            raise self._explain(exc) from None

    def _explain(self, exc):
        """Add, to a link failure, the likely reason: code newer than the
        driver."""
        from ._errors import Error
        msg = str(exc)
        if not isinstance(exc, Error) or "newer" not in msg.lower():
            return exc
        note = ("\nNote: the driver links only code of its CUDA version or "
                "older: `pip install nvidia-nvjitlink` (of NVRTC's version) "
                "links on the host instead, or compile with an NVRTC (or "
                "nvcc) no newer than the driver, e.g. `pip install "
                "'nvidia-cuda-nvrtc==13.0.*'` for a CUDA 13.0 driver, or "
                "GPUARR_NVRTC=/path/to/libnvrtc.so")
        try:
            exc.args = (msg + note,) + tuple(exc.args[1:])
        except Exception:
            pass
        return exc

    def add_data(self, data, input_type, name="unknown"):
        """Add an image in memory (``jit_input_type.PTX``, ``CUBIN``,
        ``FATBINARY``, ``OBJECT``, ``LIBRARY``). Returns the module."""
        self._check_open()
        self._add(data, input_type, name)
        return self

    def add_file(self, filename, input_type):
        """Add an image file. Returns the module."""
        self._check_open()
        try:
            self.linker.add_file(filename, input_type)
        except Exception as exc:
            raise self._explain(exc) from None
        return self

    def add_stdlib(self, libname):
        """Add CUDA's static library ``lib<libname>.a`` (such as
        ``"cudadevrt"``), found by :func:`find_cuda_library`. Returns the
        module."""
        self._check_open()
        path = find_cuda_library(libname, self.cuda_libdir)
        return self.add_file(path, self._input.LIBRARY)

    def link(self):
        """Link and load; returns the module."""
        self._check_open()
        try:
            self.module = self.linker.link_module()
        except Exception as exc:
            raise self._explain(exc) from None
        self.linker = None
        return self

    def get_function(self, name):
        """The kernel ``name`` of the linked module."""
        if self.module is None:
            raise RuntimeError("call link() first")
        return self.module.get_function(name)

    def get_global(self, name):
        """``(address, nbytes)`` of a ``__device__``/``__constant__``
        variable of the linked module."""
        if self.module is None:
            raise RuntimeError("call link() first")
        return self.module.get_global(name)

    def __getattr__(self, name):
        if name in ("module", "linker"):
            raise AttributeError(name)
        module = self.__dict__.get("module")
        if module is None:
            raise AttributeError(name)
        return getattr(module, name)


class DynamicSourceModule(DynamicModule):
    """One source compiled to relocatable code and linked with the device
    runtime (``libcudadevrt.a``), so that its kernels may launch kernels
    (PyCUDA's ``DynamicSourceModule``).

    Parameters
    ----------
    source : str
    nvcc, options, keep, no_extern_c, arch, code, cache_dir, include_dirs
        As for :class:`gpuarr.compiler.SourceModule`.
    cuda_libdir : str, optional
        Where ``libcudadevrt.a`` is looked for first.
    linker : {"auto", "driver", "nvjitlink"}, optional
        As for :class:`DynamicModule`.

    Raises
    ------
    CompileError, OSError (no ``libcudadevrt.a``), gpuarr.driver.Error
    """

    def __init__(self, source, nvcc="nvcc", options=None, keep=False,
                 no_extern_c=False, arch=None, code=None, cache_dir=None,
                 include_dirs=(), cuda_libdir=None, linker="auto"):
        super().__init__(nvcc=nvcc, keep=keep, no_extern_c=no_extern_c,
                         arch=arch, code=code, cache_dir=cache_dir,
                         include_dirs=include_dirs, cuda_libdir=cuda_libdir,
                         linker=linker)
        options = [o for o in (options or ()) if o != "-lcudadevrt"]
        self.add_source(source, nvcc_options=options)
        self.add_stdlib("cudadevrt")
        self.link()
