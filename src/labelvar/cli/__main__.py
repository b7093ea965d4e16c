"""``python -m labelvar.cli``: the ``labelvar`` command line."""

import sys

from labelvar.cli._main import main

if __name__ == "__main__":  # pragma: no cover (importing this module runs nothing)
    sys.exit(main())
