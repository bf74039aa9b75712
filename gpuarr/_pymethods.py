"""PyCUDA's ``GPUArray`` methods that numpy's arrays lack (layer 5):
``reverse``, ``mul_add``, ``bind_to_texref``/``bind_to_texref_ext``,
``_new_like_me`` and the ``_grid``/``_block`` launch shape, with
``gpuarray.splay`` behind the last.

The class (:mod:`gpuarr._array`) binds each as a method; the functions
take the array first.
"""

from . import _placement
from . import _dtypes, _ufunc
from . import driver as _drv
from ._array import GPUArray
from ._enums import device_attribute
from .tools import DeviceData

__all__ = ["reverse", "mul_add", "bind_to_texref", "bind_to_texref_ext",
           "new_like_me", "splay", "launch_grid", "launch_block"]

_TEXREF = (
    "texture references were removed in CUDA 12, so %s cannot exist: read "
    "the array through a plain kernel argument (``const T *__restrict__``, "
    "its ``ptr``; loads go through the same read-only cache), or create a "
    "texture object (cuTexObjectCreate over the array's memory) and pass "
    "it as a cudaTextureObject_t argument")


def reverse(a, stream=None):
    """A copy with the elements in reverse order (PyCUDA's
    ``GPUArray.reverse``).

    PyCUDA reverses the (contiguous) memory of the array treated as
    one-dimensional and keeps the shape, which is every axis reversed:
    ``a[::-1]`` for a vector, ``a[::-1, ::-1]`` for a matrix, in C or F
    order alike.  gpuarr gives that for any layout (PyCUDA raised for a
    non-contiguous array).

    Parameters
    ----------
    a : GPUArray
    stream : gpuarr.driver.Stream, optional

    Returns
    -------
    GPUArray
        A new array of ``a``'s shape and dtype, F-ordered when ``a`` is F-
        and not C-contiguous (like PyCUDA's), else C-ordered.
    """
    flipped = a[(slice(None, None, -1),) * len(a.shape)]
    order = "F" if (a.flags.f_contiguous and not a.flags.c_contiguous) else "C"
    return flipped.copy(order=order, stream=stream)


def mul_add(a, selffac, other, otherfac, add_timer=None, stream=None,
            out=None):
    """``selffac * a + otherfac * other`` (PyCUDA's ``GPUArray.mul_add``)
    with numpy's promotion and broadcasting (each product rounded to its
    dtype, then the sum, as numpy computes the expression).

    Parameters
    ----------
    a : GPUArray
    selffac, otherfac : scalar or GPUArray
    other : GPUArray or scalar
    add_timer : callable, optional
        PyCUDA's timing hook: called as ``add_timer(3 * a.size,
        seconds)`` where ``seconds()`` waits for the work and returns its
        GPU time in seconds (two events around it on ``stream``).
    stream : gpuarr.driver.Stream, optional
    out : GPUArray, optional
        Receives the result (``same_kind`` casting).

    Returns
    -------
    GPUArray
        ``out`` if given, else a new array.

    Raises
    ------
    TypeError, ValueError
        As numpy's ``multiply`` and ``add``.
    """
    start = end = None
    if add_timer is not None:
        start, end = _drv.Event(), _drv.Event()
        start.record(stream)
    apply = _ufunc.apply
    res = apply("add", (apply("multiply", (selffac, a), None, stream),
                        apply("multiply", (otherfac, other), None, stream)),
                out, stream)
    if add_timer is not None:
        end.record(stream)

        def seconds():
            end.synchronize()
            return start.time_till(end) * 1e-3
        add_timer(3 * a.size, seconds)
    return res


def bind_to_texref(a, texref, allow_offset=False):
    """PyCUDA's ``GPUArray.bind_to_texref``: impossible with CUDA 12.

    Raises
    ------
    gpuarr.driver.NotSupportedError
        Always (a RuntimeError), naming texture objects as the way.
    """
    raise _drv.NotSupportedError(_TEXREF % "bind_to_texref")


def bind_to_texref_ext(a, texref, channels=1, allow_double_hack=False,
                       allow_complex_hack=False, allow_offset=False):
    """PyCUDA's ``GPUArray.bind_to_texref_ext``: impossible with CUDA 12.

    Raises
    ------
    gpuarr.driver.NotSupportedError
        Always; see :func:`bind_to_texref`.
    """
    raise _drv.NotSupportedError(_TEXREF % "bind_to_texref_ext")


def new_like_me(a, dtype=None, order="C"):
    """PyCUDA's ``GPUArray._new_like_me``: an uninitialized array of
    ``a``'s shape, of ``dtype`` (default ``a``'s), from ``a``'s allocator.

    PyCUDA copies ``a``'s strides when the dtype is the same; gpuarr keeps
    ``a``'s order instead (F when ``a`` is F- and not C-contiguous, else
    ``order``), which is the same for contiguous arrays and gives a
    compact result for views.

    Raises
    ------
    TypeError
        For an unsupported dtype.
    ValueError
        For an unknown ``order``.
    """
    dt = a.dtype if dtype is None else _dtypes.canonical(dtype)
    if dt == a.dtype and a.flags.f_contiguous and not a.flags.c_contiguous:
        order = "F"
    return GPUArray(a.shape, dt, allocator=a.allocator, order=order)


_SPLAY = {}
#: threads a block of splay's has at most, and in what steps (a warp)
_SPLAY_MOST_THREADS, _SPLAY_STEP = 128, 32
#: blocks splay launches per block a multiprocessor can hold
_SPLAY_WAVES = 4


def splay(n, dev=None):
    """PyCUDA's ``gpuarray.splay``: a grid and block covering ``n``
    elements with a grid-stride loop, as PyCUDA's own kernels launch.

    The grid is capped at ``4 * thread_blocks_per_mp * multiprocessors``
    blocks (:class:`gpuarr.tools.DeviceData`'s ``thread_blocks_per_mp``,
    the driver's ``MAX_BLOCKS_PER_MULTIPROCESSOR``: 32 on an H100/H200;
    PyCUDA's DeviceData says 8 on every GPU, so its grids are 4 times
    smaller there).  Below the cap every thread gets one element: one
    32-thread block under 32 elements, then 32-thread blocks, then, once
    the cap is reached, blocks grown in steps of 32 threads up to 128;
    beyond ``cap * 128`` elements each thread strides over several.

    Parameters
    ----------
    n : int
        Number of elements.
    dev : gpuarr.driver.Device, optional
        Default the current context's.

    Returns
    -------
    ((int, int), (int, int, int))
        ``(grid, block)``.

    Raises
    ------
    gpuarr.driver.InvalidContextError
        With no ``dev`` and no current context.
    """
    if dev is None:
        dev = _drv.Context.get_device()
    key = (dev, int(n))
    shape = _SPLAY.get(key)
    if shape is None:
        shape = _splay_shape(int(n), _splay_cap(dev))
        if len(_SPLAY) > 4096:
            _SPLAY.clear()
        _SPLAY[key] = shape
    return shape


def _splay_cap(dev):
    sms = dev.get_attribute(device_attribute.MULTIPROCESSOR_COUNT)
    return _SPLAY_WAVES * DeviceData(dev).thread_blocks_per_mp * sms


def _splay_shape(n, cap):
    warps = max(1, -(-n // _SPLAY_STEP))      # 32-element groups, at least 1
    if warps <= cap:
        blocks, threads = warps, _SPLAY_STEP
    else:
        # the cap's blocks, each with enough warps for its share
        per_block = min(-(-warps // cap), _SPLAY_MOST_THREADS // _SPLAY_STEP)
        blocks, threads = cap, per_block * _SPLAY_STEP
    return (blocks, 1), (threads, 1, 1)


def launch_grid(a):
    """``a._grid``: PyCUDA's grid for ``a``'s elements (:func:`splay`)."""
    return splay(a.size)[0]


def launch_block(a):
    """``a._block``: PyCUDA's block for ``a``'s elements (:func:`splay`)."""
    return splay(a.size)[1]


# run on the arrays' device (issue 16)
_placement.route(globals())
