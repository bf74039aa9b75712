"""CPU tests of the suite's own options (tests/conftest.py): --gpu-sample=K
with --gpu-sample-offset=J keeps every K-th gpu test from the J-th, so the
K offsets split the gpu tests into K disjoint parts that cover them all
(sanitizer runs spread over several device calls); CPU tests are left out;
an offset outside [0, K) is refused."""
import os
import subprocess
import sys

from _util import child_env

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = [os.path.join(HERE, f) for f in ("test_sorting_gpu.py",
                                          "test_sorting_cpu.py")]


def _collect(*opts):
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                        "-p", "no:cacheprovider", "-p", "no:xdist", *opts,
                        *FILES], capture_output=True, text=True, cwd=HERE,
                       env=child_env(), timeout=300)
    return r, [l for l in r.stdout.splitlines() if "::" in l]


def test_offsets_split_the_gpu_tests():
    _, every = _collect()
    gpu = [t for t in every if "_gpu.py::" in t
           and "past_2_32" not in t]        # the huge one is never sampled
    parts = [_collect("--gpu-sample=3", "--gpu-sample-offset=%d" % j)[1]
             for j in range(3)]
    assert all(parts) and all("_cpu.py::" not in t for p in parts for t in p)
    flat = [t for p in parts for t in p]
    assert sorted(flat) == sorted(gpu) and len(set(flat)) == len(flat)
    assert parts[0] == gpu[0::3] and parts[2] == gpu[2::3]


def test_offset_out_of_range_is_refused():
    r, _ = _collect("--gpu-sample=3", "--gpu-sample-offset=3")
    assert r.returncode != 0 and "--gpu-sample-offset must be in [0, 3)" in r.stderr
