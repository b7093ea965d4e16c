#!/usr/bin/env bash
# Install labelvar with its test, cluster and parquet extras into .venv and run the tests.
#   scripts/test.sh            default suite (everything not marked slow)
#   scripts/test.sh --slow     default suite, then the slow end-to-end tests
#   scripts/test.sh --wheel    default suite, then scripts/wheel_smoke.sh (build the sdist
#                              and wheel, install the wheel alone into a fresh venv, run
#                              every command outside the checkout)
#   scripts/test.sh ARGS...    other arguments go to pytest
# CI (CI=true) runs the default suite, the slow tests and the wheel smoke test.
# The suites run on every core (pytest-xdist; LABELVAR_TEST_WORKERS=N for N workers, 0 for
# one process): the workers share numba's on-disk cache (src/labelvar/_kernels/__pycache__),
# so a kernel compiled by one is loaded by the other and by the slow suite after it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv "test,cluster,parquet,docs"
export MPLBACKEND=Agg
run_slow=0
run_wheel=0
while [[ "${1:-}" == "--slow" || "${1:-}" == "--wheel" ]]; do
    [[ "$1" == "--slow" ]] && run_slow=1
    [[ "$1" == "--wheel" ]] && run_wheel=1
    shift
done
[[ "${CI:-}" == "true" ]] && { run_slow=1; run_wheel=1; }
# the layering (pyproject.toml [tool.importlinter]): a broken contract stops here
lint-imports --no-cache
workers=(-n "${LABELVAR_TEST_WORKERS:-auto}")
# the default suite by file (a file's tests share the kernels they compile), the slow tests
# one by one to whichever worker is free (they are few and long)
python -m pytest "${workers[@]}" --dist loadfile -m "not slow" "$@"
if (( run_slow )); then
    # exit code 5 = no test is marked slow: not a failure (the default suite ran tests)
    python -m pytest "${workers[@]}" --dist worksteal -m slow tests "$@" || { rc=$?; (( rc == 5 )) || exit $rc; }
fi
if (( run_wheel )); then
    PYTHON=python bash scripts/wheel_smoke.sh
fi
