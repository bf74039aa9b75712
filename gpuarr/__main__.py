"""``python -m gpuarr [--json]``: what gpuarr found on this machine (see
:func:`gpuarr.show_config`)."""

import sys

from ._diagnostics import main

if __name__ == "__main__":
    sys.exit(main())
