"""Docstring pieces shared by several functions (layer 0): a module keeps
its pieces in a dict and decorates the functions that use them with
``filler(pieces)``; a docstring line that is ``$NAME`` alone becomes the
piece ``NAME``, indented as the line was.  The docstrings are filled once,
at import, so ``help()``, Sphinx and numpydoc see the whole text."""

__all__ = ["filler"]


def filler(pieces):
    """A decorator putting ``pieces`` into docstrings.

    Parameters
    ----------
    pieces : dict of str to str
        Piece name (upper case) -> text, its lines indented relative to
        the piece's first line.

    Returns
    -------
    callable
        ``decorator(fn) -> fn`` with ``fn.__doc__`` filled in (nothing
        happens under ``python -OO``, which drops docstrings). It raises
        KeyError for a ``$NAME`` line naming no piece.
    """
    def fill(fn):
        if fn.__doc__:
            lines = []
            for line in fn.__doc__.split("\n"):
                key = line.strip()
                if key.startswith("$") and key[1:].replace("_", "").isupper():
                    indent = line[:len(line) - len(line.lstrip())]
                    lines += [indent + p if p else p
                              for p in pieces[key[1:]].split("\n")]
                else:
                    lines.append(line)
            fn.__doc__ = "\n".join(lines)
        return fn
    return fill
