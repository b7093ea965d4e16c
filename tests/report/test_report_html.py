"""``report.html`` of every report type: self-contained, and checked in a real browser.

The page tests (no browser) read the HTML: nothing fetched, the headline's numbers are
the CSV cells they name, the drill-down lists the items a hand count finds. The browser
test opens each report type in headless Chromium (``tests/report/browser.py``, the
DevTools protocol over a pipe): no network request, no console error, every figure
rendered with a non-zero size, the headline numbers equal to the CSVs'. It skips, saying
why, where no Chromium is installed (``.ci/run`` installs Debian's). With
``LABELVAR_REPORT_SCREENSHOTS=DIR`` the screenshots (one per report type) are also
written to DIR (the docs' pictures: ``docs/report_*.png``).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests import eval_log_files as logs

from labelvar.cli._main import main

HERE = Path(__file__).resolve().parent
KINDS = ("stratify", "judge", "judge_plan", "raters", "design", "readers", "standalone")


def _panel(path, items):
    votes = ["yyn", "nnn", "nny", "yyy", "nnn", "nyn"]
    rows = [{"id": i, **{f"h{k}": "yes" if c == "y" else "no"
                         for k, c in enumerate(votes[n % 6], 1)}} for n, i in enumerate(items)]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _build(kind: str, tmp: Path) -> Path:
    """One report directory of ``kind``, written by the command line."""
    out = tmp / kind
    if kind == "stratify":
        p = logs.write_lmeval_generate(tmp / "samples_claims_2025-05-01T10-00-00.jsonl")
        panel = _panel(tmp / "panel.csv", [str(d) for d in logs.LMEVAL_GEN])
        argv = ["stratify", str(panel), "--panel", "h*", "--item", "id", "--predictions",
                f"lm=lmeval:{p}", "--metrics", "accuracy", "--n-resamples", "50", "--pos-label",
                "yes", "--min-bin-size", "1"]
    elif kind == "judge":
        p = logs.write_inspect_eval(tmp / "claims.eval")
        rng = np.random.default_rng(3)
        rows = [(i, f"h{k}", lab) for i in logs.INSPECT_TARGET for k in range(1, 5)
                for lab in [logs.INSPECT_TARGET[i] if rng.random() < 0.8 else "maybe"]]
        votes = tmp / "votes.csv"
        pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(votes, index=False)
        argv = ["judge", str(votes), "--system", f"inspect:{p}", "--n-resamples", "20",
                "--min-items-per-human", "2"]
    elif kind == "judge_plan":
        argv = ["judge", "--plan", "--theta", "0.9,0.7", "--skill", "0.85", "--per-item", "3,5"]
    elif kind == "raters":
        rng = np.random.default_rng(12)
        truth = rng.random(80) < 0.35
        rows = [pd.DataFrame({"item": [f"i{k}" for k in range(80)], "rater": r,
                              "label": np.where(rng.random(80) < q, truth, ~truth).astype(int)})
                for r, q in {"a": 0.9, "b": 0.85, "c": 0.8, "d": 0.75}.items()]
        votes = tmp / "rater_votes.csv"
        pd.concat(rows).to_csv(votes, index=False)
        argv = ["raters", str(votes), "--n-resamples", "20"]
    elif kind == "design":
        argv = ["design", "--config", "separability", "--replicates", "0", "--panel-sizes",
                "3,5"]
    else:  # readers: two modalities (MRMC), or one with an AI (standalone)
        rng = np.random.default_rng(0)
        y = (np.arange(40) % 3 == 0).astype(int)
        rows = [(f"r{j}", f"{k:04d}", m, y[k], round(float(y[k] * (1 + 0.4 * m) + rng.normal()), 2))
                for m in (1, 2) for j in range(4) for k in range(40)]
        ratings = tmp / f"ratings_{kind}.csv"
        d = pd.DataFrame(rows, columns=["reader", "case", "modality", "truth", "rating"])
        if kind == "standalone":
            d = d[d.modality == 1].drop(columns="modality")
        d.to_csv(ratings, index=False)
        argv = ["readers", str(ratings), "--truth", "truth"] + (
            ["--ai", "r3"] if kind == "standalone" else [])
    assert main([*argv, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("reports")
    return {k: _build(k, tmp) for k in KINDS}


def _numbers(html: str) -> list[tuple[str, str, str]]:
    """(exact value, source, shown text) of each number quoted in the headline."""
    heads = "".join(re.findall(r'<p class="headline">(.*?)</p>', html, re.S))
    return re.findall(r'data-value="([^"]+)" data-source="([^"]+)">([^<]*)<', heads)


def _cell(out: Path, source: str) -> float:
    name, row, col = source.split(":")
    return float(pd.read_csv(out / name).iloc[int(row)][col])


# --------------------------------------------------------------------------- the page
@pytest.mark.parametrize("kind", KINDS)
def test_every_report_writes_one_self_contained_page(reports, kind):
    out = reports[kind]
    html = (out / "report.html").read_text()
    assert "<script" not in html.lower() and "@import" not in html
    assert not re.search(r'(src|href)="(?!#|data:)', html)  # nothing fetched, links in-page
    # every figure of the directory, embedded (the raters report draws none)
    assert html.count("<img") == len(list(out.glob("*.png"))) >= (kind != "raters")
    nums = _numbers(html)
    assert nums, "the headline quotes no number"
    for value, source, shown in nums:  # each quoted number is the CSV cell it names
        assert float(value) == pytest.approx(_cell(out, source), rel=1e-12, abs=1e-15)
        assert shown == f"{float(value):.4g}"
    from labelvar import __version__
    assert f"<dd>{__version__}</dd>" in html and "What was read" in html


def test_stratify_page_anchors_bins_and_drills_into_disagreements(reports):
    out = reports["stratify"]
    html = (out / "report.html").read_text()
    for b in ("0.67", "1.00", "all"):
        assert f'id="t-stratified.csv-{b}"' in html
    # majority yes no no yes no no; lm answers yes yes no yes no yes: items 1 and 5 differ
    drill = pd.read_csv(out / "disagreements.csv", dtype=str)
    assert drill[["item", "bin", "answer", "majority"]].values.tolist() == [
        ["1", "1.00", "yes", "no"], ["5", "0.67", "yes", "no"]]
    assert "h1: no, h2: yes, h3: no" in html
    read = html.split('id="s-read"')[1].split("</section>")[0]  # what was read: files, exclusions
    assert "lm=lmeval:" in read and "samples_claims_2025-05-01T10-00-00.jsonl" in read
    assert "no_votes: 0, one_vote: 0, tied: 0, no_prediction: 0" in read
    head = re.search(r'<p class="headline">(.*?)</p>', html, re.S).group(1)
    assert head.startswith("lm&#x27;s accuracy over all 6 items")


def test_judge_headline_names_its_references(reports):
    out = reports["judge"]
    html = (out / "report.html").read_text()
    head = re.sub(r"<[^>]+>", "", re.search(r'<p class="headline">(.*?)</p>', html, re.S).group(1))
    head = head.replace("&#x27;", "'")
    refs = pd.read_csv(out / "references.csv").set_index("reference")
    rho = refs["advantage_probability"]
    assert (f"the judge's ρ {rho['system']:.4g}; a coin gets {rho['uniform']:.4g} and an "
            f"exchangeable annotator {rho['exchangeable']:.4g} on these items") in head
    # the drill-down: the epochs' modal answer against the humans' majority, by hand
    votes = pd.read_csv(out.parent / "votes.csv")
    modal = {i: max(set(a), key=lambda x: (a.count(x), -a.index(x)))
             for i, a in logs.INSPECT_ANSWERS.items()}
    want = []
    for i, g in votes.groupby("item"):
        counts = g["label"].value_counts()
        top = set(counts[counts == counts.max()].index)
        if modal[i] not in top:
            want.append(i)
    got = pd.read_csv(out / "disagreements.csv")
    assert sorted(got["item"]) == sorted(want) and want


def test_result_to_html(tmp_path):
    from labelvar import alt_test, stratify
    from labelvar.evaluation import Intervals
    from labelvar.judge import References

    res = stratify([[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, 1]], {"ai": [1, 0, 0, 1]},
                   intervals=Intervals(n_resamples=0, min_bin_size=1))
    page = res.to_html(tmp_path / "s" / "page.html").read_text()
    nums = _numbers(page)
    overall = res.table[(res.table["system"] == "ai") & (res.table["stratum"] == "all")]
    want = overall[overall["metric"] == res.table["metric"].iloc[0]]["score"].iloc[0]
    assert float(nums[0][0]) == pytest.approx(want) and nums[0][1].startswith("stratified.csv:")
    votes = pd.DataFrame({"item": [i for i in range(30) for _ in range(3)],
                          "rater": ["a", "b", "c"] * 30, "label": [0, 0, 1] * 30})
    r = alt_test(votes, pd.Series([0] * 30, name="judge"), references=References(n_resamples=0))
    page = r.to_html(tmp_path / "j.html").read_text()
    assert "judge passes the alt-test: the judge&#x27;s ρ " in page
    with pytest.raises(ValueError, match="path: .* is a directory"):
        r.to_html(tmp_path)


# --------------------------------------------------------------------------- the browser
@pytest.fixture(scope="module")
def browser():
    import sys

    sys.path.insert(0, str(HERE))
    from browser import Browser, find_browser

    exe = find_browser()
    if exe is None:
        pytest.skip("no Chromium found (chromium, chromium-browser, google-chrome or "
                    "LABELVAR_CHROMIUM): the browser test needs one; .ci/run installs "
                    "Debian's chromium")
    b = Browser(exe)
    yield b
    b.close()


@pytest.mark.parametrize("kind", KINDS)
def test_report_in_headless_chromium(reports, browser, kind, tmp_path):
    out = reports[kind]
    url = (out / "report.html").as_uri()
    browser.open(url)
    off = [u for u in browser.requests() if not u.startswith(("file:", "data:", "about:"))]
    assert off == [], f"network requests: {off}"
    assert browser.errors() == []
    figs = browser.evaluate("[...document.images].map(i => [i.complete, i.naturalWidth, "
                            "i.naturalHeight, i.getBoundingClientRect().width, "
                            "i.getBoundingClientRect().height])")
    assert len(figs) == len(list(out.glob("*.png"))) >= (kind != "raters")
    for complete, nw, nh, w, h in figs:
        assert complete and nw > 0 and nh > 0 and w > 0 and h > 0
    nums = browser.evaluate("[...document.querySelectorAll('p.headline .num')].map(e => "
                            "[e.dataset.value, e.dataset.source, e.textContent])")
    assert nums
    for value, source, shown in nums:  # as rendered: the CSVs' numbers
        assert float(value) == pytest.approx(_cell(out, source), rel=1e-12, abs=1e-15)
        assert float(shown) == pytest.approx(_cell(out, source), rel=5e-4, abs=1e-12)
    shot = browser.screenshot(tmp_path / f"report_{kind}.png")
    assert shot.stat().st_size > 10_000
    dest = os.environ.get("LABELVAR_REPORT_SCREENSHOTS")
    if dest:
        Path(dest).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(dest) / shot.name)


def test_drill_down_is_bounded_per_bin_and_the_csv_holds_all(tmp_path):
    from labelvar.report._html import disagreements, drill_html

    items = [f"i{k}" for k in range(7)]
    votes = pd.DataFrame([(i, r, 1) for i in items for r in "abc"],
                         columns=["item", "rater", "label"])
    drill = disagreements(votes, pd.DataFrame({"bot": [0] * 7}, index=items))
    assert drill["item"].tolist() == items and set(drill["bin"]) == {"1.00"}
    page = drill_html(drill, per_bin=2)
    shown = re.findall(r"<td class=t>(i\d)</td>", page)
    assert shown == ["i0", "i1"] and "the first 2 of 7; all in disagreements.csv" in page
