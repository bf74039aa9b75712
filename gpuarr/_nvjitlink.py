"""nvJitLink, NVIDIA's linker library, found and loaded at run time
(layer 3; used by :mod:`gpuarr._dynamic`).

Linking on the host needs no GPU, and nvJitLink links the code of any
compiler no newer than itself: relocatable cubins from an NVRTC newer than
the driver (whose own linker, ``cuLink*``, refuses them) link here into a
final cubin the driver loads. It comes with the ``nvidia-nvjitlink`` wheel
(``nvidia/cu13/lib/libnvJitLink.so.13``; CUDA 12:
``nvidia/nvjitlink/lib/libnvJitLink.so.12``) and the CUDA toolkit
(``lib64``). ``DynamicModule(linker="driver")`` leaves it unused.
"""

import os

from . import _toolchain
from ._errors import LogicError

__all__ = ["find_library", "load", "load_error", "NvJitLinker", "INPUT_TYPES",
           "link_flags"]

#: CUjitInputType (the driver's, gpuarr.driver.jit_input_type) ->
#: nvJitLinkInputType
INPUT_TYPES = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 3}

#: CUjit_option number -> (its name, how nvJitLink spells it: a format of
#: the value, or a flag given when the value is true, None when false)
_FLAG_OPTIONS = {
    0: ("MAX_REGISTERS", lambda v: "-maxrregcount=%d" % v),
    7: ("OPTIMIZATION_LEVEL", lambda v: _opt_level(v)),
    11: ("GENERATE_DEBUG_INFO", lambda v: "-g" if v else None),
    12: ("LOG_VERBOSE", lambda v: "-verbose" if v else None),
    13: ("GENERATE_LINE_INFO", lambda v: "-lineinfo" if v else None),
    20: ("LTO", lambda v: "-lto" if v else None),
    21: ("FTZ", lambda v: "-ftz=%s" % ("true" if v else "false")),
    22: ("PREC_DIV", lambda v: "-prec-div=%s" % ("true" if v else "false")),
    23: ("PREC_SQRT", lambda v: "-prec-sqrt=%s" % ("true" if v else "false")),
    24: ("FMA", lambda v: "-fma=%s" % ("true" if v else "false")),
    29: ("OPTIMIZE_UNUSED_DEVICE_VARIABLES",
         lambda v: "-optimize-unused-variables" if v else None),
    34: ("SPLIT_COMPILE", lambda v: "-split-compile=%d" % v),
}


def _opt_level(v):
    if v in (1, 2):
        raise ValueError("nvJitLink's optimization levels are 0 and 3 (the "
                         "driver's 3 and 4 both become -O3), got %d; pass "
                         "linker='driver' for level %d" % (v, v))
    return "-O0" if v == 0 else "-O3"


def link_flags(link_options=None, log_verbose=False):
    """nvJitLink's spelling of the driver linker's options.

    Parameters
    ----------
    link_options : iterable of (jit_option, int), optional
        As :class:`gpuarr.driver.Linker` takes them. Those with an
        nvJitLink equivalent: ``MAX_REGISTERS`` (``-maxrregcount``),
        ``OPTIMIZATION_LEVEL`` (nvJitLink has ``-O0`` and ``-O3``; the
        driver's 3 and 4, its default, become ``-O3``; 1 and 2 raise),
        ``GENERATE_DEBUG_INFO`` (``-g``),
        ``LOG_VERBOSE``, ``GENERATE_LINE_INFO``, ``LTO``, ``FTZ``,
        ``PREC_DIV``, ``PREC_SQRT``, ``FMA``,
        ``OPTIMIZE_UNUSED_DEVICE_VARIABLES``, ``SPLIT_COMPILE``.
    log_verbose : bool, optional
        ``-verbose``.

    Returns
    -------
    list of str

    Raises
    ------
    TypeError
        An option is not a ``(jit_option, int)`` pair.
    ValueError
        An option nvJitLink has no equivalent for (such as ``TARGET``,
        ``WALL_TIME`` or ``CACHE_MODE``), a negative value, or an
        optimization level of 1 or 2.
    """
    flags = ["-verbose"] if log_verbose else []
    for item in (link_options or ()):
        try:
            opt, value = item
        except (TypeError, ValueError):
            raise TypeError("link_options must hold (jit_option, int) pairs, "
                            "got %r" % (item,)) from None
        if (isinstance(value, float) or not hasattr(value, "__index__")
                or not hasattr(opt, "__index__")):
            raise TypeError("link_options must hold (jit_option, int) pairs, "
                            "got %r" % (item,))
        known = _FLAG_OPTIONS.get(int(opt))
        if known is None:
            raise ValueError(
                "link option %s has no nvJitLink equivalent; nvJitLink "
                "takes %s. Pass linker='driver' to link with the driver's "
                "cuLink* and this option" % (
                    getattr(opt, "name", opt),
                    ", ".join(n for n, _ in _FLAG_OPTIONS.values())))
        if int(value) < 0:
            raise ValueError("link option %s must not be negative, got %d"
                             % (known[0], int(value)))
        flag = known[1](int(value))
        if flag is not None and flag not in flags:
            flags.append(flag)
    return flags


_WHEEL_LIBS = (("cu13", "lib", "libnvJitLink.so.13"),
               ("nvjitlink", "lib", "libnvJitLink.so.12"))
_memo = {}


def find_library():
    """The path of libnvJitLink, or None (``os.stat`` only; remembered)."""
    if "path" in _memo:
        return _memo["path"]
    found = None
    cands = [os.path.join(b, *parts) for b in _toolchain.nvidia_dirs()
             for parts in _WHEEL_LIBS]
    for root in _toolchain.toolkit_roots():
        for lib in ("lib64", "lib"):
            cands += [os.path.join(root, lib, n)
                      for n in ("libnvJitLink.so.13", "libnvJitLink.so.12")]
    for c in cands:
        if os.path.isfile(c):
            found = os.path.realpath(c)
            break
    _memo["path"] = found
    return found


class _Lib:
    def __init__(self, path):
        import ctypes
        self.ct = ctypes
        lib = ctypes.CDLL(path)
        self.path = path
        h, hp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
        size_p = ctypes.POINTER(ctypes.c_size_t)
        sigs = {
            "nvJitLinkVersion": (ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)),
            "nvJitLinkCreate": (hp, ctypes.c_uint32, ctypes.POINTER(ctypes.c_char_p)),
            "nvJitLinkDestroy": (hp,),
            "nvJitLinkAddData": (h, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                                 ctypes.c_char_p),
            "nvJitLinkAddFile": (h, ctypes.c_int, ctypes.c_char_p),
            "nvJitLinkComplete": (h,),
            "nvJitLinkGetLinkedCubinSize": (h, size_p),
            "nvJitLinkGetLinkedCubin": (h, ctypes.c_void_p),
            "nvJitLinkGetErrorLogSize": (h, size_p),
            "nvJitLinkGetErrorLog": (h, ctypes.c_char_p),
            "nvJitLinkGetInfoLogSize": (h, size_p),
            "nvJitLinkGetInfoLog": (h, ctypes.c_char_p),
        }
        self.fn = {}
        for name, args in sigs.items():
            f = getattr(lib, name)
            f.argtypes = args
            f.restype = ctypes.c_int
            self.fn[name] = f
        major, minor = ctypes.c_uint(), ctypes.c_uint()
        self.fn["nvJitLinkVersion"](ctypes.byref(major), ctypes.byref(minor))
        self.version = (major.value, minor.value)


def load(path=None):
    """The loaded nvJitLink (once per process), or None when there is none
    or it cannot be loaded (:func:`load_error` tells why)."""
    path = path or find_library()
    if path is None:
        return None
    if path not in _memo:
        try:
            _memo[path] = _Lib(path)
        except (OSError, AttributeError) as e:
            # AttributeError: a library without an nvJitLink entry point
            _memo[path] = None
            _memo[("error", path)] = "%s: %s" % (type(e).__name__, e)
    return _memo[path]


def load_error(path=None):
    """Why :func:`load` gave None: ``"not found"`` when there is no
    nvJitLink, else the path and the loader's error; None when it loaded
    (or was not tried yet)."""
    path = path or find_library()
    if path is None:
        return "not found (`pip install nvidia-nvjitlink`)"
    why = _memo.get(("error", path))
    return None if why is None else "found at %s but not loadable (%s)" % (path, why)


class NvJitLinker:
    """A link on the host with nvJitLink, with :class:`gpuarr.driver.Linker`'s
    methods (``add_data``, ``add_file``, ``complete``, ``link_module``,
    ``info_log``, ``error_log``).

    Parameters
    ----------
    lib : object
        From :func:`load`.
    arch : str
        ``sm_XY`` (or ``compute_XY``) of the result.
    message_handler : callable, optional
        ``message_handler(succeeded, info_log, error_log)`` after linking.
    """

    def __init__(self, lib, arch, message_handler=None, options=()):
        ct = lib.ct
        self._lib, self._ct = lib, ct
        self._h = ct.c_void_p()
        opts = ["-arch=%s" % arch.replace("compute_", "sm_")] + list(options)
        arr = (ct.c_char_p * len(opts))(*[o.encode() for o in opts])
        self._check(lib.fn["nvJitLinkCreate"](ct.byref(self._h), len(opts), arr),
                    "nvJitLinkCreate")
        self.message_handler = message_handler
        self._done = False

    def _log(self, which):
        if not self._h:
            return ""
        ct = self._ct
        n = ct.c_size_t()
        if self._lib.fn["nvJitLinkGet%sLogSize" % which](self._h, ct.byref(n)) != 0:
            return ""
        buf = ct.create_string_buffer(n.value + 1)
        self._lib.fn["nvJitLinkGet%sLog" % which](self._h, buf)
        return buf.value.decode("utf-8", "replace")

    @property
    def info_log(self):
        return self._log("Info")

    @property
    def error_log(self):
        return self._log("Error")

    def _check(self, code, call, what=""):
        if code != 0:
            err = self._log("Error") if self._h else ""
            if self.__dict__.get("message_handler") is not None:
                self.message_handler(False, self.info_log, err)
            raise LogicError("%s failed (nvJitLink %d.%d, result %d)%s%s"
                             % (call, self._lib.version[0], self._lib.version[1], code,
                                (": " + what) if what else "",
                                (";\nlink log:\n" + err) if err else ""),
                             call=call)

    def _alive(self):
        if self._done or not self._h:
            raise LogicError("this linker has completed")

    def add_data(self, data, input_type, name="unknown"):
        self._alive()
        buf = data.encode() if isinstance(data, str) else bytes(data)
        kind = int(input_type)
        if kind == 1 and not buf.endswith(b"\0"):
            buf += b"\0"
        self._check(self._lib.fn["nvJitLinkAddData"](self._h, INPUT_TYPES[kind], buf,
                                                     len(buf), str(name).encode()),
                    "nvJitLinkAddData", "adding %r" % (name,))
        return self

    def add_file(self, filename, input_type):
        self._alive()
        path = os.fspath(filename)
        if not os.path.isfile(path):
            raise FileNotFoundError("no such file to link: %r" % (path,))
        self._check(self._lib.fn["nvJitLinkAddFile"](self._h, INPUT_TYPES[int(input_type)],
                                                     os.fsencode(path)),
                    "nvJitLinkAddFile", "adding %r" % (path,))
        return self

    def complete(self):
        """Link; returns the linked cubin (bytes)."""
        self._alive()
        ct, fn = self._ct, self._lib.fn
        self._check(fn["nvJitLinkComplete"](self._h), "nvJitLinkComplete", "linking")
        n = ct.c_size_t()
        self._check(fn["nvJitLinkGetLinkedCubinSize"](self._h, ct.byref(n)),
                    "nvJitLinkGetLinkedCubinSize")
        buf = ct.create_string_buffer(n.value)
        self._check(fn["nvJitLinkGetLinkedCubin"](self._h, buf), "nvJitLinkGetLinkedCubin")
        self._done = True
        if self.message_handler is not None:
            self.message_handler(True, self.info_log, self.error_log)
        return buf.raw

    def link_module(self):
        """Link and load into the current context."""
        from . import driver
        return driver.module_from_buffer(self.complete())

    def __del__(self):
        h = self.__dict__.get("_h")
        if h:
            try:
                self._lib.fn["nvJitLinkDestroy"](self._ct.byref(h))
            except Exception:
                pass
