"""CPU tests of gpuarr.nccl and its binding: NCCL's type and operation
codes for numpy's dtypes and the argument checks made before any library
or driver call (the not-found message: tests/test_runtime_libs.py).
Where an NCCL library is installed here, its version and an id (neither
needs a GPU)."""
import numpy as np
import pytest

from gpuarr import _nccl
import gpuarr.nccl as nccl


def test_type_codes_follow_nccl_h():
    want = {"i1": 0, "u1": 1, "i4": 2, "u4": 3, "i8": 4, "u8": 5, "f2": 6,
            "f4": 7, "f8": 8}
    for dt, code in want.items():
        for op in _nccl.OPS:
            assert _nccl.type_code(dt, op) == (code, 1)
    # complex: pairs of reals, summed or averaged only
    assert _nccl.type_code("c8", "sum") == (7, 2)
    assert _nccl.type_code("c16", "avg") == (8, 2)
    assert _nccl.OPS == {"sum": 0, "prod": 1, "max": 2, "min": 3, "avg": 4}
    for dt, op in [("c8", "max"), ("c16", "prod"), ("?", "sum"),
                   ("i2", "sum"), ("u2", "max")]:
        with pytest.raises(TypeError):
            _nccl.type_code(dt, op)
    with pytest.raises(ValueError, match="op must be one of"):
        _nccl.type_code("f4", "mean")


def test_checks_before_any_call():
    with pytest.raises(ValueError, match="rank must be in"):
        nccl.Communicator(2, b"\0" * 128, 2)
    with pytest.raises(ValueError, match="rank must be in"):
        nccl.Communicator(1, b"\0" * 128, -1)
    with pytest.raises(ValueError, match="128 bytes"):
        _nccl.comm_init_rank(1, b"short", 0)
    with pytest.raises(ValueError, match="at least one array"):
        nccl.all_reduce([])
    with pytest.raises(TypeError, match="must be a GPUArray"):
        nccl.all_reduce([np.zeros(3)])
    with pytest.raises(ValueError, match="distinct"):
        nccl.Communicator.init_all([0, 0])


def test_installed_library_version_and_id():
    try:
        v = nccl.version()
    except nccl.NcclNotFoundError as exc:
        pytest.skip("no NCCL here: %s" % str(exc)[:80])
    assert v >= 20000, v            # major * 10000 + minor * 100 + patch
    a, b = nccl.get_unique_id(), nccl.get_unique_id()
    assert len(a) == len(b) == _nccl.UNIQUE_ID_BYTES and a != b
