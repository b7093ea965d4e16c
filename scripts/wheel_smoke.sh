#!/usr/bin/env bash
# Build labelvar's sdist and wheel (the wheel from the sdist, so the sdist is complete),
# install the wheel alone (--no-deps) into a fresh virtualenv that sees only the wheel's
# declared dependencies (linked from PYTHON's environment, checked by `pip check`), and run
# every command from a directory outside the checkout. Everything happens in a temporary
# directory (removed at exit); the checkout is only read. Run by scripts/test.sh in CI
# (CI=true) or with --wheel.
#   scripts/wheel_smoke.sh            needs python3 with venv, and `build` (pip install build)
# PYTHON picks the interpreter that builds and creates the venv (default: python3).
# KEEP=1 keeps the temporary directory and prints where it is. FULL=1 installs the
# dependencies from the package index into the fresh venv instead (several minutes).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-python3}"
work="$(mktemp -d "${TMPDIR:-/tmp}/labelvar-wheel.XXXXXX")"
if [[ "${KEEP:-}" == "1" ]]; then trap 'echo "wheel_smoke: kept $work" >&2' EXIT
else trap 'rm -rf "$work"' EXIT; fi
t0=$SECONDS
step() { echo "wheel_smoke: [$((SECONDS - t0)) s] $*" >&2; }
fail() { echo "wheel_smoke: FAILED: $*" >&2; exit 1; }
before="$(git -C "$root" status --porcelain --ignored 2>/dev/null || true)"

# 1. a copy of the source tree (tracked and new files; no .venv, outputs, build debris)
step "copying the source tree"
mkdir "$work/src"
if git -C "$root" rev-parse --show-toplevel >/dev/null 2>&1; then
    (cd "$root" && git ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done \
        | tar --null -T - -cf -) | tar -xf - -C "$work/src"
else
    tar -C "$root" --exclude=.venv --exclude=outputs --exclude=build --exclude=dist \
        --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -xf - -C "$work/src"
fi

# 2. sdist, then the wheel built from the unpacked sdist
step "building the sdist and the wheel (python -m build)"
"$py" -m build --version >/dev/null 2>&1 || fail "the 'build' package is missing ($py -m pip install build)"
"$py" -m build --outdir "$work/dist" "$work/src" >"$work/build.log" 2>&1 \
    || { tail -30 "$work/build.log" >&2; fail "build"; }
sdist=("$work"/dist/labelvar-*.tar.gz)
wheel=("$work"/dist/labelvar-*.whl)
[[ -f "${sdist[0]}" && -f "${wheel[0]}" ]] || fail "no sdist or wheel in $work/dist"
"$py" - "${sdist[0]}" "${wheel[0]}" <<'EOF' || fail "package contents"
import sys, tarfile, zipfile
sdist = [n.split("/", 1)[1] for n in tarfile.open(sys.argv[1]).getnames() if "/" in n]
wheel = zipfile.ZipFile(sys.argv[2]).namelist()
need = ["labelvar/configs/config.yaml", "labelvar/configs/experiment/figure1.yaml",
        "labelvar/configs/hydra/launcher/slurm.yaml", "labelvar/configs_design/snli.yaml",
        "labelvar/configs_design/separability.yaml", "labelvar/cli/__init__.py"]
missing = [n for n in need if n not in wheel] + [n for n in need if "src/" + n not in sdist]
missing += [n for n in ("pyproject.toml", "README.md", "LICENSE") if n not in sdist]
if missing:
    sys.exit(f"missing from the sdist/wheel: {missing}")
if any(n.startswith(("tests/", "configs/")) for n in wheel):
    sys.exit("the wheel holds files outside the package")
print(f"wheel_smoke: {len(wheel)} files in the wheel, {len(sdist)} in the sdist", file=sys.stderr)
EOF

# 3. a fresh venv with the wheel, inside an unrelated git repository (provenance must not
#    record that repository's revision). The wheel goes in alone (--no-deps); its declared
#    dependencies and theirs (Requires-Dist, no extras) are linked from this interpreter's
#    environment (scripts/_wheel_deps.py; a .pth names the folder), so nothing else of it is
#    importable: not an extra's package, not an editable labelvar. FULL=1, or a dependency
#    this environment lacks, installs them from the package index instead (minutes).
mkdir "$work/elsewhere"
git -C "$work/elsewhere" init -q 2>/dev/null && git -C "$work/elsewhere" -c user.name=x \
    -c user.email=x@x commit -q --allow-empty -m unrelated 2>/dev/null || true
"$py" -m venv "$work/elsewhere/venv"
vpy="$work/elsewhere/venv/bin/python"
if [[ "${FULL:-}" != "1" ]] && "$py" "$root/scripts/_wheel_deps.py" "${wheel[0]}" "$work/deps" \
        2>"$work/deps.log"; then
    step "installing the wheel alone into a fresh venv (dependencies linked from $("$py" -c \
'import sys; print(sys.prefix)'))"
    "$vpy" -m pip install --quiet --disable-pip-version-check --no-deps "${wheel[0]}" \
        >"$work/pip.log" 2>&1 || { tail -30 "$work/pip.log" >&2; fail "pip install of the wheel"; }
    echo "$work/deps" >"$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/_labelvar_deps.pth"
else
    [[ "${FULL:-}" == "1" ]] || sed 's/^/wheel_smoke: /' "$work/deps.log" >&2
    step "installing the wheel and its dependencies into a fresh venv (from the package index)"
    "$vpy" -m pip install --quiet --disable-pip-version-check "${wheel[0]}" >"$work/pip.log" 2>&1 \
        || { tail -30 "$work/pip.log" >&2; fail "pip install of the wheel"; }
fi
"$vpy" -m pip check --disable-pip-version-check >&2 || fail "the wheel's dependencies (pip check)"
(cd / && env -u PYTHONPATH "$vpy" -c \
    "import labelvar, sys; sys.exit(not labelvar.__file__.startswith(sys.prefix))") \
    || fail "labelvar is not imported from the installed wheel"
bin="$work/elsewhere/venv/bin"

# 4. every command, from outside the checkout, with a clean environment
cd "$work/elsewhere"
unset PYTHONPATH LABELVAR_CONFIG_DIR VIRTUAL_ENV
export MPLBACKEND=Agg PATH="$bin:$PATH"
umask 022
run() { step "labelvar $*"; "$bin/labelvar" "$@"; }

want="$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$root/pyproject.toml" | head -1)"
[[ "$(run --version)" == "labelvar $want" ]] || fail "labelvar --version is not $want"
[[ "$(run sweep --version)" == "labelvar $want" ]] || fail "labelvar sweep --version"
for cmd in expect tables collect stratify design; do
    "$bin/labelvar" "$cmd" --help >/dev/null || fail "labelvar $cmd --help"
done
run sweep --help >sweep_help.txt
grep -q "^experiment: figure1" sweep_help.txt || fail "sweep --help lists no experiments"
if grep -q "^design:" sweep_help.txt; then fail "sweep --help lists design as a group"; fi
completion="$(run -sc install=bash)"
[[ "$completion" == *"hydra_bash_completion labelvar" && "$completion" != *labelvar-sweep* ]] \
    || fail "the completion script does not name labelvar"

run expect --p-d 0.7,0.9 --m 0.1 --n-items 100 >/dev/null
run tables --table 1 --format csv >/dev/null
run sweep --quiet experiment=table1 grid.n_items=[10] grid.p_d=[0.6,0.9] replicates=100 \
    output.figure_formats=[png] hydra.run.dir=sweep_one
[[ -f sweep_one/results.csv && -f sweep_one/table1.png ]] || fail "sweep outputs"
"$vpy" - sweep_one/metadata.json <<'EOF' || fail "sweep provenance"
import json, sys
meta = json.load(open(sys.argv[1]))
assert meta["status"] == "complete", meta["status"]
assert meta["git"] == {"source": "installed", "revision": None, "dirty_src": None}, meta["git"]
assert meta["versions"]["labelvar"], meta["versions"]
EOF
run sweep --quiet -m grid.p_d=[0.6],[0.9] grid.m=[0.5] grid.n_items=[20] replicates=100 \
    output.plots=[] hydra.sweep.dir=multi
run collect multi
[[ -f multi/collected.csv ]] || fail "collect"

"$vpy" -c "from labelvar.io import synthetic_panel; \
synthetic_panel(400, seed=0).to_csv('synthetic_panel.csv', index=False, lineterminator='\n')"
if [[ -f "$root/examples/synthetic_panel.csv" ]]; then
    cmp -s synthetic_panel.csv "$root/examples/synthetic_panel.csv" \
        || fail "labelvar.io.synthetic_panel differs from examples/synthetic_panel.csv"
fi
run stratify synthetic_panel.csv --panel 'gt*' --systems weak,coin --humans 'human*' \
    --item item --metrics accuracy --n-resamples 0 --out stratified >/dev/null
[[ -f stratified/stratified.csv ]] || fail "stratify --out"

run design --config separability --replicates 100 --panel-sizes 1,3 --out design >/dev/null
[[ -f design/scenario.json ]] || fail "design --out"
bad="$(find sweep_one multi stratified design -type f ! -perm 644 | head -5)"
[[ -z "$bad" ]] || fail "files not mode 0644 under umask 022: $bad"

after="$(git -C "$root" status --porcelain --ignored 2>/dev/null || true)"
[[ "$before" == "$after" ]] || fail "the checkout changed: $(diff <(echo "$before") <(echo "$after"))"
step "OK: sdist and wheel built; every command ran from the installed wheel"
