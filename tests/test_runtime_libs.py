"""CPU tests of how gpuarr opens NVIDIA's run-time libraries
(:class:`gpuarr._toolchain.RuntimeLibrary`, behind ``_blas.load``,
``_cusolver.load`` and ``_curand.load``): one opening however many threads
ask at once, the setup run once, a reset searching again, and the
not-found message naming where it looked, why a found file did not load
and the wheel to install."""
import threading
import time

import pytest

from gpuarr import _cusolver, _nccl, _toolchain


class Missing(RuntimeError):
    pass


def test_opened_once_under_concurrent_first_use(tmp_path):
    lib = tmp_path / "libfake.so.1"
    lib.write_text("")
    opened, setups = [], []

    def opener(path):
        time.sleep(0.05)            # the window where a second opener would run
        opened.append(path)
        return "handle"

    rl = _toolchain.RuntimeLibrary(
        "Fake", "libfake.so.1", "nvidia-fake",
        lambda: ([str(lib)], ("libfake.so.1",)), opener, Missing, "hint",
        setup=lambda h, p: setups.append(p) or (h, p))
    assert rl.loaded() is None
    got = []
    threads = [threading.Thread(target=lambda: got.append(rl.load()))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert opened == [str(lib)] and setups == [str(lib)]
    assert got == [("handle", str(lib))] * 8 and rl.loaded() == got[0]
    rl.reset()
    assert rl.loaded() is None
    rl.load()
    assert len(opened) == 2


def test_not_found_message_says_where_and_why(tmp_path):
    broken = tmp_path / "libfake.so.1"
    broken.write_text("not an ELF")

    def opener(path):
        raise OSError("cannot load %s" % path)

    rl = _toolchain.RuntimeLibrary(
        "Fake", "libfake.so.1", "nvidia-fake",
        lambda: ([str(broken), str(tmp_path / "absent.so")], ("libfake.so",)),
        opener, Missing, "install it with `pip install nvidia-fake`")
    with pytest.raises(Missing) as info:
        rl.load()
    msg = str(info.value)
    assert msg.startswith("the Fake library (libfake.so.1) was not found in "
                          "the nvidia-fake wheel, $CUDA_PATH/lib64")
    assert "found but not loadable: %s: cannot load" % broken in msg
    assert "absent.so" not in msg                 # not there: not tried
    assert "the loader said: libfake.so: cannot load libfake.so" in msg
    assert msg.endswith("install it with `pip install nvidia-fake`")
    assert rl.loaded() is None                    # nothing kept: tried again
    with pytest.raises(Missing):
        rl.load()


@pytest.mark.parametrize("mod, error, soname, wheel", [
    (_cusolver, "CusolverNotFoundError", "libcusolver-not-here.so",
     "nvidia-cusolver"),
    (_nccl, "NcclNotFoundError", "libnccl-not-here.so", "nvidia-nccl-cu13")],
    ids=["cusolver", "nccl"])
def test_missing_library_names_the_wheel(monkeypatch, tmp_path, mod, error,
                                         soname, wheel):
    if mod._library.loaded() is not None:
        pytest.skip("the library is loaded in this process")
    monkeypatch.setattr(mod, "candidates", lambda: [str(tmp_path / "x.so")])
    monkeypatch.setattr(mod, "_SONAMES", (soname,))
    mod.reset()
    try:
        with pytest.raises(getattr(mod, error),
                           match="pip install " + wheel) as info:
            mod.load()
        assert soname + ": " in str(info.value)
        assert isinstance(info.value, RuntimeError)
    finally:
        mod.reset()
