"""``python -m labelvar.cli``: the ``labelvar`` command line."""

import sys

from labelvar.cli._main import main

sys.exit(main())
