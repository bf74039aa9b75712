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

__all__ = ["find_library", "load", "NvJitLinker", "INPUT_TYPES"]

#: CUjitInputType (the driver's, gpuarr.driver.jit_input_type) ->
#: nvJitLinkInputType
INPUT_TYPES = {0: 1, 1: 2, 2: 4, 3: 5, 4: 6, 5: 3}

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
    or it cannot be loaded."""
    path = path or find_library()
    if path is None:
        return None
    if path not in _memo:
        try:
            _memo[path] = _Lib(path)
        except (OSError, AttributeError):
            _memo[path] = None
    return _memo[path]


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
