"""2-D copies (issue 12): ``Memcpy2D`` of a pitched 16384 x 16384 float32
region, device to device, against ``memcpy_dtod`` (``cuMemcpyDtoD``) of the
same bytes, contiguous, and CuPy's ``cupy.cuda.runtime.memcpy2D`` of the
same pitched region.

Bandwidth counts each byte read once and written once (2 x 1 GiB).
"""
import numpy as np

from common import add_row, cupy_events, event_median_ms, gbs, gpuarr_events, try_import

N = 16384                 # rows and columns of the float32 region


def run():
    import gpuarr.autoinit  # noqa: F401
    import gpuarr.driver as drv

    ev = gpuarr_events()
    row = 4 * N
    src, spitch = drv.mem_alloc_pitch(row, N, 4)
    dst, dpitch = drv.mem_alloc_pitch(row, N, 4)
    drv.memset_d2d32(src, spitch, 0x3F800000, N, N)      # 1.0f everywhere
    copy = drv.Memcpy2D()
    copy.set_src_device(src)
    copy.src_pitch = spitch
    copy.set_dst_device(dst)
    copy.dst_pitch = dpitch
    copy.width_in_bytes, copy.height = row, N
    nbytes = 2 * row * N
    ms = event_median_ms(copy, ev, warmup=3, repeats=15)

    # check one row and the last element
    probe = np.zeros(N, np.float32)
    drv.memcpy_dtoh(probe, int(dst) + (N - 1) * dpitch)
    assert (probe == 1.0).all()

    a = drv.mem_alloc(row * N)
    b = drv.mem_alloc(row * N)
    ms_flat = event_median_ms(lambda: drv.memcpy_dtod(b, a, row * N), ev, warmup=3, repeats=15)

    # the ratio column then reads: Memcpy2D against the better of CuPy's
    # 2-D copy and a flat cuMemcpyDtoD of the same bytes
    others = {}
    cp = try_import("cupy")
    if cp is not None:
        rt = cp.cuda.runtime
        cs = cp.cuda.alloc(spitch * N)
        cd = cp.cuda.alloc(dpitch * N)
        others["CuPy"] = gbs(nbytes, event_median_ms(
            lambda: rt.memcpy2D(cd.ptr, dpitch, cs.ptr, spitch, row, N,
                                rt.memcpyDeviceToDevice),
            cupy_events(), warmup=3, repeats=15))
    others["memcpy_dtod"] = gbs(nbytes, ms_flat)
    add_row("Memcpy2D 16384^2 f32 pitched, d2d", "GB/s", gbs(nbytes, ms), others, nbytes,
            "higher")


if __name__ == "__main__":
    from common import print_table
    run()
    print_table()
