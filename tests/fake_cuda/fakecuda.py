"""Read the fake libcuda's state from Python (ctypes).

Used inside the subprocesses of tests/test_driver_fake.py, where
``GPUARR_LIBCUDA`` names the fake: loading the same path again gives the
same library handle, so these helpers see the state gpuarr's calls made.
"""
import ctypes
import os

import numpy as np


class Fake:
    """The fake driver's counters and last-launch record."""

    def __init__(self, path=None):
        self.lib = ctypes.CDLL(path or os.environ["GPUARR_LIBCUDA"])
        self.lib.fake_counter_names.restype = ctypes.c_char_p
        self.lib.fake_counters.restype = ctypes.c_int
        self.lib.fake_last_launch.restype = ctypes.c_longlong
        self.lib.fake_last_error.restype = ctypes.c_int
        self.names = self.lib.fake_counter_names().decode().split(",")

    def counters(self):
        """``{name: int}``; stack_depth and current_ctx are this thread's."""
        out = (ctypes.c_longlong * 64)()
        n = self.lib.fake_counters(out, 64)
        assert n == len(self.names), (n, self.names)
        return dict(zip(self.names, out[:n]))

    def __getitem__(self, name):
        return self.counters()[name]

    def last_launch(self):
        """The last cuLaunchKernel the fake accepted, or None."""
        name = ctypes.create_string_buffer(64)
        data = (ctypes.c_ubyte * 8192)()
        dims = (ctypes.c_uint * 7)()
        handles = (ctypes.c_ulonglong * 2)()
        n = self.lib.fake_last_launch(name, 64, data, 8192, dims, handles)
        if n < 0:
            return None
        return {"name": name.value.decode(), "params": bytes(data[:n]),
                "grid": tuple(dims[0:3]), "block": tuple(dims[3:6]),
                "shared": dims[6], "stream": handles[0], "ctx": handles[1]}

    def last_error(self):
        """``(code, function name)`` of the last failing call."""
        buf = ctypes.create_string_buffer(64)
        code = self.lib.fake_last_error(buf, 64)
        return code, buf.value.decode()

    def set_not_ready(self, flag):
        self.lib.fake_set_not_ready(int(bool(flag)))


def natural_alignment(size):
    """The largest power of two dividing ``size``, at most 16."""
    align = 1
    while align < 16 and size % (align * 2) == 0:
        align *= 2
    return align


def natural_offsets(sizes):
    """Offsets the fake lays parameters at: each aligned to the largest
    power of two dividing its size (at most 16)."""
    offsets, off = [], 0
    for size in sizes:
        align = natural_alignment(size)
        off = (off + align - 1) // align * align
        offsets.append(off)
        off += size
    return offsets, off


def expected_params(values):
    """The parameter block a kernel taking ``values`` (numpy scalars or
    bytes) should receive, built independently with ``tobytes()``."""
    raws = [v if isinstance(v, bytes) else np.asarray(v).tobytes() for v in values]
    offsets, total = natural_offsets([len(r) for r in raws])
    out = bytearray(total)
    for off, raw in zip(offsets, raws):
        out[off:off + len(raw)] = raw
    return bytes(out)


def image(*lines):
    """A FAKE module image from directive lines."""
    return ("FAKE\n" + "\n".join(lines) + "\n").encode()


def ptx(**kernels):
    """A PTX image (bytes) with one ``.entry`` per keyword, ``name=sizes``.

    A parameter of 1, 2, 4 or 8 bytes is declared as that unsigned type,
    any other size as a ``.b8`` array aligned as :func:`natural_offsets`
    places it, so the fake lays a PTX kernel out as it does a FAKE one.
    """
    lines = [".version 8.0", ".target sm_90", ".address_size 64", ""]
    for name, sizes in kernels.items():
        decls = []
        for k, size in enumerate(sizes):
            if size in (1, 2, 4, 8):
                decls.append("\t.param .u%d %s_param_%d" % (8 * size, name, k))
            else:
                decls.append("\t.param .align %d .b8 %s_param_%d[%d]"
                             % (natural_alignment(size), name, k, size))
        lines.append(".visible .entry %s(%s)"
                     % (name, "\n%s\n" % ",\n".join(decls) if decls else ""))
        lines += ["{", "\tret;", "}", ""]
    return "\n".join(lines).encode()
