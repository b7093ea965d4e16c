"""Rater-model inputs read right (issue 31): each case was silently wrong or unclear before."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from labelvar import cli
from labelvar._base._warnings import DataNoteWarning
from labelvar.design import panel_accuracy
from labelvar.votes._ceilings import coin_model, panel_ceilings
from labelvar.votes._raters import MAX_RESAMPLES, RaterModel, fit_raters


def _sim(seed=0, n=400, acc=(0.92,) * 5):
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 2, n)
    said = np.where(rng.random((n, len(acc))) < np.asarray(acc), z[:, None], 1 - z[:, None])
    votes = pd.DataFrame({"item": np.repeat(np.arange(n), len(acc)),
                          "rater": np.tile([f"r{j}" for j in range(len(acc))], n),
                          "label": said.ravel()})
    return votes, z, said


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stray_label_is_refused_naming_it_and_the_fix():
    votes, _, _ = _sim()  # 2,000 binary votes
    stray = votes.copy()
    stray.loc[7, "label"] = 2
    with pytest.raises(ValueError, match=r"^votes: label 2 occurs in 1 of 2,000 votes .* stray "
                                         r"value among \[0, 1\]; correct or drop those votes .*"
                                         r"declare labels=\[0, 1, 2\] if it is a label"):
        fit_raters(stray, n_resamples=0)
    with pytest.raises(ValueError, match=r"^labels: the votes use 2 \(1 of 2,000 votes\), "
                                         r"outside the declared labels \[0, 1\]"):
        fit_raters(stray, labels=[0, 1], n_resamples=0)
    # declared, the one vote of 2 is an error: class 2 is no item's plurality, so it is not
    # identified and gets zero weight (Dawid-Skene gave it 105 of the 400 items, 0.92 -> 0.67)
    for model in ("dawid_skene", "dawid_skene_difficulty", "one_coin"):
        with pytest.warns(DataNoteWarning, match=r"the label\(s\) 2 are not identified"):
            kept = fit_raters(stray, model=model, labels=[0, 1, 2], n_resamples=0)
        assert kept.model.labels == (0, 1, 2) and kept.unidentified == (2,)
        assert (kept.skills["accuracy"] > 0.88).all() and (kept.truth[2] == 0).all()


def test_a_declared_unused_label_gets_zero_weight():
    votes, _, _ = _sim()
    plain = fit_raters(votes, model="one_coin", n_resamples=0)
    with pytest.warns(DataNoteWarning, match=r"the label\(s\) 2 are not identified"):
        wide = fit_raters(votes, model="one_coin", labels=[0, 1, 2], n_resamples=0)
    assert wide.unidentified == (2,) and wide.model.labels == (0, 1, 2)
    np.testing.assert_allclose(wide.skills["accuracy"], plain.skills["accuracy"], rtol=1e-12)
    assert (wide.skills["accuracy"] > 0.88).all()  # was 0.60 with mass spread onto label 2
    assert np.exp(wide.model.log_prior)[2] == 0 and (wide.truth[2] == 0).all()


@pytest.mark.parametrize("bad, msg", [
    (np.inf, "^votes: label inf in 1 of 2,000 votes .* is no finite number"),
    (0.5, "^votes: label 0.5 occurs in 1 of 2,000 votes .* stray value among \\[0, 1\\]"),
    ("x", "^votes: the labels of the table mix number .* and text: 'x' in 1 of 2,000 votes"),
])
def test_odd_labels_among_binary_votes_are_refused(bad, msg):
    votes, _, _ = _sim()
    votes = votes.astype({"label": object})
    votes.loc[3, "label"] = bad
    with pytest.raises(ValueError, match=msg) as e:
        fit_raters(votes, n_resamples=0)
    assert "\n" not in str(e.value)


def test_raters_who_all_vote_one_label_leave_the_other_class_unidentified():
    votes = pd.DataFrame({"item": np.repeat(np.arange(50), 3), "rater": list("abc") * 50,
                          "label": 0})
    with pytest.warns(DataNoteWarning, match="not identified"):
        fit = fit_raters(votes, labels=[0, 1], n_resamples=0)
    sk = fit.skills
    assert fit.unidentified == (1,)
    assert sk["sensitivity"].isna().all()  # was 0.5, as if known
    assert (sk["specificity"] == 1).all() and (sk["accuracy"] == 1).all()


def test_gold_items_anchor_the_orientation():
    # one 0.9-accurate rater and four who are mostly wrong: from the vote shares EM lands
    # on the label-switched optimum (the good rater at 0.11); the 40 gold items reject it
    votes, z, said = _sim(0, n=4000, acc=(0.9, 0.3, 0.3, 0.3, 0.3))
    gold = {i: int(z[i]) for i in range(40)}
    hits = (said == z[:, None]).mean(axis=0)
    for model in ("dawid_skene", "one_coin", "dawid_skene_difficulty"):
        acc = fit_raters(votes, model=model, gold=gold, n_resamples=0).skills["accuracy"]
        assert np.abs(acc - hits).max() < 0.04, (model, acc.round(3).tolist())


def test_gold_given_twice_with_different_labels_is_refused():
    votes, _, _ = _sim()
    with pytest.raises(ValueError, match=r"^gold: item 5 is given twice with different labels "
                                         r"\(0 and 1\)"):
        fit_raters(votes, gold=[(5, 0), (5, 1)], n_resamples=0)
    ok = fit_raters(votes, model="dawid_skene", gold=[(5, 1), (5, 1)], n_resamples=0)
    assert ok.truth.loc["5", 1] == 1.0


def test_cli_ids_as_written_float_labels_and_gold_conflicts(tmp_path, capsys):
    votes, _, _ = _sim(1, n=120)
    votes["rater"] = votes["rater"].map({f"r{j}": f"000{j + 1}" for j in range(5)})
    path = tmp_path / "votes.csv"
    votes.to_csv(path, index=False)
    code, out, err = run(["raters", str(path), "--model", "dawid_skene", "--n-resamples", "0",
                          "--groups", "0001,0002:0003,0004", "--out", str(tmp_path / "a")],
                         capsys)
    assert code == 0, err
    skills = pd.read_csv(tmp_path / "a" / "skills.csv", dtype={"rater": str})
    assert skills["rater"].tolist() == ["0001", "0002", "0003", "0004", "0005"]
    kx = pd.read_csv(tmp_path / "a" / "kappa_x.csv")
    # labels written 1.0 / 0.0: the same kappa_x, over the same 120 items (was 0 items)
    floats = tmp_path / "floats.csv"
    votes.assign(label=votes.label.map({0: "0.0", 1: "1.0"})).to_csv(floats, index=False)
    code, out, err = run(["raters", str(floats), "--model", "dawid_skene", "--n-resamples", "0",
                          "--groups", "0001,0002:0003,0004", "--out", str(tmp_path / "b")],
                         capsys)
    assert code == 0, err
    kf = pd.read_csv(tmp_path / "b" / "kappa_x.csv")
    assert kf["n_items"][0] == kx["n_items"][0] == 120
    assert kf["kappa_x"][0] == pytest.approx(kx["kappa_x"][0], abs=1e-12)
    gold = tmp_path / "gold.csv"
    pd.DataFrame({"item": [3, 3], "label": [0, 1]}).to_csv(gold, index=False)
    code, out, err = run(["raters", str(path), "--n-resamples", "0", "--gold", str(gold)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("labelvar: error: --gold: item '3' is given twice with different")


def test_stated_models_and_panels_refuse_strings_and_repeats():
    m = RaterModel.from_skill({"accuracy": 0.8})
    with pytest.raises(ValueError, match=r"^raters must be a list of rater ids"):
        panel_accuracy(m, "skill")
    assert panel_accuracy(m, ["skill"] * 3)["accuracy"] == pytest.approx(0.896, abs=1e-12)
    with pytest.raises(ValueError, match=r"^raters: 'a' is named twice"):
        RaterModel.from_skill([{"accuracy": 0.8}, {"accuracy": 0.7}], raters=["a", "a"])


def test_a_perfect_coin_panel_has_ceilings_not_nan():
    t = panel_ceilings(coin_model(1.0), 3, n_items=20).table
    assert t[["p_d", "p_bin", "expected", "ci_low", "ci_high"]].notna().all().all()
    assert (t["expected"] == 1.0).all() and (t["p_bin"] == 1.0).all()


def test_resample_sizes_are_refused_before_work(capsys):
    votes, _, _ = _sim()
    with pytest.raises(ValueError, match=f"^n_resamples must be <= {MAX_RESAMPLES}"):
        fit_raters(votes, n_resamples=1e9)
    big = pd.concat([votes.assign(item=votes.item + k * 400) for k in range(60)])  # 120,000
    with pytest.raises(ValueError, match=r"^n_resamples: 5,000 bootstrap refits of 120,000 votes"):
        fit_raters(big, n_resamples=5000)
    code, _, err = run(["raters", "no-such-file.csv", "--n-resamples", "1000000000"], capsys)
    assert code == 2 and err.strip() == ("labelvar: error: --n-resamples must be <= "
                                         f"{MAX_RESAMPLES}, got 1000000000")
    code, _, err = run(["raters", "no-such-file.csv", "--n-boot", "1e9"], capsys)
    assert code == 2 and "--n-boot is now --n-resamples" in err
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_raters(votes, n_resamples=0)  # plain data: no note
