"""NVRTC, the CUDA runtime compilation library, found and loaded at run time.

No GPU and no driver are needed. The library is located with ``os.stat``
calls only (:func:`find_library`), so that a disk-cache hit can name the
compiler in its key without loading 140 MB of shared library; it is loaded
with :mod:`ctypes` on the first compile (:func:`load`). Compiling is not a
hot path (tens of milliseconds), so ctypes' call overhead does not matter.

Search order (the first existing file wins; see :func:`candidates`):

1. ``GPUARR_NVRTC`` (a full path). When set, nothing else is tried.
2. The ``nvidia-cuda-nvrtc`` wheels: ``nvidia/cu13/lib/libnvrtc.so.13``
   (CUDA 13) then ``nvidia/cuda_nvrtc/lib/libnvrtc.so.12`` (CUDA 12), in
   every directory of the ``nvidia`` namespace package.
3. ``$CUDA_PATH/lib64``, ``$CUDA_HOME/lib64``, ``/usr/local/cuda/lib64``.
4. ``libnvrtc.so.13``, ``libnvrtc.so.12``, ``libnvrtc.so`` in the
   ``LD_LIBRARY_PATH`` directories and the system library directories, and
   finally through the dynamic loader itself (``dlopen`` of the bare name).

A caller that knows the driver's CUDA major version passes it as
``max_major``: a library whose file name says it is newer is then skipped
in favour of an older one, because neither its cubins nor its PTX load on an
older driver (a newer *minor* version is fine for cubins).
"""

import os
import re
import sys
import threading

from . import _config
from ._errors import RuntimeError as _GpuarrRuntimeError

__all__ = ["CompilerNotFoundError", "NVRTC", "candidates", "find_library",
           "load", "preload", "reset", "nvidia_dirs", "INSTALL_HINT"]

#: What to tell a user who has no compiler at all.
INSTALL_HINT = ("install NVRTC with `pip install nvidia-cuda-nvrtc` (NVIDIA's "
                "wheel; from a gpuarr checkout, `pip install \".[nvrtc]\"` "
                "brings it), or the CUDA toolkit (which provides both NVRTC "
                "and nvcc), or point GPUARR_NVRTC at libnvrtc.so")

_WHEEL_LIBS = (
    ("cu13", "lib", "libnvrtc.so.13"),
    ("cuda_nvrtc", "lib", "libnvrtc.so.12"),
)
_SONAMES = ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so")
_SYSTEM_DIRS = (
    "/usr/local/cuda/targets/{m}-linux/lib", "/usr/lib/{m}-linux-gnu",
    "/lib/{m}-linux-gnu", "/usr/lib64", "/lib64", "/usr/local/lib",
    "/usr/lib", "/lib",
)

#: nvrtcResult values, from nvrtc.h.
RESULT_NAMES = {
    0: "NVRTC_SUCCESS", 1: "NVRTC_ERROR_OUT_OF_MEMORY",
    2: "NVRTC_ERROR_PROGRAM_CREATION_FAILURE", 3: "NVRTC_ERROR_INVALID_INPUT",
    4: "NVRTC_ERROR_INVALID_PROGRAM", 5: "NVRTC_ERROR_INVALID_OPTION",
    6: "NVRTC_ERROR_COMPILATION", 7: "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    8: "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    9: "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
    10: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
    11: "NVRTC_ERROR_INTERNAL_ERROR", 12: "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
}


class CompilerNotFoundError(_GpuarrRuntimeError):
    """Neither NVRTC nor nvcc (or not the one that was asked for) was found.

    A subclass of :class:`gpuarr._errors.RuntimeError`, hence also of the
    builtin :class:`RuntimeError`. The message says what to install.

    Parameters
    ----------
    message : str
        What was looked for, where, and what to install.
    code, name, description, call : optional
        :class:`gpuarr._errors.Error`'s driver fields (``CUresult``, its
        symbolic name and description, the failing call); None here,
        since no driver call fails.
    """


_lock = threading.Lock()
_found = {}       # (settings object, max_major) -> path or None
_loaded = {}      # path -> NVRTC


def reset():
    """Forget located and loaded libraries (for tests that change the
    environment). Loaded libraries stay mapped in the process."""
    with _lock:
        _found.clear()
        _loaded.clear()


def nvidia_dirs():
    """The directories of the ``nvidia`` namespace package (where NVIDIA's
    wheels put ``cu13/lib``, ``curand/include``, ...), found without
    importing it.

    Returns
    -------
    list of str
        Possibly empty.
    """
    mod = sys.modules.get("nvidia")
    if mod is not None:
        return list(getattr(mod, "__path__", ()))
    from importlib.machinery import PathFinder
    try:
        spec = PathFinder.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return list(spec.submodule_search_locations)


def _soname_major(path):
    m = re.search(r"\.so\.(\d+)", os.path.basename(path))
    return int(m.group(1)) if m else None


def candidates():
    """List the paths where NVRTC is looked for, in order, without touching
    the file system beyond locating the ``nvidia`` package directories.

    Returns
    -------
    list of str
        Full paths (the bare-name ``dlopen`` step is not included). When
        ``GPUARR_NVRTC`` is set, only that path.
    """
    env = _config.settings.nvrtc_path
    if env:
        return [env]
    out = []
    for base in nvidia_dirs():
        for parts in _WHEEL_LIBS:
            out.append(os.path.join(base, *parts))
    for var in ("CUDA_PATH", "CUDA_HOME"):
        root = os.environ.get(var)
        if root:
            for name in _SONAMES:
                out.append(os.path.join(root, "lib64", name))
    for name in _SONAMES:
        out.append(os.path.join("/usr/local/cuda/lib64", name))
    machine = os.uname().machine
    dirs = [d for d in os.environ.get("LD_LIBRARY_PATH", "").split(":") if d]
    dirs += [d.format(m=machine) for d in _SYSTEM_DIRS]
    for d in dirs:
        for name in _SONAMES:
            out.append(os.path.join(d, name))
    return out


def _path_of_loaded(handle_name):
    """Where the dynamic loader found a library we just loaded (Linux)."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(path).startswith(handle_name):
                    return path
    except OSError:
        pass
    return None


def find_library(max_major=None):
    """Locate NVRTC without loading it (unless only the loader can find it).

    Parameters
    ----------
    max_major : int, optional
        The newest CUDA major version usable (the driver's). Libraries whose
        file name carries a newer major version are used only if nothing
        else is found.

    Returns
    -------
    str or None
        The real path (symlinks resolved) of the library, or None when none
        was found. The result is remembered for the process (see
        :func:`reset`).

    Raises
    ------
    CompilerNotFoundError
        When ``GPUARR_NVRTC`` names a file that does not exist.
    """
    settings = _config.settings
    memo_key = (settings, max_major)  # the key keeps settings alive
    try:
        return _found[memo_key]
    except KeyError:
        pass
    env = settings.nvrtc_path
    if env:
        if not os.path.isfile(env):
            raise CompilerNotFoundError(
                "GPUARR_NVRTC=%s: no such file; unset it or point it at "
                "libnvrtc.so.13 (or .12)" % env)
        result = os.path.realpath(env)
    else:
        result = None
        too_new = None
        for path in candidates():
            if not os.path.isfile(path):
                continue
            major = _soname_major(path)
            if max_major is not None and major is not None and major > max_major:
                too_new = too_new or path
                continue
            result = path
            break
        if result is None:
            result = _dlopen_bare(max_major)
        if result is None:
            result = too_new
        if result is not None:
            result = os.path.realpath(result)
    _found[memo_key] = result
    return result


def _dlopen_bare(max_major):
    """Last resort: let the dynamic loader search (ld.so.cache, rpath)."""
    import ctypes
    for name in _SONAMES:
        major = _soname_major(name)
        if max_major is not None and major is not None and major > max_major:
            continue
        try:
            ctypes.CDLL(name)
        except OSError:
            continue
        return _path_of_loaded("libnvrtc.so")
    return None


def identity(path):
    """The part of a cache key that names an NVRTC build, from ``os.stat``.

    Parameters
    ----------
    path : str
        The library's path, from :func:`find_library`.

    Returns
    -------
    tuple
        ``("nvrtc", path, size in bytes, mtime in ns)``. Any change of
        library (an upgrade of the wheel, another toolkit) changes it, and
        obtaining it costs one ``stat`` call, never a library load.
    """
    st = os.stat(path)
    return ("nvrtc", path, st.st_size, st.st_mtime_ns)


class NVRTC:
    """One loaded NVRTC library.

    Parameters
    ----------
    path : str
        Path of ``libnvrtc.so.*``.

    Attributes
    ----------
    path : str
    version : tuple of int
        ``(major, minor)`` from ``nvrtcVersion``.

    Raises
    ------
    OSError
        When the library cannot be loaded (``dlopen`` failed).
    """

    def __init__(self, path):
        import ctypes
        self._ct = ctypes
        lib = ctypes.CDLL(path)
        self.path = path
        self._lib = lib
        c_int_p = ctypes.POINTER(ctypes.c_int)
        c_size_p = ctypes.POINTER(ctypes.c_size_t)
        prog = ctypes.c_void_p
        sigs = {
            "nvrtcVersion": (c_int_p, c_int_p),
            "nvrtcCreateProgram": (ctypes.POINTER(prog), ctypes.c_char_p,
                                   ctypes.c_char_p, ctypes.c_int,
                                   ctypes.c_void_p, ctypes.c_void_p),
            "nvrtcCompileProgram": (prog, ctypes.c_int,
                                    ctypes.POINTER(ctypes.c_char_p)),
            "nvrtcDestroyProgram": (ctypes.POINTER(prog),),
            "nvrtcGetProgramLogSize": (prog, c_size_p),
            "nvrtcGetProgramLog": (prog, ctypes.c_char_p),
            "nvrtcGetPTXSize": (prog, c_size_p),
            "nvrtcGetPTX": (prog, ctypes.c_char_p),
            "nvrtcGetCUBINSize": (prog, c_size_p),
            "nvrtcGetCUBIN": (prog, ctypes.c_char_p),
            "nvrtcGetNumSupportedArchs": (c_int_p,),
            "nvrtcGetSupportedArchs": (c_int_p,),
        }
        sigs["nvrtcInstallBundledHeaders"] = (ctypes.c_char_p, ctypes.c_uint,
                                              ctypes.POINTER(ctypes.c_char_p))
        self._fn = {}
        for name, argtypes in sigs.items():
            fn = getattr(lib, name, None)
            if fn is None:  # nvrtcGetCUBIN is 11.1+, supported archs 11.2+
                continue
            fn.argtypes = argtypes
            fn.restype = ctypes.c_int
            self._fn[name] = fn
        err = getattr(lib, "nvrtcGetErrorString", None)
        if err is not None:
            err.argtypes = (ctypes.c_int,)
            err.restype = ctypes.c_char_p
        self._error_string = err
        major, minor = ctypes.c_int(), ctypes.c_int()
        self._check(self._fn["nvrtcVersion"](ctypes.byref(major),
                                             ctypes.byref(minor)),
                    "nvrtcVersion")
        self.version = (major.value, minor.value)
        self._archs = None

    def __repr__(self):
        return "<NVRTC %d.%d at %s>" % (self.version + (self.path,))

    def error_name(self, code):
        """The ``NVRTC_ERROR_*`` name of an ``nvrtcResult``."""
        if self._error_string is not None:
            s = self._error_string(code)
            if s:
                return s.decode("ascii", "replace")
        return RESULT_NAMES.get(code, "NVRTC_ERROR_%d" % code)

    def _check(self, code, call):
        if code != 0:
            name = self.error_name(code)
            raise _GpuarrRuntimeError("%s failed: %s" % (call, name),
                                      name=name, call=call)

    @property
    def has_cubin(self):
        """True when this NVRTC can emit cubins (``nvrtcGetCUBIN``, 11.1+)."""
        return "nvrtcGetCUBIN" in self._fn

    @property
    def has_bundled_headers(self):
        """True when this NVRTC carries the toolkit's headers and CCCL
        (``nvrtcInstallBundledHeaders``, 13.3+)."""
        return "nvrtcInstallBundledHeaders" in self._fn

    def install_bundled_headers(self, path):
        """Extract the headers this NVRTC bundles into ``path`` (once).

        NVRTC 13.3+ carries ``cuda_fp16.h``, ``cuda_bf16.h``,
        ``cooperative_groups.h``, ``mma.h``, ... and CCCL (CUB, Thrust,
        ``<cuda/std/...>``, in ``cccl/``), matched to itself. NVRTC skips
        the work when ``path`` already holds this version (a marker file),
        and serializes concurrent calls with a file lock.

        Parameters
        ----------
        path : str
            Directory (created if missing).

        Returns
        -------
        tuple of str
            The include directories: ``(path, path/cccl)``; empty when
            this NVRTC has no bundled headers.

        Raises
        ------
        gpuarr._errors.RuntimeError
            NVRTC could not extract them; the message holds NVRTC's result
            name and its own explanation (``errorLog``), when it gave one.
        """
        fn = self._fn.get("nvrtcInstallBundledHeaders")
        if fn is None:
            return ()
        ct = self._ct
        err = ct.c_char_p()
        code = fn(os.fsencode(path), 0, ct.byref(err))
        if code != 0:
            name = self.error_name(code)
            why = err.value.decode("utf-8", "replace").strip() if err.value else ""
            raise _GpuarrRuntimeError(
                "nvrtcInstallBundledHeaders(%r) failed: %s%s"
                % (path, name, (" (%s)" % why) if why else ""),
                name=name, call="nvrtcInstallBundledHeaders")
        cccl = os.path.join(path, "cccl")
        return (path, cccl) if os.path.isdir(cccl) else (path,)

    def supported_archs(self):
        """The ``sm_XY`` numbers this NVRTC can compile for.

        Returns
        -------
        tuple of int
            Such as ``(75, 80, 86, 87, 88, 89, 90, 100, ...)``, from
            ``nvrtcGetSupportedArchs``; empty if this NVRTC predates it.
        """
        if self._archs is None:
            ct = self._ct
            if "nvrtcGetSupportedArchs" not in self._fn:
                self._archs = ()
            else:
                n = ct.c_int()
                self._check(self._fn["nvrtcGetNumSupportedArchs"](ct.byref(n)),
                            "nvrtcGetNumSupportedArchs")
                arr = (ct.c_int * n.value)()
                self._check(self._fn["nvrtcGetSupportedArchs"](arr),
                            "nvrtcGetSupportedArchs")
                self._archs = tuple(arr)
        return self._archs

    def compile(self, source, name, options, target, headers=()):
        """Compile one translation unit.

        Parameters
        ----------
        source : bytes
            CUDA C++ source, UTF-8.
        name : str
            The program name NVRTC uses in its messages (``kernel.cu``).
        options : sequence of str
            NVRTC options, including ``-arch=sm_XY`` or ``-arch=compute_XY``.
        target : {"cubin", "ptx"}
            What to retrieve (``nvrtcGetCUBIN`` or ``nvrtcGetPTX``).
        headers : sequence of (str, bytes), optional
            Headers given by name and contents (``nvrtcCreateProgram``'s
            ``headers``/``includeNames``): ``#include <name>`` finds them
            before any ``-I`` directory.

        Returns
        -------
        result : int
            The ``nvrtcResult`` of ``nvrtcCompileProgram`` (0 on success).
        image : bytes or None
            The cubin, or the PTX text with its trailing NUL removed; None
            when compiling failed.
        log : str
            NVRTC's program log (warnings on success, errors on failure).

        Raises
        ------
        gpuarr._errors.RuntimeError
            When an NVRTC call other than the compile itself fails (program
            creation, out of memory), or when ``target`` is ``"cubin"`` and
            this NVRTC cannot emit cubins.
        """
        ct = self._ct
        fn = self._fn
        prog = ct.c_void_p()
        n = len(headers)
        if n:
            contents = (ct.c_char_p * n)(*[h[1] for h in headers])
            names = (ct.c_char_p * n)(*[h[0].encode() for h in headers])
        else:
            contents = names = None
        self._check(fn["nvrtcCreateProgram"](ct.byref(prog), source,
                                             name.encode(), n, contents, names),
                    "nvrtcCreateProgram")
        try:
            opts = [o.encode() for o in options]
            arr = (ct.c_char_p * len(opts))(*opts)
            result = fn["nvrtcCompileProgram"](prog, len(opts), arr)
            size = ct.c_size_t()
            self._check(fn["nvrtcGetProgramLogSize"](prog, ct.byref(size)),
                        "nvrtcGetProgramLogSize")
            buf = ct.create_string_buffer(size.value)
            self._check(fn["nvrtcGetProgramLog"](prog, buf), "nvrtcGetProgramLog")
            log = buf.value.decode("utf-8", "replace")
            if result != 0:
                return result, None, log
            if target == "cubin":
                if not self.has_cubin:
                    raise _GpuarrRuntimeError(
                        "NVRTC %d.%d at %s cannot emit cubins (needs 11.1+)"
                        % (self.version + (self.path,)))
                get_size, get = "nvrtcGetCUBINSize", "nvrtcGetCUBIN"
            else:
                get_size, get = "nvrtcGetPTXSize", "nvrtcGetPTX"
            self._check(fn[get_size](prog, ct.byref(size)), get_size)
            buf = ct.create_string_buffer(size.value)
            self._check(fn[get](prog, buf), get)
            image = buf.raw
            if target == "ptx":
                image = image.rstrip(b"\x00")
            return result, image, log
        finally:
            fn["nvrtcDestroyProgram"](ct.byref(prog))


def load(path):
    """Load (once per process) the NVRTC at ``path``.

    Parameters
    ----------
    path : str
        From :func:`find_library`.

    Returns
    -------
    NVRTC

    Raises
    ------
    CompilerNotFoundError
        When the file cannot be loaded (wrong architecture, missing
        dependencies, not a shared library); the ``dlopen`` message is kept.
    """
    try:
        return _loaded[path]
    except KeyError:
        pass
    with _lock:
        lib = _loaded.get(path)
        if lib is None:
            try:
                lib = NVRTC(path)
            except (OSError, KeyError) as exc:
                raise CompilerNotFoundError(
                    "cannot load NVRTC from %s: %s; %s" % (path, exc, INSTALL_HINT)
                ) from exc
            _loaded[path] = lib
    return lib


def preload():
    """Start loading NVRTC in a background thread, if not loaded yet.

    Loading the library takes ~10 ms of ``dlopen``; a caller that knows a
    compile is coming (``gpuarr.autoinit``, while the driver creates its
    context) can overlap that with other work. Nothing is raised here:
    a missing or broken NVRTC is reported by the compile that needs it.

    Returns
    -------
    threading.Thread or None
        The daemon thread doing the work, or None when there was none to do.
    """
    if _config.settings.compiler == "nvcc" or _loaded:
        return None

    def work():
        try:
            path = find_library()
            if path is not None:
                load(path)
        except Exception:  # reported later, by the compile that needs NVRTC
            pass

    thread = threading.Thread(target=work, name="gpuarr-nvrtc-preload",
                              daemon=True)
    thread.start()
    return thread
