#!/usr/bin/env bash
# Install labelvar with its test, cluster and parquet extras into .venv and run the tests.
#   scripts/test.sh            default suite (everything not marked slow)
#   scripts/test.sh --slow     default suite, then the slow end-to-end tests
#   scripts/test.sh ARGS...    other arguments go to pytest
# CI (CI=true) runs the default suite and then the slow tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv "test,cluster,parquet,docs"
export MPLBACKEND=Agg
run_slow=0
if [[ "${1:-}" == "--slow" ]]; then run_slow=1; shift; fi
[[ "${CI:-}" == "true" ]] && run_slow=1
python -m pytest -m "not slow" "$@"
if (( run_slow )); then
    # exit code 5 = no test is marked slow: not a failure (the default suite ran tests)
    python -m pytest -m slow tests "$@" || { rc=$?; (( rc == 5 )) || exit $rc; }
fi
