#!/usr/bin/env bash
# Build the documentation site (mkdocs.yml, docs/) with warnings as errors.
#   scripts/docs.sh            build into a temporary directory, report it, remove it
#   scripts/docs.sh DIR        build into DIR (kept)
#   scripts/docs.sh serve      live preview on http://127.0.0.1:8000
# Installs labelvar[docs] into .venv first (like scripts/test.sh). The tutorials'
# code is executed by tests/e2e/test_tutorials.py, not by the build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv "docs"
export NO_MKDOCS_2_WARNING=1 MPLBACKEND=Agg
if [[ "${1:-}" == "serve" ]]; then
    exec mkdocs serve --strict
fi
if [[ -n "${1:-}" ]]; then
    mkdocs build --strict --site-dir "$(realpath -m "$1")"
    echo "docs: built into $1"
else
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    mkdocs build --strict --site-dir "$out"
    echo "docs: built with no warnings ($(find "$out" -name '*.html' | wc -l) pages)"
fi
