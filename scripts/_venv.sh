# Sourced by scripts/test.sh and scripts/reproduce.sh: create .venv if it is
# missing, install labelvar into it (editable) with the extras given, activate it.
# Usage: ensure_venv [EXTRAS]   e.g. ensure_venv "test,cluster"
ensure_venv() {
    local extras="${1:-}"
    local root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
    local py="${PYTHON:-python3}"
    if [[ ! -x "$root/.venv/bin/python" ]]; then
        echo "labelvar: creating $root/.venv" >&2
        "$py" -m venv "$root/.venv"
        "$root/.venv/bin/python" -m pip install --quiet --upgrade pip
    fi
    local spec="$root"
    [[ -n "$extras" ]] && spec="$root[$extras]"
    "$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec"
    # shellcheck disable=SC1091
    source "$root/.venv/bin/activate"
}
