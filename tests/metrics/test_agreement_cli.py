"""``labelvar raters --agreement``: the printed and written rows equal ``agreement_table``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labelvar import cli
from labelvar._base._files import read_results
from labelvar.metrics import agreement_table


@pytest.fixture(scope="module")
def votes_file(tmp_path_factory):
    rng = np.random.default_rng(12)
    n = 150
    truth = rng.random(n) < 0.3
    rows = []
    for r, q in {"a": 0.9, "b": 0.8, "c": 0.75, "d": 0.7}.items():
        said = np.where(rng.random(n) < q, truth, ~truth).astype(int)
        rows.append(pd.DataFrame({"item": [f"i{k}" for k in range(n)], "rater": r,
                                  "label": said}))
    df = pd.concat(rows, ignore_index=True)
    path = tmp_path_factory.mktemp("votes") / "votes.csv"
    df.to_csv(path, index=False)
    return path, df


def test_raters_agreement_rows_equal_agreement_table(votes_file, capsys, tmp_path):
    path, df = votes_file
    out_dir = tmp_path / "rep"
    code = cli.main(["raters", str(path), "--model", "one_coin", "--n-resamples", "0",
                     "--agreement", "gwet_ac1,cohen_kappa", "--out", str(out_dir)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "### chance-corrected agreement among the raters" in out
    got = read_results(out_dir / "agreement.csv")
    want = agreement_table(df, ["gwet_ac1", "cohen_kappa"], seed=0)
    assert got["coefficient"].tolist() == want["coefficient"].tolist()
    for col in ("value", "se", "ci_low", "ci_high", "uniform", "plurality"):
        np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float),
                                   rtol=0, atol=1e-12, err_msg=col)


def test_raters_agreement_refuses_an_unknown_coefficient(votes_file, capsys):
    path, _ = votes_file
    code = cli.main(["raters", str(path), "--model", "one_coin", "--n-resamples", "0",
                     "--agreement", "ac1"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "--agreement must list coefficients among" in err and "Traceback" not in err
