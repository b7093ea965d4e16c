"""Write examples/synthetic_panel.csv, the stratified guide's demo, from labelvar.io.synthetic_panel.

    .venv/bin/python scripts/make_synthetic_panel.py [--seed 0] [--n-items 400] [--out PATH]

The same seed always gives the same file (tests/test_io.py checks the shipped file).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from labelvar.io import synthetic_panel

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--n-items", type=int, default=400)
    p.add_argument("--out", default=str(ROOT / "examples" / "synthetic_panel.csv"))
    args = p.parse_args(argv)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    synthetic_panel(args.n_items, seed=args.seed).to_csv(tmp, index=False, lineterminator="\n")
    tmp.replace(out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
