"""The notebook tutorial (examples/synthetic.ipynb) runs top to bottom and shows what it says.

It is executed in a fresh kernel (nbclient + ipykernel, the ``test`` extra) in an empty
directory. Its assertions: every printed output equals the one committed in the notebook
(as the Markdown tutorials' text blocks do), the printed numbers are the ones
:func:`labelvar.stratify` gives in this process, the result objects display as HTML
tables (``_repr_html_``), and no cell writes to stderr (no warning on import).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labelvar.evaluation import Intervals

nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install 'labelvar[test]')")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install 'labelvar[test]')")
pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install 'labelvar[test]')")

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "synthetic.ipynb"


def _streams(cell) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    committed = nbformat.read(NOTEBOOK, as_version=4)
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(tmp_path_factory.mktemp("nb"))}}).execute()
    return committed, nb


def _code(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def test_prints_what_the_committed_notebook_shows(executed):
    committed, nb = executed
    for i, (old, new) in enumerate(zip(_code(committed), _code(nb))):
        assert _streams(new) == _streams(old), f"code cell {i}: {new.source.splitlines()[0]}"
        assert not [o for o in new.outputs if o.output_type == "stream" and o.name == "stderr"], \
            f"code cell {i} wrote to stderr: {new.source.splitlines()[0]}"
        assert not [o for o in new.outputs if o.output_type == "error"], f"code cell {i} failed"


def test_numbers_are_what_stratify_computes(executed):
    import labelvar
    from labelvar.io import synthetic_panel

    _, nb = executed
    df = synthetic_panel(400, seed=0).set_index("item")
    r = labelvar.stratify(df.filter(like="gt"),
                          df[["strong", "weak", "coin", "human1", "human2"]],
                          humans=["human1", "human2"], seed=0, intervals=Intervals(n_resamples=0))
    t = r.table
    acc = t[t.metric == "accuracy"]
    printed = next(_streams(c) for c in _code(nb) if "paper_table" in c.source)
    rows = {line.split()[0]: line.split()[1:] for line in printed.splitlines()[1:]}
    for stratum, label in (("0.60", "0.60"), ("1.00", "1.00"), ("all", "all")):
        coin = acc[(acc.system == "coin") & (acc.stratum == stratum)].iloc[0]
        h = acc[(acc.role == "H") & (acc.stratum == stratum)].iloc[0]
        assert rows[label] == [str(coin.S), f"{coin.score:.3f}", f"{h.score:.3f}", f"{coin.expected:.3f}"]
    e_all = acc[(acc.system == "coin") & (acc.stratum == "all")].expected.item()
    assert f"E(accuracy) = {e_all:.3f}" in "".join(_streams(c) for c in _code(nb))
    bt = labelvar.bin_tests(r, metric="accuracy", value="delta_human")
    assert f"Welch p = {bt.welch_p:.2f}, Levene p = {bt.levene_p:.2f}" in _streams(_code(nb)[-1])


def test_results_display_as_html_tables(executed):
    _, nb = executed
    shown = {c.source.splitlines()[-1]: o.data for c in _code(nb) for o in c.outputs
             if o.output_type == "execute_result"}
    assert set(shown) == {"r", "bt"}
    page = shown["r"]["text/html"]
    assert page.startswith("<div><strong>StratifiedResult</strong>")
    for system in ("strong", "weak", "coin"):
        assert f"paper_table(&#x27;{system}&#x27;)" in page
    assert len(re.findall(r"<table", page)) == 4  # the fields and one paper table per system
    assert shown["r"]["text/plain"].startswith("StratifiedResult(tasks=['synthetic'], systems=['strong'")
    assert "<th>welch_p</th>" in shown["bt"]["text/html"]
