"""The docs build's figures (docs/_figures.py over scripts/render_figures.py): each is
drawn from its data or replaced by a placeholder that says what is missing, and the
real-data figures draw the numbers the paper prints."""

from __future__ import annotations

import importlib.util
import io
import logging
from pathlib import Path

import numpy as np
import pytest
from tests.conftest import shared_data

REPO = Path(__file__).resolve().parents[2]


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rf():
    return _module("render_figures", REPO / "scripts" / "render_figures.py")


def _texts(fig) -> str:
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_missing_data_gives_a_placeholder_naming_the_folder(rf, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(rf, "DATA", tmp_path)
    fig, missing = rf.draw("figure7_chaosnli")
    assert missing == [tmp_path / "chaosnli/chaosNLI_v1.0", tmp_path / "chaosnli/predictions"]
    assert f"{tmp_path / 'chaosnli/chaosNLI_v1.0'}" in _texts(fig)
    assert "figure7_chaosnli: not drawn, its data is missing" in _texts(fig)
    assert rf.missing_data("design_sawtooth") == []  # simulated figures need no data
    out = tmp_path / "out"
    assert rf.main(["--out", str(out), "--only", "figure8_dialsummeval"]) == 1
    assert list(out.iterdir()) == []  # no placeholder is written as if it were the figure
    assert "figure8_dialsummeval: not drawn, data missing" in capsys.readouterr().err


def test_every_figure_names_its_data(rf):
    assert set(rf.NEEDS) <= set(rf.FIGURES)
    for name in ("figure2_chexpert", "figure3_chexpert", "figure4_chexpert",
                 "figure7_chaosnli", "figure8_dialsummeval", "item_models"):
        assert rf.NEEDS[name]


def _config(tmp_path):
    from mkdocs.config.defaults import MkDocsConfig

    cfg = MkDocsConfig()
    cfg.load_dict({"site_name": "t", "docs_dir": str(tmp_path / "docs"),
                   "site_dir": str(tmp_path / "site")})
    (tmp_path / "docs").mkdir()
    errors, _ = cfg.validate()
    assert not errors
    cfg.plugins._current_plugin = "hooks"  # set by mkdocs while it runs a hook's event
    return cfg


def test_hook_adds_drawn_figures_replacing_committed_ones(rf, monkeypatch, tmp_path, caplog):
    pytest.importorskip("mkdocs", reason="the docs hook needs `pip install labelvar[docs]`")
    from mkdocs.structure.files import File, Files

    hook = _module("labelvar_docs_figures", REPO / "docs" / "_figures.py")
    monkeypatch.setattr(rf, "FIGURES", {"design_sawtooth": rf.FIGURES["design_sawtooth"],
                                        "figure2_chexpert": rf.FIGURES["figure2_chexpert"]})
    monkeypatch.setattr(rf, "DATA", tmp_path / "no-data")
    monkeypatch.setattr(hook, "_render_figures", lambda: rf)
    monkeypatch.setenv("LABELVAR_FIGURE_CACHE", str(tmp_path / "kept"))
    cfg = _config(tmp_path)
    docs = Path(cfg["docs_dir"])
    (docs / "design_sawtooth.png").write_bytes(b"stale committed copy")
    (docs / "_figures.py").write_text("")
    files = Files([File(n, str(docs), cfg["site_dir"], False)
                   for n in ("design_sawtooth.png", "_figures.py")])
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.labelvar.figures"):
        files = hook.on_files(files, cfg)
    assert sorted(f.src_uri for f in files) == ["design_sawtooth.png", "figure2_chexpert.png"]
    drawn = files.get_file_from_path("design_sawtooth.png").content_bytes
    assert drawn.startswith(b"\x89PNG")
    import matplotlib.image

    height, width, _ = matplotlib.image.imread(io.BytesIO(drawn)).shape
    fig = rf.FIGURES["design_sawtooth"]()
    assert (width, height) == tuple(round(v * rf.DPI) for v in fig.get_size_inches())
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "figure figure2_chexpert.png: its data is missing" in warnings[0]
    assert str(tmp_path / "no-data" / "chexpert_test") in warnings[0]
    assert any("2 figures in" in r.getMessage() for r in caplog.records)
    # a rebuild in the same process reuses what nothing has changed since (mkdocs serve)
    monkeypatch.setitem(rf.FIGURES, "design_sawtooth", lambda: pytest.fail("drawn again"))
    again = hook.on_files(Files([]), cfg)
    assert again.get_file_from_path("design_sawtooth.png").content_bytes == drawn
    # ... and so does the next build (a new process): the drawn figure was kept on disk
    # under its key, the placeholder was not
    assert [p.name.split("-")[0] for p in (tmp_path / "kept").iterdir()] == ["design_sawtooth"]
    hook._DRAWN.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.labelvar.figures"):
        again = hook.on_files(Files([]), cfg)
    assert again.get_file_from_path("design_sawtooth.png").content_bytes == drawn
    assert any("design_sawtooth.png: unchanged" in r.getMessage() for r in caplog.records)
    # a change to what it is drawn from (code, data) changes the key: drawn again
    key = hook._fingerprint(rf, "design_sawtooth")
    monkeypatch.setattr(rf, "DPI", rf.DPI + 1)
    assert hook._fingerprint(rf, "design_sawtooth") != key
    monkeypatch.setattr(hook, "_fingerprint", lambda rf, name: ("changed",))
    with pytest.raises(pytest.fail.Exception, match="drawn again"):
        hook.on_files(Files([]), cfg)


@pytest.fixture(scope="module")
def chexpert(rf):
    shared_data("chexpert_test")
    return rf._chexpert()


def test_figure2_draws_table3s_numbers(rf, chexpert):
    """Cardiomegaly's panel: the paper's Table 3 S, m, F1 of H and E in every bin."""
    shared_data("chexpert_test")
    fig = rf._figure2_chexpert()
    (ax,) = [a for a in fig.axes if a.get_title() == "Cardiomegaly"]
    ticks = [t.get_text().split("\n") for t in ax.get_xticklabels()]
    assert ticks == [["0.60", "S = 142", "m = 0.507"], ["0.80", "S = 196", "m = 0.372"],
                     ["1.00", "S = 162", "m = 0.037"]]
    (h,) = [c for c in ax.containers if c.get_label() == "H"]
    np.testing.assert_allclose(h.lines[0].get_ydata(), [0.64, 0.71, 0.70], atol=0.005)
    (e,) = [ln for ln in ax.get_lines() if ln.get_label() == "E (expected)"]
    np.testing.assert_allclose(e.get_ydata(), [0.60, 0.75, 0.71], atol=0.005)
    systems = {c.get_label() for c in ax.containers} - {h.get_label()}
    assert systems == set(rf.PAIR)
    for s in rf.PAIR:  # the connectors are H - system, the table's delta_human
        (coll,) = [c for c in ax.collections if c.get_gid() == f"connector:{s}"]
        rows = chexpert[(chexpert.task == "Cardiomegaly") & (chexpert.metric == "f1")
                        & (chexpert.system == s) & (chexpert.stratum != "all")]
        np.testing.assert_allclose([sg[0, 1] - sg[1, 1] for sg in coll.get_segments()],
                                   rows.sort_values("agreement").delta_human)


def test_figure4_pair_reverses_between_the_extreme_bins(rf, chexpert):
    fig = rf._figure4_chexpert()
    ax = fig.axes[0]
    f1 = chexpert[(chexpert.metric == "f1")]
    wide = f1.pivot_table(index=["task", "stratum"], columns="system", values="score")
    d = (wide[rf.PAIR[0]] - wide[rf.PAIR[1]]).unstack("stratum")
    for stratum in ("0.60", "0.80", "1.00", "all"):
        (pts,) = [ln for ln in ax.get_lines() if ln.get_gid() == f"points:{stratum}"]
        np.testing.assert_allclose(np.sort(pts.get_ydata()), np.sort(d[stratum]))
    assert d["0.60"].median() < 0 < d["1.00"].median()  # what the guide's caption says
    assert abs(d["all"].mean()) < 0.01


def test_figure3_points_and_tests_are_the_tables(rf, chexpert):
    from labelvar import bin_tests
    from labelvar.evaluation._inference import stars

    fig = rf._figure3_chexpert()
    ax = fig.axes[0]
    sys_f1 = chexpert[(chexpert.metric == "f1") & (chexpert.role == "system")]
    for stratum in ("0.60", "1.00"):
        (pts,) = [ln for ln in ax.get_lines() if ln.get_gid() == f"points:{stratum}"]
        np.testing.assert_allclose(np.sort(pts.get_ydata()),
                                   np.sort(sys_f1[sys_f1.stratum == stratum].delta_human))
    row = bin_tests(chexpert, metric="f1").table.iloc[0]
    labels = {t.get_gid(): t.get_text() for t in ax.texts}
    assert labels["label:welch"] == f"Welch {stars(row.welch_p)}"
    assert labels["label:levene"] == f"Levene {stars(row.levene_p)}"


def test_figure7_and_8_draw_their_tables(rf):
    shared_data("chaosnli/predictions")
    shared_data("dialsummeval")
    t = rf._chaosnli()
    fig = rf._figure7_chaosnli()
    ax = fig.axes[0]
    scores = t[(t.role == "system") & (t.metric == "accuracy")]
    assert scores.system.nunique() == 4 and scores.task.nunique() == 2
    (pts,) = [ln for ln in ax.get_lines() if ln.get_gid() == "points:[0.90, 1.00]"]
    np.testing.assert_allclose(np.sort(pts.get_ydata()),
                               np.sort(scores[scores.stratum == "[0.90, 1.00]"].score))
    # RoBERTa and BERT on SNLI, RoBERTa only on MNLI: 6 runs, said so
    assert fig.get_suptitle().splitlines()[1] == "6 (system, task) pairs of 4 systems × 2 tasks"
    fig8 = rf._figure8_dialsummeval()
    ticks = [x.get_text().split("\n")[0] for x in fig8.axes[0].get_xticklabels()]
    assert ticks == ["0.33", "0.67", "1.00", "all"]


@pytest.mark.slow
def test_committed_pngs_are_what_their_generator_draws(rf):
    """The PNGs kept in docs/ (the README's, seen on the repository's front page) are the
    figures render_figures.py draws now: re-drawn and compared pixel by pixel."""
    import matplotlib.image
    from matplotlib.testing.compare import calculate_rms

    committed = sorted((REPO / "docs").glob("*.png"))
    assert {p.stem for p in committed} <= set(rf.FIGURES)  # no PNG without a generator
    for path in committed:
        if rf.missing_data(path.stem):
            continue
        fig = rf.FIGURES[path.stem]()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=rf.DPI)
        now = matplotlib.image.imread(io.BytesIO(buf.getvalue()))
        old = matplotlib.image.imread(path)
        assert now.shape == old.shape, (path.name, "re-render: python scripts/render_figures.py")
        rms = calculate_rms((old * 255).astype(float), (now * 255).astype(float))
        assert rms < 2.0, (path.name, rms, "re-render: python scripts/render_figures.py")


@pytest.mark.parametrize("name", ["figure2_chexpert", "figure3_chexpert", "figure4_chexpert",
                                  "figure7_chaosnli", "figure8_dialsummeval"])
def test_real_data_figures_are_legible(rf, name, drawn):
    """Labelled, titled, a legend, no overlapping tick labels (drawn) and no two texts of
    a panel (stars, test labels, notes) on top of each other."""
    for folder in rf.NEEDS[name]:
        shared_data(folder)
    fig = drawn(rf.FIGURES[name]())
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]
        assert not [(i, j) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
                    if boxes[i].overlaps(boxes[j])], name
        if ax.axison and ax.get_ylabel():
            label = ax.yaxis.label.get_window_extent(renderer)
            assert not label.overlaps(fig._suptitle.get_window_extent(renderer)), name
