#!/usr/bin/env bash
# The main job: set up .venv (created if missing), install labelvar, and print the
# paper's Tables 1 and 2 as computed by labelvar.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv ""
labelvar tables
