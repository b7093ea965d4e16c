"""The alt-test on CheXpert: each leaderboard model as the judge against 8 radiologists."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import SHARED_DATA

from labelvar import alt_test
from labelvar.judge import References

D = SHARED_DATA / "chexpert_test"


def chexpert_votes() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Votes (item = study|finding, 8 radiologists) and the models' 0/1 decisions."""
    if not D.is_dir():
        pytest.skip(f"CheXpert test labels not found at {D}")
    files = sorted((D / "radiologists").glob("*/*.csv"))
    frames = []
    for f in files:
        wide = pd.read_csv(f).set_index("Study")
        long = wide.stack().rename("label").reset_index()
        long["item"] = long["Study"] + "|" + long["level_1"]
        long["rater"] = f.stem.replace("_gt", "")
        frames.append(long[["item", "rater", "label"]])
    votes = pd.concat(frames, ignore_index=True)
    systems = {}
    for f in sorted((D / "example_models" / "decisions" / "standard").glob("*.csv")):
        wide = pd.read_csv(f).set_index("Study")
        s = wide.stack()
        s.index = [f"{a}|{b}" for a, b in s.index]
        systems[f.stem.replace("_decisions", "")] = s
    return votes, pd.DataFrame(systems)


def test_plurality_follower_reaches_rho_one_on_chexpert():
    votes, systems = chexpert_votes()
    assert votes["rater"].nunique() == 8
    res = alt_test(votes, systems.iloc[:, :2], epsilon=0.2,
                   references=References(n_resamples=0))
    for r in res.values():
        refs = r.references.set_index("reference")
        assert r.n_humans == 8 and r.n_items == 2500  # 5 findings x 500 studies
        assert refs.loc["plurality", "advantage_probability"] == 1.0
        assert refs.loc["plurality", "winning_rate_mean"] == 1.0  # deterministic: exact
        assert refs.loc["plurality", "winning_rate_method"] == "exact"
        assert 0.5 < refs.loc["uniform", "advantage_probability"] < refs.loc[
            "exchangeable", "advantage_probability"] <= 1.0
        # rho per bin, pooled over comparisons, averages back to the pooled W_sys share
        bins = r.by_bin.dropna()
        pooled = (bins["system"] * bins["n_comparisons"]).sum() / bins["n_comparisons"].sum()
        assert pooled == pytest.approx((r.table["rho_system"] * r.table["n_items"]).sum()
                                       / r.table["n_items"].sum(), abs=1e-12)
