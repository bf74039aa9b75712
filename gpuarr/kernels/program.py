"""Fused programs: several built-in elementwise operations as one body.

Pure Python (layer 0).  A :class:`Program` is what :func:`gpuarr.fuse`
records while it traces a function: a list of steps in SSA form, each
computing one value of a numpy dtype from inputs, constants or earlier
steps.  ``kernels/fused.cu.mako`` writes a program's C; the elementwise
and reduction templates call it where they would call one operation, so
a fused kernel gets every layout path of the built-in ones.

Steps (tuples, the value's dtype always second):

``("in", dtype, k)``
    Input ``k`` of the kernel (an array element or a scalar parameter),
    already in the compute type of ``dtype``.
``("const", dtype, raw)``
    A constant: ``raw`` is the bytes of a numpy scalar of ``dtype`` (bytes,
    not values, so that NaN constants compare equal in cache keys).
``("cast", dtype, j)``
    Step ``j``'s value converted to ``dtype`` (numpy's ``astype``).
``("op", dtype, name, loop_in, args, out)``
    Built-in operation ``name`` of :mod:`gpuarr.kernels.ops` over steps
    ``args``, each converted to the loop dtypes ``loop_in`` first; ``out``
    picks the result of an operation with several (``modf``, ``frexp``).
"""

import numpy as np

__all__ = ["Program", "constant", "constant_value"]


class Program:
    """A traced elementwise program (hashable, immutable).

    Parameters
    ----------
    steps : sequence of tuple
        The steps, as the module docstring describes them.
    outputs : sequence of int
        The steps whose values are the program's results, in order.
    nin : int
        The number of inputs the steps read.

    Attributes
    ----------
    name : str
        ``"fused"``: the operation name kernels built from it carry.
    key : tuple
        Identifies the program in kernel caches.
    out_dtypes : tuple of numpy.dtype
        The results' dtypes.
    in_dtypes : tuple of numpy.dtype or None
        The dtype each input is read as (None for an input no step reads).
    """

    __slots__ = ("steps", "outputs", "nin", "key", "out_dtypes", "in_dtypes")
    name = "fused"

    def __init__(self, steps, outputs, nin):
        self.steps = tuple(steps)
        self.outputs = tuple(outputs)
        self.nin = nin
        for j, st in enumerate(self.steps):
            refs = ()
            if st[0] == "cast":
                refs = (st[2],)
            elif st[0] == "op":
                refs = st[4]
            elif st[0] == "in" and not 0 <= st[2] < nin:
                raise ValueError("step %d reads input %d of %d"
                                 % (j, st[2], nin))
            if any(not 0 <= r < j for r in refs):
                raise ValueError("step %d uses a later step" % j)
        if any(not 0 <= j < len(self.steps) for j in self.outputs):
            raise ValueError("an output names no step")
        self.key = ("fused", self.steps, self.outputs, nin)
        self.out_dtypes = tuple(self.steps[j][1] for j in self.outputs)
        ins = [None] * nin
        for st in self.steps:
            if st[0] == "in":
                if ins[st[2]] is not None and ins[st[2]] != st[1]:
                    raise ValueError("input %d read as %s and %s"
                                     % (st[2], ins[st[2]], st[1]))
                ins[st[2]] = st[1]
        self.in_dtypes = tuple(ins)

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, Program) and other.key == self.key

    def __repr__(self):
        return "<gpuarr fused program: %d steps, %d inputs, %d outputs>" % (
            len(self.steps), self.nin, len(self.outputs))

    def used(self):
        """The indices of the steps some output depends on, ascending."""
        need = set()
        stack = list(self.outputs)
        while stack:
            j = stack.pop()
            if j in need:
                continue
            need.add(j)
            st = self.steps[j]
            if st[0] == "cast":
                stack.append(st[2])
            elif st[0] == "op":
                stack.extend(st[4])
        return sorted(need)

    def pruned(self, outputs):
        """The program computing only the given steps, as its outputs.

        Returns
        -------
        (Program, tuple of int)
            The smaller program, whose inputs are numbered afresh (in the
            same order), and the number in this program of each of them.
        """
        keep = Program(self.steps, outputs, self.nin).used()
        renum = {j: n for n, j in enumerate(keep)}
        inputs = sorted({self.steps[j][2] for j in keep
                         if self.steps[j][0] == "in"})
        inum = {k: n for n, k in enumerate(inputs)}
        steps = []
        for j in keep:
            st = self.steps[j]
            if st[0] == "in":
                st = (st[0], st[1], inum[st[2]])
            elif st[0] == "cast":
                st = (st[0], st[1], renum[st[2]])
            elif st[0] == "op":
                st = st[:4] + (tuple(renum[a] for a in st[4]), st[5])
            steps.append(st)
        return (Program(steps, [renum[j] for j in outputs], len(inputs)),
                tuple(inputs))


def constant(value, dtype):
    """The ``raw`` field of a constant step: ``value`` (a numpy scalar of
    ``dtype``) as bytes."""
    return np.asarray(value, dtype=dtype).tobytes()


def constant_value(raw, dtype):
    """The numpy scalar a constant step's ``raw`` bytes hold."""
    return np.frombuffer(raw, dtype=dtype)[0]
