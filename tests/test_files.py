import os
import stat

import numpy as np
import pandas as pd
import pytest

from labelvar._base._files import atomic_write, read_results, write_results


def test_atomic_write_permissions_and_no_leftovers(tmp_path):
    old = os.umask(0o022)
    try:
        p = atomic_write(tmp_path / "sub" / "a.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == 0o644
    assert sorted(x.name for x in p.parent.iterdir()) == ["a.txt"]


def test_failed_write_keeps_the_old_file(tmp_path):
    p = atomic_write(tmp_path / "t.csv", "old")

    with pytest.raises(TypeError):
        atomic_write(p, 123)  # not bytes/str: nothing replaced
    assert p.read_text() == "old"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["t.csv"]


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_results_round_trip(tmp_path, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow", reason="pyarrow (parquet extra) not installed")
    t = pd.DataFrame({"stratum": ["all", "0.60", ""], "labeller": ["a", "b", "c"],
                      "mean": [0.1, 1 / 3, np.nan], "n": [1, 2, 3]})
    back = read_results(write_results(t, tmp_path / f"t{suffix}"))
    pd.testing.assert_frame_equal(back, t)


def test_writing_over_a_directory_names_it_and_leaves_no_temporary(tmp_path, capsys):
    from labelvar import cli

    target = tmp_path / "out.csv"
    target.mkdir()
    with pytest.raises(IsADirectoryError) as info:
        atomic_write(target, b"x")
    assert info.value.filename == str(target)
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
    # `labelvar collect DIR --out <a directory named *.csv>`: the message names it
    job = tmp_path / "0_a"
    write_results(pd.DataFrame({"mean": [0.5]}), job / "results.csv")
    assert cli.main(["collect", str(job), "--out", str(target)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"labelvar: error: --out must be a file ending in .csv or .parquet, got the directory {target}")
