#!/usr/bin/env bash
# The main job: set up .venv (created if missing), install labelvar, print the paper's
# Tables 1 and 2 as computed by labelvar, and reproduce the paper's Figure 1 (section 3:
# a p_d-following expert vs a random labeller, accuracy and F1 against p_d for several
# positive-class ratios m) at the default settings into outputs/figure1/.
#   scripts/reproduce.sh                     # default settings (src/labelvar/configs/experiment/figure1.yaml)
#   scripts/reproduce.sh replicates=2000     # extra arguments are Hydra overrides
# A rerun reuses the complete chunk files in outputs/figure1/chunks (resume=false recomputes).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/_venv.sh
ensure_venv ""
labelvar tables
echo
out=outputs/figure1
labelvar sweep experiment=figure1 "hydra.run.dir=$out" "$@"
echo
echo "Figure 1: $out/figure1.png (and $out/figure1.pdf)"
echo "table:    $out/results.csv (tidy: one row per p_d x m x labeller x metric)"
echo "run info: $out/metadata.json (seed, versions, git revision), $out/config.yaml"
