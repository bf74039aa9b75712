"""Cache keys and the on-disk cache of compiled kernels.

Pure Python (layer 0), no GPU needed.

Each entry is one file ``<directory>/<key>.<suffix>`` holding a 56-byte
header followed by the payload (a cubin or PTX image)::

    magic     8 bytes   b"GPUARRK\\0"
    version   uint32    FORMAT_VERSION
    crc32     uint32    zlib.crc32 of the payload
    length    uint64    payload length in bytes
    key       32 bytes  the sha256 digest the file is named after

all little-endian. A file whose header does not match its name, its length
or its checksum (a truncated write, a disk error, another program's file) is
treated as a miss and removed, so the kernel is simply compiled again.

Writes go to a temporary file in the same directory that is then renamed
over the final name with :func:`os.replace`, which is atomic on POSIX: a
concurrent reader sees either no file or a complete one.

Only the standard library is used, and only modules that are cheap to
import: a warm hit in a fresh process must cost well under a millisecond
here (``hashlib`` alone costs ~3 ms to import because of OpenSSL, so the
built-in sha256 module is used unless hashlib is already loaded).
"""

import os
import struct
import sys
import zlib

__all__ = ["FORMAT_VERSION", "make_key", "load", "store", "clear"]

#: Bump when the layout of entries or the meaning of key parts changes.
FORMAT_VERSION = 1

_MAGIC = b"GPUARRK\x00"
_HEADER = struct.Struct("<8sIIQ32s")
HEADER_SIZE = _HEADER.size

_warned = set()


def _sha256_constructor():
    mod = sys.modules.get("hashlib")
    if mod is not None:
        return mod.sha256
    # Built into CPython: _sha256 up to 3.11, _sha2 from 3.12.
    names = ("_sha2", "_sha256") if sys.version_info >= (3, 12) else ("_sha256", "_sha2")
    for name in names:
        try:
            return __import__(name).sha256
        except ImportError:
            pass
    import hashlib
    return hashlib.sha256


_sha256 = None


def make_key(parts):
    """Hash a sequence of key parts into a hex sha256 digest.

    Parameters
    ----------
    parts : iterable of (str, bytes, int, float, bool, None, or tuple)
        Everything that determines the cached result. Each part is encoded
        (``bytes`` as is, anything else through ``str()`` then UTF-8) and
        prefixed with its length, so that no two different sequences of
        parts can produce the same byte stream.

    Returns
    -------
    str
        64 lowercase hex digits.
    """
    global _sha256
    if _sha256 is None:
        _sha256 = _sha256_constructor()
    h = _sha256()
    for part in parts:
        if not isinstance(part, bytes):
            part = str(part).encode("utf-8", "surrogatepass")
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def _path(directory, key, suffix):
    return os.path.join(directory, key + "." + suffix)


def _check_key(key):
    if not (isinstance(key, str) and len(key) == 64):
        raise ValueError("cache key must be 64 hex digits, got %r" % (key,))
    return bytes.fromhex(key)


def _warn_once(what, exc):
    if what in _warned:
        return
    _warned.add(what)
    import warnings
    warnings.warn("gpuarr kernel cache: %s: %s: %s (continuing without it)"
                  % (what, type(exc).__name__, exc), RuntimeWarning, stacklevel=3)


def load(directory, key, suffix):
    """Read a cache entry.

    Parameters
    ----------
    directory : str
        The cache directory.
    key : str
        The entry's key, from :func:`make_key`.
    suffix : str
        File name extension (``"cubin"``, ``"ptx"``...).

    Returns
    -------
    bytes or None
        The payload, or None on a miss. A corrupt entry counts as a miss and
        is deleted; I/O errors count as misses too (never raised).
    """
    digest = _check_key(key)
    path = _path(directory, key, suffix)
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError:
        return None
    if len(blob) >= HEADER_SIZE:
        magic, version, crc, length, file_digest = _HEADER.unpack_from(blob)
        if (magic == _MAGIC and version == FORMAT_VERSION
                and length == len(blob) - HEADER_SIZE and file_digest == digest):
            payload = memoryview(blob)[HEADER_SIZE:]
            if zlib.crc32(payload) == crc:
                return blob[HEADER_SIZE:]
    try:  # corrupt or foreign: drop it so that the next store replaces it
        os.remove(path)
    except OSError:
        pass
    return None


def store(directory, key, suffix, data):
    """Write a cache entry atomically.

    Parameters
    ----------
    directory : str
        The cache directory; created (with parents) when missing.
    key : str
        The entry's key, from :func:`make_key`.
    suffix : str
        File name extension.
    data : bytes
        The payload.

    Returns
    -------
    bool
        True when the entry was written. Failures (read-only or full disk)
        emit one :class:`RuntimeWarning` per directory and return False: the
        cache is an optimisation and never makes a compile fail.
    """
    digest = _check_key(key)
    data = bytes(data)
    path = _path(directory, key, suffix)
    header = _HEADER.pack(_MAGIC, FORMAT_VERSION, zlib.crc32(data), len(data),
                          digest)
    tmp = "%s.%d.%d.tmp" % (path, os.getpid(), id(data))
    try:
        os.makedirs(directory, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(header)
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise
    except OSError as exc:
        _warn_once("cannot write to %s" % directory, exc)
        return False
    return True


def clear(directory):
    """Delete every cache entry (and leftover temporary file) in a directory.

    Parameters
    ----------
    directory : str
        The cache directory. A missing directory is not an error.

    Returns
    -------
    int
        The number of files removed. Files not written by this module (no
        64-hex-digit name) are left alone.
    """
    removed = 0
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return 0
    for name in names:
        stem = name.split(".", 1)[0]
        if len(stem) != 64 or stem.strip("0123456789abcdef"):
            continue
        try:
            os.remove(os.path.join(directory, name))
            removed += 1
        except OSError:
            pass
    return removed
