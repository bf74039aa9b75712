"""Finding the CUDA compilers, running nvcc, and reporting compile errors
(layer 3, beneath :mod:`gpuarr.compiler`).

:func:`select` picks NVRTC or nvcc from ``GPUARR_COMPILER``, the
``backend`` argument and what is installed, by ``os.stat`` alone (it never
loads a library or starts a process), and gives the compiler's identity for
the cache key. NVRTC itself is driven by :mod:`gpuarr._nvrtc`; nvcc runs
as a subprocess in a temporary directory (:func:`run_nvcc`).
"""

import os
import re
import threading

from . import _config, _nvrtc
from ._errors import CompileError
from ._errors import RuntimeError as _GpuarrRuntimeError
from ._nvrtc import CompilerNotFoundError

__all__ = ["PROGRAM_NAME", "CompilerWarning", "reset", "which", "declare",
           "nvcc_identity", "toolkit_roots", "nvidia_dirs", "default_includes",
           "includes_stamp", "bundled_dir", "bundled_includes", "select",
           "mark_broken",
           "find_compiler", "listing", "HEADER_PACKAGES", "missing_headers",
           "header_package", "hints", "compile_error", "warn", "keep_dir",
           "run_nvcc", "library_candidates", "open_first", "RuntimeLibrary"]

#: The file name compilers see; error messages refer to it.
PROGRAM_NAME = "kernel.cu"


class CompilerWarning(UserWarning):
    """The compiler succeeded but printed something (usually warnings)."""


# --------------------------------------------------------------------------
# compilers

_memo = {}          # small per-process memos (see reset)
_broken_nvrtc = set()


def reset():
    """Forget what was found on disk (tests change the environment)."""
    _memo.clear()
    _broken_nvrtc.clear()
    _nvrtc.reset()


def which(name):
    if os.sep in name:
        return name if (os.path.isfile(name) and os.access(name, os.X_OK)) else None
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(d or os.curdir, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    if name == "nvcc":
        for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"),
                     "/usr/local/cuda"):
            if root:
                path = os.path.join(root, "bin", "nvcc")
                if os.path.isfile(path) and os.access(path, os.X_OK):
                    return path
    return None


def _file_id(path):
    st = os.stat(path)
    return (path, st.st_size, st.st_mtime_ns)


def nvcc_identity(path):
    real = os.path.realpath(path)
    ident = ["nvcc"] + list(_file_id(real))
    if ident[2] < 65536:  # perhaps a wrapper script: name what it runs too
        with open(real, "rb") as f:
            head = f.read()
        if head.startswith(b"#!"):
            for tok in re.findall(rb"(/[^\s'\";|&$]+)", head[2:]):
                p = os.fsdecode(tok)
                if os.path.isfile(p):
                    ident.extend(_file_id(os.path.realpath(p)))
    return tuple(ident)


def toolkit_roots():
    """The CUDA toolkit roots looked at, in order: ``$CUDA_PATH``,
    ``$CUDA_HOME``, ``/usr/local/cuda`` (those set)."""
    return [r for r in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"),
                        "/usr/local/cuda") if r]


def nvidia_dirs():
    """The directories of the ``nvidia`` namespace package (NVIDIA's
    wheels), found without importing it."""
    return _nvrtc.nvidia_dirs()


def library_candidates(wheel_libs, sonames):
    """Full paths where a CUDA library is looked for, in order: NVIDIA's
    wheels (``nvidia/<sub>/lib/<name>`` for each ``(sub, name)`` of
    ``wheel_libs``), then each toolkit root's ``lib64`` (each of
    ``sonames``).  The bare-soname ``dlopen`` that callers try last is not
    listed."""
    out = []
    for base in nvidia_dirs():
        for sub, name in wheel_libs:
            out.append(os.path.join(base, sub, "lib", name))
    for root in dict.fromkeys(toolkit_roots()):
        for name in sonames:
            out.append(os.path.join(root, "lib64", name))
    return out


def open_first(paths, sonames, opener):
    """Open a run-time library: ``opener(p)`` for each of ``paths`` that
    exists, then for each bare soname (the dynamic loader's search), until
    one does not raise OSError.

    Returns
    -------
    (object, str)
        What ``opener`` returned, and the path or soname opened.

    Raises
    ------
    LookupError
        When none opens; its message says which found files would not load
        and what the loader said, to follow "... or the loader's path" in
        the caller's error.
    """
    failures, loader = [], []
    for p in [p for p in paths if os.path.isfile(p)] + list(sonames):
        try:
            return opener(p), p
        except OSError as exc:
            (failures if os.sep in p else loader).append("%s: %s" % (p, exc))
    why = "; found but not loadable: " + "; ".join(failures) if failures else ""
    raise LookupError("%s (the loader said: %s)" % (why, "; ".join(loader)))



def declare(lib, signatures):
    """Give a :class:`ctypes.CDLL`'s functions their argument types:
    ``signatures`` maps each name to its tuple of ctypes types; each
    returns a C ``int`` (the status codes of cuRAND, cuSOLVER and NCCL).

    Returns
    -------
    ctypes.CDLL
        ``lib`` itself (a :class:`RuntimeLibrary`'s ``setup`` value).
    """
    import ctypes
    for name, args in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = ctypes.c_int
    return lib


class RuntimeLibrary:
    """An NVIDIA run-time library (cuBLAS, cuSOLVER, cuRAND) opened once,
    at its first use, by whichever thread comes first: :func:`open_first`
    under a double-checked lock, and one not-found message for all of them.

    Parameters
    ----------
    title : str
        The library's name in messages (``"cuBLAS"``).
    soname : str
        The soname messages name (``"libcublas.so.13"``).
    wheel : str
        The NVIDIA wheel that provides it (``"nvidia-cublas"``).
    search : callable
        ``search() -> (paths, sonames)``, called at each attempt (so that
        what the module's ``candidates`` and ``_SONAMES`` say then counts).
    opener : callable
        ``opener(path) -> object``, raising OSError when it cannot load.
    error : type
        The exception class raised when nothing loads.
    hint : str
        The install advice appended to the message.
    setup : callable, optional
        ``setup(opened, path) -> value``: what :meth:`load` returns (run
        once, under the lock; default the opened object itself).
    """

    def __init__(self, title, soname, wheel, search, opener, error, hint,
                 setup=None):
        self._title, self._soname, self._wheel = title, soname, wheel
        self._search, self._opener, self._error = search, opener, error
        self._hint, self._setup = hint, setup
        self._lock = threading.Lock()
        self._value = None

    def load(self):
        """The library's value (see ``setup``), opened on the first call.

        Returns
        -------
        object

        Raises
        ------
        Exception
            ``error``, naming the places looked in, why a found file did
            not load, and the wheel to install.
        """
        value = self._value
        if value is not None:
            return value
        with self._lock:
            if self._value is None:
                paths, sonames = self._search()
                try:
                    opened, path = open_first(paths, sonames, self._opener)
                except LookupError as exc:
                    raise self._error(
                        "the %s library (%s) was not found in the %s wheel, "
                        "$CUDA_PATH/lib64, $CUDA_HOME/lib64, "
                        "/usr/local/cuda/lib64 or the loader's path%s; %s"
                        % (self._title, self._soname, self._wheel, exc,
                           self._hint)) from None
                self._value = (opened if self._setup is None
                               else self._setup(opened, path))
            return self._value

    def loaded(self):
        """The value if the library was loaded, else None (no attempt)."""
        return self._value

    def reset(self):
        """Forget what was loaded, so that the next :meth:`load` searches
        again (tests change the environment); a loaded library stays
        mapped in the process."""
        with self._lock:
            self._value = None

#: Include directories of NVIDIA's header wheels under ``nvidia/``: the
#: CUDA 13 wheels share ``cu13/include`` (CCCL in ``cu13/include/cccl``);
#: the CUDA 12 ones have one directory each.
_WHEEL_INCLUDES = (
    ("cu13", "include"), ("cu13", "include", "cccl"),
    ("cuda_runtime", "include"), ("curand", "include"),
    ("cuda_cccl", "include"), ("cuda_fp16", "include"),
)


def default_includes():
    """The include directories NVRTC searches after the user's.

    The CUDA toolkit's ``include`` (and its ``include/cccl``, CUDA 13's
    place for CUB, Thrust and libcu++) of the first of :func:`toolkit_roots`
    that has one, then the include directories of NVIDIA's header wheels
    (``nvidia-cuda-runtime``, ``nvidia-curand``, ``nvidia-cuda-cccl``, ...)
    that exist. Found with ``os.stat`` alone, once per process (see
    :func:`reset`).

    Returns
    -------
    tuple of str
    """
    try:
        return _memo["includes"]
    except KeyError:
        pass
    found = []
    for root in toolkit_roots():
        inc = os.path.join(root, "include")
        if (os.path.isfile(os.path.join(inc, "cuda_fp16.h"))
                or os.path.isfile(os.path.join(inc, "cuda_runtime.h"))):
            found.append(inc)
            if os.path.isdir(os.path.join(inc, "cccl")):
                found.append(os.path.join(inc, "cccl"))
            break
    for base in nvidia_dirs():
        for parts in _WHEEL_INCLUDES:
            inc = os.path.join(base, *parts)
            if os.path.isdir(inc) and inc not in found:
                found.append(inc)
    found = tuple(found)
    _memo["includes"] = found
    return found


def includes_stamp(dirs):
    """What the disk cache's key records of include directories: each
    directory with its modification time (nanoseconds; None when it is
    gone).

    Installing, upgrading or removing a header wheel (``pip`` removes the
    old files and writes new ones) changes the modification time of the
    directories that hold them, so a kernel compiled against the old
    headers is not taken from the cache afterwards. A header edited in
    place without touching its directory is not noticed (clear the cache).
    One ``os.stat`` per directory, paid only where a key is computed (a
    compile that missed the in-memory caches).

    Parameters
    ----------
    dirs : sequence of str

    Returns
    -------
    tuple of (str, int or None)
    """
    out = []
    for d in dirs:
        try:
            out.append((d, os.stat(d).st_mtime_ns))
        except OSError:
            out.append((d, None))
    return tuple(out)


def bundled_dir(ident, directory=None):
    """Where the headers bundled with the NVRTC of identity ``ident`` are
    extracted: ``$GPUARR_CACHE_DIR/nvrtc-headers/<hash of ident>`` for a
    call that uses the default disk cache (``directory`` is
    ``$GPUARR_CACHE_DIR/kernels``), else (no disk cache, or another cache
    directory, which is left holding only cache entries)
    ``<temporary directory>/gpuarr-<uid>/nvrtc-headers/<hash>``."""
    import hashlib
    tag = hashlib.sha256(repr(ident).encode()).hexdigest()[:16]
    base = _config.settings.cache_dir
    if directory is None or os.path.abspath(directory) != os.path.abspath(
            os.path.join(base, "kernels")):
        import tempfile
        base = os.path.join(tempfile.gettempdir(), "gpuarr-%d" % os.getuid())
    return os.path.join(base, "nvrtc-headers", tag)


def _owned_private(path):
    """Why ``path`` is not safe to extract headers into (None when it is):
    it must be a real directory (no symlink), owned by this user, and not
    writable by group or others."""
    import stat
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        return "%s is not a directory" % path
    if st.st_uid != os.getuid():
        return "%s belongs to uid %d, not %d" % (path, st.st_uid, os.getuid())
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "%s is writable by others (mode %o)" % (
            path, stat.S_IMODE(st.st_mode))
    return None


def _private_path(path):
    """Make the directories down to ``path`` private (created with mode
    0o700, each one checked with :func:`_owned_private`); return ``path``,
    or a fresh :func:`tempfile.mkdtemp` directory (removed at exit) with a
    :class:`CompilerWarning` naming the reason when one of them is not.

    The default place, ``<tmp>/gpuarr-<uid>/...``, is a name any local
    user can create first; headers found there are compiled into kernels.
    """
    path = os.path.abspath(path)
    parts = path.split(os.sep)
    # the levels this module chooses: <base>/nvrtc-headers/<hash>
    for depth in (len(parts) - 2, len(parts) - 1, len(parts)):
        d = os.sep.join(parts[:depth])
        try:
            if depth == len(parts) - 2:
                os.makedirs(os.path.dirname(d), exist_ok=True)
            try:
                os.mkdir(d, 0o700)
            except FileExistsError:
                pass
            why = _owned_private(d)
        except OSError as e:
            why = "%s: %s" % (d, e)
        if why is not None:
            import atexit
            import shutil
            import tempfile
            import warnings
            fresh = tempfile.mkdtemp(prefix="gpuarr-nvrtc-headers-")
            atexit.register(shutil.rmtree, fresh, True)
            warnings.warn("not extracting NVRTC's bundled headers into %s "
                          "(%s); using the new directory %s for this process"
                          % (path, why, fresh), CompilerWarning, stacklevel=4)
            return fresh
    return path


def bundled_includes(lib, ident, directory=None):
    """The include directories of the headers NVRTC ``lib`` bundles
    (13.3+: ``cuda_fp16.h``, ``cooperative_groups.h``, CCCL, ...), extracted
    on first use into :func:`bundled_dir` (NVRTC skips an extraction that
    is already there). Empty for an older NVRTC or when extracting fails
    (with a :class:`CompilerWarning` that gives the reason).

    :func:`bundled_dir` and the two directories above it are created with
    mode 0o700 and must belong to this user and be writable by nobody
    else; otherwise the headers go to a fresh private temporary directory.

    The headers are a function of the NVRTC build, which the cache key
    names already, so these paths are not part of the key.
    """
    key = ("bundled", lib.path, directory)
    hit = _memo.get(key)
    if hit is not None:
        return hit
    out = ()
    if lib.has_bundled_headers:
        reasons = []
        for d in ((directory, None) if directory is not None else (None,)):
            path = _private_path(bundled_dir(ident, d))
            try:
                out = lib.install_bundled_headers(path)
            except (OSError, _GpuarrRuntimeError) as e:
                reasons.append(str(e))
                out = ()
            if out:
                break
        if not out and reasons:
            import warnings
            warnings.warn("NVRTC's bundled headers are not used: %s"
                          % "; ".join(reasons), CompilerWarning, stacklevel=3)
    _memo[key] = out
    return out


def mark_broken(path):
    """Remember that the NVRTC at ``path`` cannot be loaded, so that
    :func:`select` falls back to nvcc from now on."""
    _broken_nvrtc.add(path)


def select(backend, nvcc, max_major):
    """Pick a compiler: (name, path, identity). Stats only; never loads."""
    choice = _config.check_compiler(
        backend if backend is not None else _config.settings.compiler)
    memo_key = ("select", choice, nvcc, max_major, _config.settings)
    hit = _memo.get(memo_key)
    if hit is not None and hit[1] not in _broken_nvrtc:
        return hit
    nvrtc_path = None
    if choice in (None, "nvrtc"):
        nvrtc_path = _nvrtc.find_library(max_major)
        if nvrtc_path is not None and nvrtc_path not in _broken_nvrtc:
            result = ("nvrtc", nvrtc_path, _nvrtc.identity(nvrtc_path))
            _memo[memo_key] = result
            return result
        if choice == "nvrtc":
            where = ("GPUARR_NVRTC" if _config.settings.nvrtc_path else
                     "the nvidia-cuda-nvrtc wheel, $CUDA_PATH/lib64, "
                     "/usr/local/cuda/lib64 and the library path")
            raise CompilerNotFoundError(
                "NVRTC was requested but %s (looked in %s); %s"
                % ("could not be loaded" if nvrtc_path else "was not found",
                   where, _nvrtc.INSTALL_HINT))
    if not isinstance(nvcc, str) or not nvcc:
        raise TypeError("nvcc must be the name or path of the nvcc executable, "
                        "got %r" % (nvcc,))
    path = which(nvcc)
    if path is not None:
        result = ("nvcc", path, nvcc_identity(path))
        _memo[memo_key] = result
        return result
    if choice == "nvcc":
        raise CompilerNotFoundError(
            "nvcc was requested but %r was not found (PATH, $CUDA_PATH/bin, "
            "/usr/local/cuda/bin); install the CUDA toolkit or pass "
            "nvcc='/path/to/nvcc'" % nvcc)
    raise CompilerNotFoundError(
        "no CUDA compiler found: NVRTC %s and nvcc (%r) is not on PATH; %s"
        % ("could not be loaded" if nvrtc_path else "was not found", nvcc,
           _nvrtc.INSTALL_HINT))


def find_compiler(backend=None, nvcc="nvcc"):
    """Say which compiler :func:`compile` would use, without loading it.

    Parameters
    ----------
    backend : {None, "nvrtc", "nvcc"}, optional
        As for :func:`compile`; None follows ``GPUARR_COMPILER``.
    nvcc : str, optional
        Name or path of nvcc.

    Returns
    -------
    tuple
        ``(name, path)``: ``"nvrtc"`` and the library path, or ``"nvcc"``
        and the executable path.

    Raises
    ------
    CompilerNotFoundError
        When no (or not the requested) compiler is found.
    ValueError
        For an unknown ``backend`` or ``GPUARR_COMPILER``.
    """
    name, path, _ = select(backend, nvcc, None)
    return name, path


# --------------------------------------------------------------------------
# error reporting

def listing(source, marked, context=2, limit=60):
    lines = source.splitlines()
    width = len(str(len(lines) + 1))
    if marked:
        show = set()
        for n in marked:
            show.update(range(max(1, n - context), n + context + 1))
        show = sorted(n for n in show if n <= len(lines))
    else:
        show = list(range(1, min(len(lines), limit) + 1))
    out, prev = [], 0
    for n in show:
        if n != prev + 1 and prev:
            out.append(" " * (width + 2) + "...")
        out.append("%s %*d | %s" % (">" if n in marked else " ", width, n,
                                    lines[n - 1]))
        prev = n
    if not marked and len(lines) > limit:
        out.append(" " * (width + 2) + "... (%d more lines)" % (len(lines) - limit))
    return "\n".join(out)


def _error_lines(log):
    pattern = r"^(?:.*[/\\])?%s\((\d+)\): (?:catastrophic )?error" % re.escape(PROGRAM_NAME)
    return sorted({int(m) for m in re.findall(pattern, log, re.MULTILINE)})


#: Headers only the CUDA toolkit or NVIDIA's wheels have: include name
#: (or its first directory) -> the pip package that ships it (CUDA 13).
HEADER_PACKAGES = {
    "curand": "nvidia-curand",
    "cufft": "nvidia-cufft", "cublas": "nvidia-cublas",
    "cusparse": "nvidia-cusparse", "cusolver": "nvidia-cusolver",
    "nvshmem": "nvidia-nvshmem", "nvtx3": "nvidia-nvtx",
    "cub": "nvidia-cuda-cccl", "thrust": "nvidia-cuda-cccl",
    "cuda": "nvidia-cuda-cccl", "nv": "nvidia-cuda-cccl",
    "cuda_fp16": "nvidia-cuda-runtime", "cuda_bf16": "nvidia-cuda-runtime",
    "cuda_fp8": "nvidia-cuda-runtime", "cuda_fp6": "nvidia-cuda-runtime",
    "cuda_fp4": "nvidia-cuda-runtime", "cuda_runtime": "nvidia-cuda-runtime",
    "cuda_runtime_api": "nvidia-cuda-runtime",
    "cooperative_groups": "nvidia-cuda-runtime", "mma": "nvidia-cuda-runtime",
    "cuda_pipeline": "nvidia-cuda-runtime",
    "cuda_awbarrier": "nvidia-cuda-runtime", "vector_types": "nvidia-cuda-runtime",
    "vector_functions": "nvidia-cuda-runtime", "math_constants": "nvidia-cuda-runtime",
    "cuComplex": "nvidia-cuda-runtime",
}

_MISSING_RE = re.compile(r'(?:could not|cannot) open source file "([^"]+)"')


def missing_headers(log):
    """The include names a compiler log says it could not find."""
    return sorted(set(_MISSING_RE.findall(log)))


def header_package(name):
    """The pip package providing header ``name``, or None if unknown."""
    stem = name.split("/")[0]
    if stem == "cuda.h":
        return "nvidia-cuda-runtime"
    stem = re.sub(r"\.(h|hpp|cuh)$", "", stem)
    for key in (stem, re.sub(r"_[a-z0-9]+$", "", stem)):
        if key in HEADER_PACKAGES:
            return HEADER_PACKAGES[key]
    if stem.startswith("curand"):
        return "nvidia-curand"
    return None


def hints(log, searched=(), nvrtc=True):
    """What to tell a user whose compile failed: for each missing header
    the package to install, and (under NVRTC) that nvcc is an option."""
    out = []
    for name in missing_headers(log):
        pkg = header_package(name)
        if pkg is not None:
            out.append("<%s> is in the CUDA toolkit and in the %s wheel: "
                       "`pip install %s` (gpuarr searches NVIDIA's wheels, "
                       "the toolkit at $CUDA_PATH, $CUDA_HOME or "
                       "/usr/local/cuda, and include_dirs)" % (name, pkg, pkg))
        elif "." not in name.split("/")[-1] and nvrtc:
            out.append("<%s> is a C++ standard library header, which NVRTC "
                       "lacks: use CCCL's <cuda/std/%s> (`pip install "
                       "nvidia-cuda-cccl`, or NVRTC 13.3+ which bundles it)"
                       % (name, name))
        else:
            out.append("<%s> was not found in: %s" % (
                name, ", ".join(searched) if searched else
                "(no include directories; pass include_dirs=[...])"))
    if 'may not have extern "C" linkage' in log:
        out.append('C++ (templates, overloads, C++ headers) cannot sit inside '
                   'the extern "C" { } that SourceModule wraps the source in: '
                   'pass no_extern_c=True and declare the kernels '
                   'extern "C" __global__ (as with PyCUDA)')
    if nvrtc:
        nvcc = which("nvcc")
        if nvcc is not None:
            out.append("nvcc is installed (%s): GPUARR_COMPILER=nvcc (or "
                       "backend='nvcc') compiles with it and the host's C "
                       "and C++ headers" % nvcc)
    return out


def compile_error(what, log, source, compiled, command_line=None, notes=()):
    marked = _error_lines(log)
    msg = "%s failed:\n%s\n\n%s:\n%s" % (
        what, log.rstrip() or "(the compiler printed nothing)",
        "Source, lines around the errors (> marks them)" if marked else "Source",
        listing(source, set(marked)))
    if notes:
        msg += "\n\n" + "\n".join("Note: " + n for n in notes)
    return CompileError(msg, log=log, source=compiled, command_line=command_line)


def warn(what, log):
    import warnings
    warnings.warn("%s succeeded, but said:\n%s" % (what, log.rstrip()),
                  CompilerWarning, stacklevel=5)


# --------------------------------------------------------------------------
# running nvcc

def keep_dir():
    import tempfile
    return tempfile.mkdtemp(prefix="gpuarr-compile-")


def run_nvcc(path, wrapped, source, options, target, arch, code, keep):
    import subprocess
    d = keep_dir()
    try:
        with open(os.path.join(d, PROGRAM_NAME), "w") as f:
            f.write(wrapped)
        out = "kernel." + target
        cmd = [path, "--" + target, "-arch", arch]
        if code:
            cmd += ["-code", code]
        cmd += options + ["-o", out, PROGRAM_NAME]
        try:
            proc = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        except OSError as exc:
            raise CompilerNotFoundError("cannot run nvcc %s: %s; %s"
                                        % (path, exc, _nvrtc.INSTALL_HINT)) from exc
        log = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        what = "nvcc (%s)" % " ".join(cmd)
        if proc.returncode != 0:
            raise compile_error("%s (exit status %d)" % (what, proc.returncode),
                                 log, source, wrapped, command_line=cmd,
                                 notes=hints(log, nvrtc=False))
        with open(os.path.join(d, out), "rb") as f:
            image = f.read()
        if log.strip():
            warn(what, log)
        return image
    finally:
        if keep:
            print("*** compiler output in %s" % d)
        else:
            import shutil
            shutil.rmtree(d, ignore_errors=True)
