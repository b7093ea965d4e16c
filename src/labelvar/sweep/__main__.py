"""``python -m labelvar.sweep [hydra args]``: the sweep command line."""

import sys

from labelvar.sweep import cli_main

if __name__ == "__main__":  # importing this module (e.g. pkgutil.walk_packages) runs nothing
    sys.exit(cli_main(sys.argv[1:]))
