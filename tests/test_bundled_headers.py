"""CPU tests of where NVRTC's bundled headers are extracted
(gpuarr._toolchain.bundled_includes) and of the reasons kept when that
fails. A stand-in NVRTC records the directory it is asked to fill; one test
asks the real NVRTC (13.3+, skipped with the reason otherwise) for its
error message.
"""
import os
import stat
import tempfile
import warnings

import pytest

from gpuarr import _config, _nvrtc, _toolchain
from gpuarr._errors import RuntimeError as GpuarrRuntimeError


class _StandIn:
    """Enough of _nvrtc.NVRTC for bundled_includes."""

    has_bundled_headers = True

    def __init__(self, fail=None):
        self.path = "/stand-in/libnvrtc.so.%d" % id(self)
        self.asked = []
        self.fail = fail

    def install_bundled_headers(self, path):
        self.asked.append(path)
        if self.fail is not None:
            raise self.fail
        return (path,)


@pytest.fixture(autouse=True)
def private_tmp(monkeypatch, tmp_path):
    """tempfile.gettempdir() and mkdtemp() point into tmp_path."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("GPUARR_CACHE_DIR", str(tmp_path / "cache"))
    _config.reload()
    _toolchain.reset()
    yield tmp
    monkeypatch.undo()
    _config.reload()
    _toolchain.reset()


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def _shared_root(tmp):
    return os.path.join(str(tmp), "gpuarr-%d" % os.getuid())


def test_fresh_place_is_private(private_tmp):
    lib = _StandIn()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = _toolchain.bundled_includes(lib, ("id", 1))
    want = _toolchain.bundled_dir(("id", 1))
    assert out == (want,) and lib.asked == [want]
    assert want.startswith(_shared_root(private_tmp) + os.sep)
    for d in (want, os.path.dirname(want), _shared_root(private_tmp)):
        assert _mode(d) == 0o700, d


@pytest.mark.parametrize("bad", ["world-writable", "group-writable",
                                 "symlink", "file", "leaf-writable"])
def test_bad_precreated_place_is_not_used(private_tmp, tmp_path, bad):
    root = _shared_root(private_tmp)
    want = _toolchain.bundled_dir(("id", 2))
    if bad == "symlink":
        target = tmp_path / "elsewhere"
        target.mkdir(mode=0o700)
        os.symlink(str(target), root)
    elif bad == "file":
        open(root, "w").close()
    elif bad == "leaf-writable":
        os.makedirs(want, mode=0o700)
        os.chmod(want, 0o777)
    else:
        os.mkdir(root)
        os.chmod(root, 0o777 if bad == "world-writable" else 0o770)
    lib = _StandIn()
    with pytest.warns(_toolchain.CompilerWarning, match="not extracting") as rec:
        out = _toolchain.bundled_includes(lib, ("id", 2))
    assert len(lib.asked) == 1
    used = lib.asked[0]
    assert out == (used,)
    assert used != want and not used.startswith(root + os.sep)
    assert _mode(used) == 0o700 and os.lstat(used).st_uid == os.getuid()
    assert os.path.dirname(used) == str(private_tmp)
    msg = str(rec[0].message)
    assert ("writable by others" in msg if bad.endswith("writable")
            else "not a directory" in msg)


def test_memoized_no_second_warning(private_tmp):
    os.mkdir(_shared_root(private_tmp))
    os.chmod(_shared_root(private_tmp), 0o777)
    lib = _StandIn()
    with pytest.warns(_toolchain.CompilerWarning):
        first = _toolchain.bundled_includes(lib, ("id", 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _toolchain.bundled_includes(lib, ("id", 3)) == first
    assert len(lib.asked) == 1


def test_nvrtc_failure_reason_is_warned(private_tmp):
    lib = _StandIn(GpuarrRuntimeError(
        "nvrtcInstallBundledHeaders('x') failed: NVRTC_ERROR_X (disk full)"))
    with pytest.warns(_toolchain.CompilerWarning, match="disk full"):
        assert _toolchain.bundled_includes(lib, ("id", 4)) == ()


def test_oserror_reason_is_warned(private_tmp):
    lib = _StandIn(PermissionError(13, "Permission denied", "/x"))
    with pytest.warns(_toolchain.CompilerWarning, match="Permission denied"):
        assert _toolchain.bundled_includes(lib, ("id", 5)) == ()


def _real_nvrtc():
    try:
        path = _nvrtc.find_library()
        lib = _nvrtc.load(path) if path else None
    except Exception as e:  # any load failure means: skip, with the reason
        return None, "NVRTC cannot be loaded: %s" % e
    if lib is None:
        return None, "NVRTC not found (pip install nvidia-cuda-nvrtc)"
    if not lib.has_bundled_headers:
        return None, "NVRTC %d.%d bundles no headers (13.3+)" % lib.version
    return lib, None


def test_real_nvrtc_error_keeps_message(tmp_path):
    lib, reason = _real_nvrtc()
    if lib is None:
        pytest.skip(reason)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(GpuarrRuntimeError,
                       match="nvrtcInstallBundledHeaders.*failed: ") as info:
        lib.install_bundled_headers(str(blocker / "headers"))
    assert info.value.name


def test_real_nvrtc_extracts_into_private_dir(private_tmp):
    lib, reason = _real_nvrtc()
    if lib is None:
        pytest.skip(reason)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = _toolchain.bundled_includes(lib, ("real", lib.path))
    assert out and os.path.isfile(os.path.join(out[0], "cuda_fp16.h"))
    assert _mode(out[0]) & 0o022 == 0
