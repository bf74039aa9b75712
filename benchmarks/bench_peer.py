"""Copies between two GPUs (issue 16): ``x.to_device(1)`` of 1 GiB from
device 0, beside a C loop of ``cuMemcpyPeer`` (benchmarks/peer_copy.c,
built here with the C compiler) and PyTorch's ``x.to("cuda:1")``; with
peer access off and on (PyTorch turns it on itself where it can).

Figures are GB/s (10**9 bytes a second, higher is better): the median of
host-timed copies, each waited for on both devices.  Skipped, with a line
saying so, on a machine with one GPU.
"""
import os
import shutil
import subprocess
import tempfile

import numpy as np

from common import add_row, host_median_s, rivals

NBYTES = 1 << 30
REPEATS = 15
HERE = os.path.dirname(os.path.abspath(__file__))


def _c_loop(peer):
    """The C baseline's GB/s, or None where it cannot be built or run."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    exe = os.path.join(tempfile.mkdtemp(), "peer_copy")
    r = subprocess.run([cc, "-O2", "-o", exe,
                        os.path.join(HERE, "peer_copy.c"), "-ldl"],
                       capture_output=True, text=True)
    if r.returncode:
        print("  (peer_copy.c did not build: %s)" % r.stderr.strip()[:200])
        return None
    r = subprocess.run([exe, str(NBYTES), str(REPEATS), str(int(peer))],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        print("  (peer_copy failed: %s)" % r.stderr.strip()[:200])
        return None
    return float(r.stdout.split()[-1])


def _median_gbs(fn, sync):
    return NBYTES / host_median_s(fn, sync, 3, REPEATS) / 1e9


def run():
    import gpuarr
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv

    if drv.Device.count() < 2:
        print("  (one GPU on this machine: no peer-copy rows)")
        return
    d0, d1 = drv.Device(0), drv.Device(1)
    _, torch = rivals()
    host = np.random.default_rng(5).standard_normal(NBYTES // 4,
                                                    dtype=np.float32)
    x = gpuarr.to_gpu(host)

    def sync():
        for d in (d0, d1):
            with d:
                drv.Context.synchronize()

    def ours():
        x.to_device(1)

    y = x.to_device(1)
    assert y.device == d1 and np.array_equal(y.get(), host)
    del y, host
    for peer in (False, True):
        if peer:
            c0, c1 = d0.get_primary_context(), d1.get_primary_context()
            with d0:
                drv.Context.enable_peer_access(c1)
            with d1:
                drv.Context.enable_peer_access(c0)
        o = {}
        c = _c_loop(peer)
        if c is not None:
            o["cuMemcpyPeer C loop"] = c
        if torch is not None:
            t = torch.arange(NBYTES // 4, dtype=torch.float32, device="cuda:0")
            o["PyTorch"] = _median_gbs(lambda: t.to("cuda:1"),
                                       lambda: (torch.cuda.synchronize(0),
                                                torch.cuda.synchronize(1)))
            del t
        add_row("to_device(1) 1 GiB f32, peer access %s"
                % ("on" if peer else "off"), "GB/s", _median_gbs(ours, sync),
                o, better="higher")


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
