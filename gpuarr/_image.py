"""Kernel parameter counts read from a module image (cubin or PTX).

Pure Python (layer 0): no driver import. The driver layer asks
``cuFuncGetParamInfo`` for each parameter's offset and size, but it must
know how many there are first: asking past the last parameter fails, and
compute-sanitizer reports every failing driver call. Drivers with
``cuFuncGetParamCount`` say; for older ones this module reads the count from
the image that was loaded.

Cubin
    An ELF file (``e_machine`` EM_CUDA). Each kernel has a section
    ``.nv.info.<kernel name>`` of attribute records: a 1-byte format, a
    1-byte attribute, then 2 bytes that are the value (formats NVAL, BVAL,
    HVAL) or the size of the payload that follows (format SVAL). The kernel
    has one record per parameter: EIATTR_KPARAM_INFO (payload: a 4-byte
    index, the 2-byte ordinal, the 2-byte offset, then a 4-byte word whose
    top 14 bits are the size) or, where the parameters take more than 4 KB
    (so CUDA 13's NVRTC and nvcc write them), EIATTR_KPARAM_INFO_V2 (the
    same, with the size as the whole 4-byte word). The count is trusted only
    when the ordinals are exactly 0..n-1 and the last parameter ends where
    the parameter bank that EIATTR_CBANK_PARAM_SIZE gives ends.
PTX
    The ``.param`` entries of each ``.entry name(...)`` declaration.

Anything else (a fatbin, an unknown format, a malformed image) gives None:
the count is then unknown, never guessed.
"""

import re
import struct

__all__ = ["image_kind", "param_counts"]

_ELF_MAGIC = b"\x7fELF"
_FATBIN_MAGIC = b"\x50\xed\x55\xba"     # 0xBA55ED50, little-endian
_EM_CUDA = 190
_SHN_XINDEX = 0xFFFF
_INFO_PREFIX = b".nv.info."

# .nv.info record formats and the attributes read here
_EIFMT_NVAL = 1
_EIFMT_BVAL = 2
_EIFMT_HVAL = 3
_EIFMT_SVAL = 4
_EIATTR_KPARAM_INFO = 0x17
_EIATTR_CBANK_PARAM_SIZE = 0x19
_EIATTR_KPARAM_INFO_V2 = 0x45

# PTX patterns, compiled (and cached by re) at their first use, not at import
_PTX_COMMENT = r"(?s)//[^\n]*|/\*.*?\*/"
_PTX_VERSION = r"(?m)^\s*\.version\s+\d"
_PTX_ENTRY = r"\.entry\s+([A-Za-z_$%][\w$%]*)\s*(\(?)"
_PTX_PARAM = r"\.param\b"


class _Malformed(Exception):
    """A structure of the image lies outside it or contradicts itself."""


def image_kind(image):
    """What a module image is.

    Parameters
    ----------
    image : bytes
        The image as given to ``cuModuleLoadData`` (a trailing NUL is fine).

    Returns
    -------
    str or None
        ``"cubin"`` (ELF), ``"fatbin"``, ``"ptx"``, or None when it is none
        of these.
    """
    head = bytes(image[:4])
    if head == _ELF_MAGIC:
        return "cubin"
    if head == _FATBIN_MAGIC:
        return "fatbin"
    if _ptx_text(image) is not None:
        return "ptx"
    return None


def param_counts(image):
    """The number of parameters of each kernel in a module image.

    Parameters
    ----------
    image : bytes, bytearray or memoryview
        A cubin or PTX image (a trailing NUL is fine).

    Returns
    -------
    dict of str to int, or None
        ``{kernel name: parameter count}``, names as the driver knows them
        (mangled unless ``extern "C"``). A kernel whose records do not hold
        together is left out. None for a fatbin, a malformed cubin or an
        image of another kind. Never raises for any bytes.
    """
    image = bytes(image)
    try:
        if image[:4] == _ELF_MAGIC:
            return _cubin_counts(image)
        text = _ptx_text(image)
        if text is not None:
            return _ptx_counts(text)
    except (_Malformed, struct.error, IndexError, ValueError):
        return None
    return None


# ---------------------------------------------------------------------------
# Cubin (ELF)
# ---------------------------------------------------------------------------

def _sections(elf):
    """``[(name, offset, size)]`` of an ELF64 little-endian CUDA file."""
    if len(elf) < 64 or elf[4] != 2 or elf[5] != 1:     # ELFCLASS64, ELFDATA2LSB
        raise _Malformed("not a 64-bit little-endian ELF")
    if struct.unpack_from("<H", elf, 0x12)[0] != _EM_CUDA:
        raise _Malformed("not a CUDA ELF")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    if shoff == 0 or shentsize < 64:
        raise _Malformed("no section headers")
    # Past 0xff00 sections, the count and the name table's index are kept
    # in section 0's size and link fields.
    if shnum == 0:
        shnum = struct.unpack_from("<Q", elf, shoff + 0x20)[0]
    if shstrndx == _SHN_XINDEX:
        shstrndx = struct.unpack_from("<I", elf, shoff + 0x28)[0]
    if shoff + shnum * shentsize > len(elf) or shstrndx >= shnum:
        raise _Malformed("section headers past the end")
    headers = []
    for k in range(shnum):
        base = shoff + k * shentsize
        name, = struct.unpack_from("<I", elf, base)
        offset, size = struct.unpack_from("<QQ", elf, base + 0x18)
        headers.append((name, offset, size))
    _, str_off, str_size = headers[shstrndx]
    if str_off + str_size > len(elf):
        raise _Malformed("section name table past the end")
    out = []
    for name, offset, size in headers:
        if name >= str_size:
            raise _Malformed("section name past its table")
        end = elf.find(b"\0", str_off + name, str_off + str_size)
        if end < 0:
            raise _Malformed("unterminated section name")
        out.append((elf[str_off + name:end], offset, size))
    return out


def _kernel_param_count(info):
    """The parameter count in one ``.nv.info.<kernel>`` section, or None."""
    ordinals = []
    param_end = 0
    bank_size = None
    p = 0
    while p < len(info):
        if p + 4 > len(info):
            return None
        fmt, attr, value = struct.unpack_from("<BBH", info, p)
        p += 4
        if fmt == _EIFMT_SVAL:
            payload = info[p:p + value]
            if len(payload) != value:
                return None
            p += value
            if attr == _EIATTR_KPARAM_INFO or attr == _EIATTR_KPARAM_INFO_V2:
                if value < 12:
                    return None
                ordinal, offset, word = struct.unpack_from("<HHI", payload, 4)
                size = word >> 18 if attr == _EIATTR_KPARAM_INFO else word
                ordinals.append(ordinal)
                param_end = max(param_end, offset + size)
        elif fmt in (_EIFMT_NVAL, _EIFMT_BVAL, _EIFMT_HVAL):
            if attr == _EIATTR_CBANK_PARAM_SIZE:
                bank_size = value
        else:
            return None             # a format whose length is unknown
    if sorted(ordinals) != list(range(len(ordinals))):
        return None
    if bank_size is not None and param_end != bank_size:
        return None
    return len(ordinals)


def _cubin_counts(elf):
    out = {}
    for name, offset, size in _sections(elf):
        if not name.startswith(_INFO_PREFIX) or len(name) == len(_INFO_PREFIX):
            continue
        if offset + size > len(elf):
            raise _Malformed("section past the end")
        n = _kernel_param_count(elf[offset:offset + size])
        if n is not None:
            out[name[len(_INFO_PREFIX):].decode("utf-8", "replace")] = n
    return out


# ---------------------------------------------------------------------------
# PTX
# ---------------------------------------------------------------------------

def _ptx_text(image):
    """The PTX source with comments removed, or None when ``image`` is not
    PTX text (it must have a ``.version`` directive)."""
    raw = bytes(image).rstrip(b"\0")
    if not raw or b"\0" in raw:
        return None
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    text = re.sub(_PTX_COMMENT, " ", text)
    if not re.search(_PTX_VERSION, text):
        return None
    return text


def _ptx_counts(text):
    out = {}
    clash = set()
    for m in re.finditer(_PTX_ENTRY, text):
        name = m.group(1)
        if m.group(2):
            close = text.find(")", m.end())
            if close < 0:
                raise _Malformed("unclosed parameter list of %s" % name)
            n = len(re.findall(_PTX_PARAM, text[m.end():close]))
        else:
            n = 0                   # ".entry name" with no list: no parameters
        if out.get(name, n) != n:
            clash.add(name)
        out[name] = n
    for name in clash:
        del out[name]
    return out
