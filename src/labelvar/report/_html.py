"""``report.html``: one self-contained page per report directory, built in one place.

Every writer (stratify, design, raters, judge, readers) calls :func:`write_report_html`
with what it already computed: a one-sentence headline with its reference, what was
read, the settings and seed, and optionally the items where a system and the panel's
majority disagree (:func:`disagreements`). The page holds what the directory holds:
every CSV as a table (anchored per agreement bin, one ``<details>`` each), every PNG
figure embedded as a data URI, styles inline; no script, no font, nothing fetched: it
reads offline and prints. Numbers the headline quotes carry their exact value and the
CSV cell they come from (``data-value``, ``data-source``), so that a test can check
them against the files.

Examples
--------
>>> html = page(kind="demo", title="a demo", headline=[("the score is ", 0.5, "t.csv:0:score")],
...             sections=[], read={"items": 2}, settings={"seed": 0})
>>> "<script" in html, 'data-value="0.5"' in html
(False, True)
"""

from __future__ import annotations

import base64
import html as _html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from labelvar._base._files import atomic_write, write_results

#: rows of a table shown in the page (the rest: in its CSV)
MAX_ROWS = 200
#: items listed per bin in the drill-down (the rest: in ``disagreements.csv``)
DRILL_ROWS = 20
#: columns naming an agreement bin, in the order looked for
BIN_COLUMNS = ("stratum", "bin")

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;
max-width:72em;padding:0 1em;color:#1a1a1a}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
p.headline{font-size:1.15em;background:#f3f6fa;border-left:4px solid #2f6db5;padding:.6em 1em}
table{border-collapse:collapse;margin:.5em 0;font-size:.85em}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:right;vertical-align:top}
th{background:#f5f5f5}td.t{text-align:left}
details{margin:.3em 0}summary{cursor:pointer;font-weight:600}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.85em;color:#555}
dl{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dt{font-weight:600}dd{margin:0}
nav a{margin-right:.8em}.note{color:#555;font-size:.85em}div.wide{overflow-x:auto}
@media print{div.wide{overflow:visible}details{display:block}details>*{display:block}summary{list-style:none}
figure,table{break-inside:avoid}body{max-width:none}}
"""


def esc(x) -> str:
    """Text escaped for HTML."""
    return _html.escape(str(x), quote=True)


def fmt(x) -> str:
    """A cell as text: numbers in 4 significant digits, missing as empty."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}" if abs(int(x)) >= 10_000 else str(int(x))
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.4g}"
    return str(x)


def number(value, source: str | None = None) -> str:
    """A quoted number: its rounded text, its exact value and its CSV cell as attributes."""
    if not source:  # (a setting quoted, not a result: plain text)
        return esc(fmt(float(value)))
    return (f'<span class="num" data-value="{esc(repr(float(value)))}" '
            f'data-source="{esc(source)}">{esc(fmt(float(value)))}</span>')


def sentence(parts) -> str:
    """Text and ``(text, value, source)`` pieces as one HTML sentence."""
    out = []
    for p in parts:
        if isinstance(p, tuple):
            text, value, source = p
            out.append(esc(text) + ("" if value is None or pd.isna(value)
                                    else number(value, source)))
        else:
            out.append(esc(p))
    return "".join(out)


def _anchor(*parts) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", str(p)) for p in parts)


def _rows(df: pd.DataFrame) -> str:
    head = "".join(f"<th>{esc(c)}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        cells = []
        for x in row:
            text = isinstance(x, str)
            cells.append(f'<td{" class=t" if text else ""}>{esc(fmt(x))}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def _with_intervals(df: pd.DataFrame) -> pd.DataFrame:
    """``score`` and its ``ci_low``/``ci_high`` as one column ``score [low, high]``."""
    if not {"ci_low", "ci_high"} <= set(df.columns):
        return df
    value = next((c for c in ("score", "diff", "fom", "value") if c in df.columns), None)
    if value is None:
        return df
    out = df.copy()
    out[f"{value} [interval]"] = [
        "" if pd.isna(v) else fmt(v) + ("" if pd.isna(lo) else f" [{fmt(lo)}, {fmt(hi)}]")
        for v, lo, hi in zip(df[value], df["ci_low"], df["ci_high"])]
    cols = list(df.columns)
    at = cols.index(value)
    cols = [c for c in cols if c not in (value, "ci_low", "ci_high")]
    cols.insert(at, f"{value} [interval]")
    return out[cols]


def table_html(name: str, df: pd.DataFrame, *, max_rows: int = MAX_ROWS) -> str:
    """One table (from ``name``, a CSV of the directory): per agreement bin a ``<details>``."""
    shown = _with_intervals(df)
    bin_col = next((c for c in BIN_COLUMNS if c in df.columns), None)
    cut = "" if len(df) <= max_rows else (
        f'<p class="note">the first {max_rows:,} of {len(df):,} rows; all in {esc(name)}</p>')
    if bin_col is None:
        return f'<section id="{_anchor("t", name)}"><h3>{esc(name)}</h3>' \
               f"{_rows(shown.head(max_rows))}{cut}</section>"
    parts, left = [], max_rows
    bins = list(dict.fromkeys(df[bin_col].astype(str)))
    links = " ".join(f'<a href="#{_anchor("t", name, b)}">{esc(b)}</a>' for b in bins)
    for b in bins:
        sel = shown[df[bin_col].astype(str).to_numpy() == b]
        if left <= 0:
            break
        parts.append(f'<details open id="{_anchor("t", name, b)}"><summary>{esc(bin_col)} '
                     f"{esc(b)} ({len(sel):,} rows)</summary>{_rows(sel.head(left))}</details>")
        left -= len(sel)
    return (f'<section id="{_anchor("t", name)}"><h3>{esc(name)}</h3>'
            f'<nav class="note">{esc(bin_col)}: {links}</nav>{"".join(parts)}{cut}</section>')


def figure_html(path: Path) -> str:
    """A PNG figure embedded as a data URI (the page fetches nothing)."""
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return (f'<figure id="{_anchor("f", Path(path).stem)}"><img alt="{esc(Path(path).stem)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{esc(Path(path).name)} (also as '
            f"PDF in the directory)</figcaption></figure>")


def _dl(d: Mapping) -> str:
    items = []
    for k, v in d.items():
        if isinstance(v, Mapping):
            v = "; ".join(f"{a}: {b}" for a, b in v.items())
        elif isinstance(v, (list, tuple)):
            v = ", ".join(map(str, v))
        items.append(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>")
    return f"<dl>{''.join(items)}</dl>"


def disagreements(votes: pd.DataFrame, systems: pd.DataFrame, *, task: str = "") -> pd.DataFrame:
    """Items where a system's answer differs from the panel's majority, with the votes.

    Parameters
    ----------
    votes : pandas.DataFrame
        Long votes: ``item``, ``rater``, ``label``.
    systems : pandas.DataFrame
        Items x systems: each system's answer (item ids as index).
    task : str
        A task name for the ``task`` column.

    Returns
    -------
    pandas.DataFrame
        One row per (system, item) where the answer is not the majority label: ``task``,
        ``system``, ``bin`` (the item's observed agreement, top votes / votes, 2
        decimals), ``item``, ``answer``, ``majority`` (tied top labels joined by ``|``:
        an answer equal to any of them is not listed), ``votes`` (``rater: label``).

    Examples
    --------
    >>> v = pd.DataFrame({"item": list("aaabbb"), "rater": list("xyzxyz"),
    ...                   "label": [1, 1, 0, 0, 0, 0]})
    >>> s = pd.DataFrame({"bot": [0, 0]}, index=["a", "b"])
    >>> disagreements(v, s)[["item", "answer", "majority", "bin", "votes"]].values.tolist()
    [['a', '0', '1', '0.67', 'x: 1, y: 1, z: 0']]
    """
    v = votes.dropna(subset=["label"]).astype({"item": str})
    rows = []
    ids = systems.index.astype(str)
    for item, g in v.groupby("item", sort=False):
        counts = g["label"].astype(str).value_counts()
        top = counts[counts == counts.max()].index.tolist()
        agree = f"{counts.max() / counts.sum():.2f}"
        listed = ", ".join(f"{r}: {lab}" for r, lab in zip(g["rater"], g["label"]))
        where = np.flatnonzero(ids == item)
        if not len(where):
            continue
        for s in systems.columns:
            a = systems.iloc[where[0]][s]
            if a is None or (isinstance(a, float) and np.isnan(a)):
                continue
            a = str(int(a)) if isinstance(a, float) and a == int(a) else str(a)
            if a not in top:
                rows.append({"task": task, "system": str(s), "bin": agree, "item": item,
                             "answer": a, "majority": "|".join(top), "votes": listed})
    cols = ["task", "system", "bin", "item", "answer", "majority", "votes"]
    return pd.DataFrame(rows, columns=cols)


def drill_html(drill: pd.DataFrame, *, per_bin: int = DRILL_ROWS) -> str:
    """Per system and bin, the first ``per_bin`` items where the system and the majority differ."""
    if drill is None:
        return ""
    if drill.empty:
        return '<p>No item where a system and the panel\'s majority disagree.</p>'
    parts = []
    for (task, system), g in drill.groupby(["task", "system"], sort=False):
        who = f"{task}: {system}" if task else system
        for b, gb in g.groupby("bin", sort=True):
            more = (f'<p class="note">the first {per_bin} of {len(gb):,}; all in '
                    "disagreements.csv</p>" if len(gb) > per_bin else "")
            parts.append(f'<details open id="{_anchor("d", task, system, b)}"><summary>{esc(who)}, '
                         f"agreement {esc(b)}: {len(gb):,} item(s)</summary>"
                         f"{_rows(gb.head(per_bin)[['item', 'answer', 'majority', 'votes']])}"
                         f"{more}</details>")
    return "".join(parts)


def page(*, kind: str, title: str, headline, sections: Sequence[tuple[str, str]],
         read: Mapping, settings: Mapping) -> str:
    """The whole page: headline first, then the sections, what was read, the settings.

    ``headline``: a list of sentences, each a list of text and ``(text, value, source)``
    pieces (:func:`sentence`); ``sections``: (heading, HTML) pairs.
    """
    from labelvar import __version__

    if headline and not isinstance(headline[0], list):
        headline = [headline]
    heads = "".join(f'<p class="headline">{sentence(s)}</p>' for s in headline)
    nav = " ".join(f'<a href="#{_anchor("s", h)}">{esc(h)}</a>' for h, body in sections if body)
    body = "".join(f'<section id="{_anchor("s", h)}"><h2>{esc(h)}</h2>{b}</section>'
                   for h, b in sections if b)
    meta = {**settings, "labelvar": __version__}
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{esc(title)}</h1><p class=\"note\">labelvar {esc(kind)} report</p>{heads}"
            f"<nav>{nav}</nav>{body}"
            f'<section id="s-read"><h2>What was read</h2>{_dl(read)}</section>'
            f'<section id="s-settings"><h2>Settings</h2>{_dl(meta)}</section>'
            "</body></html>\n")


def write_report_html(tmp: Path, files: Sequence[Path], *, kind: str, title: str, headline,
                      read: Mapping, settings: Mapping,
                      drill: pd.DataFrame | None = None) -> list[Path]:
    """Write ``report.html`` (and ``disagreements.csv``) beside ``files``; return the paths.

    Every CSV of ``files`` becomes a table and every PNG an embedded figure, in the
    order written; ``drill`` (:func:`disagreements`) the item drill-down.
    """
    written = []
    if drill is not None:
        written.append(write_results(drill, Path(tmp) / "disagreements.csv"))
    tables = "".join(table_html(p.name, pd.read_csv(p, keep_default_na=True))
                     for p in files if p.suffix == ".csv")
    figures = "".join(figure_html(p) for p in files if p.suffix == ".png")
    sections = [("Tables", tables), ("Figures", figures),
                ("Items where a system and the panel's majority disagree", drill_html(drill))]
    html = page(kind=kind, title=title, headline=headline, sections=sections, read=read,
                settings=settings)
    written.append(atomic_write(Path(tmp) / "report.html", html))
    return written
