"""The documentation site builds with warnings as errors and reads as a reader trusts.

``mkdocs build --strict`` fails on any warning: a broken link or anchor, a missing
cross-reference (the generated public-API table references every name in
``labelvar.__all__``, so an undocumented public name fails), a docstring mkdocstrings
cannot parse. The built HTML is then read as a browser shows it (:func:`site_defects`):
no raw Sphinx role or reST markup, no TeX source outside rendered maths, no docstring
of a Python builtin standing in for a field's, no private ``labelvar._x`` name, and no
script or stylesheet fetched from the internet at view time. The build is slow (skipped,
naming the extra, when mkdocs is not installed); the checks themselves are tested on small
snippets in the default suite.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

#: a Sphinx role as docutils writes it (``:func:`x` ``) or as Markdown leaves it
#: (``:func:`` before a code span): its name followed by a backquote or a word
ROLE = re.compile(r"(?<![\w:]):(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const|term|ref|doc"
                  r"|math|sup|sub|eq|numref|abbr|samp|file|kbd|envvar):(?=[`~\w])")
#: a reST directive (``.. math::``, ``.. note::``) or a reST literal (````x````) left as text
DIRECTIVE = re.compile(r"(?<!\S)\.\. [a-z-]+::|``")
#: TeX source: a control word (``\frac``, ``\sum``, ``\alpha``) or a braced sub/superscript
#: (``n_{pos}``; not in a path or URL, where ``gpt4_{coh,con}.json`` is a shell pattern)
TEX = re.compile(r"\\(?:[dt]?frac|sum|prod|int|sqrt|binom|math[a-z]+|operatorname|text|le|leq|ge"
                 r"|geq|ne|neq|sim|approx|propto|cdot|times|pm|infty|left|right|[lr]floor|[lr]ceil"
                 r"|q?quad|bar|hat|tilde|log|exp|max|min|arg|mid|in|[lc]?dots"
                 r"|alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa"
                 r"|lambda|mu|nu|xi|pi|rho|sigma|tau|upsilon|phi|varphi|chi|psi|omega"
                 r"|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Phi|Psi|Omega)(?![a-zA-Z])"
                 r"|[_^]\{")
#: a private labelvar module or name (``labelvar._metrics``, ``labelvar.engine._tables``)
PRIVATE = re.compile(r"\blabelvar(?:\.[A-Za-z]\w*)*\._[A-Za-z]\w*(?:\.\w+)*")
#: the first line of the docstring of each builtin type a dataclass or NamedTuple field
#: may inherit, and the one NamedTuple gives its fields
BUILTIN_DOCS = tuple({(t.__doc__ or "").strip().splitlines()[0] for t in (
    str, int, float, bool, complex, bytes, tuple, list, dict, set, frozenset, object)}
    | {"Alias for field number", "Create a new string object", "int([x]) -> integer",
       "Convert a string or number to a floating point number"})
#: tags whose content a reader does not see as text
HIDDEN = {"script", "style", "head", "template"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class _Page(HTMLParser):
    """The visible text of a page, split into what is inside ``<math>``/``<pre>`` or not."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.prose: list[str] = []     # visible text outside <math> and <pre>
        self.code: list[str] = []      # visible text inside <pre> (code blocks)
        self.external: list[str] = []  # scripts and stylesheets loaded from http(s)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        url = attrs.get("src") if tag == "script" else attrs.get("href") if tag == "link" else None
        if (tag == "script" or "stylesheet" in (attrs.get("rel") or "") or
                "preload" in (attrs.get("rel") or "")) and url and re.match(r"(https?:)?//", url):
            self.external.append(f"<{tag}> {url}")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in self.stack:  # close up to the matching tag (tolerates unclosed <p>, <li>)
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if "style" in self.stack:
            self.external += [f"@import {u}" for u in re.findall(
                r"@import\s+(?:url\()?[\"']?((?:https?:)?//[^\"')\s]+)", data)]
        if HIDDEN.intersection(self.stack) or "math" in self.stack:
            return
        (self.code if "pre" in self.stack else self.prose).append(data)


def _token(text: str, at: int) -> str:
    """The whitespace-delimited word of ``text`` around position ``at``."""
    return re.search(r"\S*\Z", text[:at]).group() + re.match(r"\S*", text[at:]).group()


def site_defects(html: str) -> list[str]:
    """What a reader of this page would not trust, one line each (empty when none).

    Raw roles, directives, builtin docstrings and private names are looked for in all the
    visible text; TeX source only outside ``<math>`` and code blocks (``<pre>``), where
    ``x_{i}`` may be Python; external scripts and stylesheets in every ``<script>``,
    ``<link>`` and ``<style>`` of the page.
    """
    page = _Page()
    page.feed(html)
    page.close()
    prose, code = "".join(page.prose), "".join(page.code)
    text = prose + "\n" + code

    def around(m: re.Match, s: str) -> str:
        return " ".join(s[max(m.start() - 40, 0):m.end() + 40].split())

    found = [f"raw role: {around(m, text)!r}" for m in ROLE.finditer(text)]
    found += [f"reST markup: {around(m, prose)!r}" for m in DIRECTIVE.finditer(prose)]
    found += [f"TeX source: {around(m, prose)!r}" for m in TEX.finditer(prose)
              if not (m.group().endswith("{") and "/" in _token(prose, m.start()))]
    found += [f"builtin docstring: {doc!r}" for doc in BUILTIN_DOCS if doc in text]
    found += [f"private name: {m.group()} in {around(m, text)!r}" for m in PRIVATE.finditer(text)]
    found += [f"external {u}" for u in page.external]
    return found


@pytest.mark.parametrize("snippet, defect", [
    ("<p>see :func:<code>stratify</code></p>", "raw role"),
    ("<p>10\\ :sup:<code>9</code> items</p>", "raw role"),
    ("<td>:math:`p_d`</td>", "raw role"),
    ("<p>.. math::\n    E = 1</p>", "reST markup"),
    ("<td><code>mapping of task to ``(panel, predictions)``</code></td>", "reST markup"),
    ("<p><code>E(F_1) = \\frac{2 m p}{2 m p + 1}</code></p>", "TeX source"),
    ("<p>the sum \\sum over bins</p>", "TeX source"),
    ("<p>n_{pos} items</p>", "TeX source"),
    ("<li>Carpenter's \\alpha_j (sensitivity)</li>", "TeX source"),
    ("<div><p>Create a new string object from the given object.</p></div>", "builtin docstring"),
    ("<p>int([x]) -&gt; integer</p>", "builtin docstring"),
    ("<p>Convert a string or number to a floating point number, if possible.</p>",
     "builtin docstring"),
    ("<p>Alias for field number 0</p>", "builtin docstring"),
    ("<p>see <code>labelvar._metrics</code></p>", "private name"),
    ("<p>seeded by labelvar._seeding.generator</p>", "private name"),
    ("<p>the <code>labelvar.engine._tables</code> module</p>", "private name"),
    ('<head><script src="https://cdn.example.org/katex.js"></script></head>', "external"),
    ('<head><link rel="stylesheet" href="https://fonts.googleapis.com/css?x"></head>', "external"),
    ('<script src="//cdn.example.org/mathjax.js"></script>', "external"),
    ('<style>@import url("https://fonts.example.org/a.css");</style>', "external"),
])
def test_site_defects_finds_each_defect(snippet, defect):
    found = site_defects(f"<html><body>{snippet}</body></html>")
    assert found and all(f.startswith(defect) for f in found), found


def test_site_defects_passes_what_a_reader_trusts():
    html = ("<html><head><title>\\frac</title><script src='../assets/x.js'></script>"
            "<link rel='stylesheet' href='assets/site.css'><script>var a = ':func:`x`';</script>"
            "</head><body><p>the ratio <math><mfrac><mi>a</mi><mi>b</mi></mfrac>"
            "<annotation encoding='application/x-tex'>\\frac{a}{b}</annotation></math> at "
            "10<sup>9</sup> items, see <a href='#x'><code>stratify</code></a> and "
            "<code>labelvar.evaluation</code>; ratio: 2:1</p>"
            "<pre><code>d = {'a_{b}': 1}  # a dict key\n</code></pre>"
            "<p><code>results/gpt4_{coh,con}_detailed.json</code>, <code>'4\\n\\nThe'</code></p>"
            "<a href='https://example.org/paper'>the paper</a></body></html>")
    assert site_defects(html) == []


def _hooks():
    """docs/_hooks.py, the site's MkDocs hooks, as a module."""
    import importlib.util

    pytest.importorskip("latex2mathml", reason="the docs build needs `pip install labelvar[docs]`")
    spec = importlib.util.spec_from_file_location("labelvar_site_hooks", REPO / "docs" / "_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _MkdocsPage:
    class file:  # noqa: N801  (stands in for mkdocs' Page.file)
        src_uri = "api/x.md"


def test_hooks_render_maths_and_roles_as_a_reader_trusts():
    hooks = _hooks()
    html = ("<p>the ratio :math:<code>E(F_1) = \\frac{2 m p_d}{2 m p_d + 1 - p_d}</code> and "
            ":math:`a &lt; b` in a type line</p>"
            "<p>.. math::\n    P(R \\ge x) = \\sum_j w_j\\,P(FP \\le t_j)</p>"
            '<p>a page\'s <span class="arithmatex">\\(x^{2}\\)</span> and</p>'
            '<div class="arithmatex">\\[\\sqrt{p_d (1 - p_d) / N}\\]</div>'
            "<p>10\\ :sup:<code>9</code> items, "
            ":func:<code>~labelvar.evaluation._stratified.stratify</code>, "
            ":class:<code>TaskData</code>, :mod:<code>numpy.random</code>, "
            ":func:<code>labelvar.stratify</code></p>"
            "<p>Bases: <code>labelvar.votes._pilot_predict.PilotFit</code></p>")
    out = hooks.on_page_content(html, _MkdocsPage, None, None)
    assert out.count("<math ") == 5 and out.count('display="block"') == 2, out
    assert "10<sup>9</sup> items" in out
    # a private module's name is shown and linked at its one public path
    assert '<autoref identifier="labelvar.stratify" optional><code>stratify</code>' in out
    assert '<autoref identifier="labelvar.io.TaskData" optional><code>TaskData</code>' in out
    assert "<code>numpy.random</code>" in out and "Bases: <code>labelvar.PilotFit</code>" in out
    real = hooks.on_page_content(":func:<code>labelvar.evaluation._stratified.stratify</code>",
                                 _MkdocsPage, None, None)
    assert ('<autoref identifier="labelvar.stratify" optional><code>labelvar.stratify</code>'
            in real)
    assert site_defects(f"<html><body>{out}</body></html>") == []
    for bad in (":math:<code>\\foo x</code>", ":math:<code>x^</code>", "<p>.. math:: \\frac</p>"):
        with pytest.raises(ValueError, match="api/x.md: latex2mathml cannot read the formula"):
            hooks.on_page_content(bad, _MkdocsPage, None, None)


def _inventory(path: Path) -> set[str]:
    """Object names in a Sphinx inventory (objects.inv, version 2) written by mkdocstrings."""
    raw = path.read_bytes()
    body = raw.split(b"\n", 4)[4]  # four header lines, then zlib
    return {line.split(" ", 1)[0] for line in zlib.decompress(body).decode().splitlines()}


@pytest.mark.slow
def test_docs_build_strict_and_document_every_public_name(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs build needs `pip install labelvar[docs]`")
    pytest.importorskip("mkdocstrings_handlers.python",
                        reason="the docs build needs `pip install labelvar[docs]`")
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", MPLBACKEND="Agg",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO / "src"),
                                                        os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "--site-dir", str(site)], cwd=REPO, env=env, text=True,
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-6000:]
    assert not re.search(r"^WARNING", proc.stderr, re.MULTILINE), proc.stderr[-6000:]
    import labelvar

    names = _inventory(site / "objects.inv")
    missing = [n for n in labelvar.__all__ if f"labelvar.{n}" not in names]
    assert not missing, f"public names without an API entry: {missing}"
    for module in ("analytic", "engine", "votes", "evaluation", "design", "io", "metrics", "plots",
                   "report", "sweep"):
        assert f"labelvar.{module}" in names
    for page in ("readme", "glossary", "api", "guides/planning", "tutorials/chexpert"):
        assert (site / page / "index.html").is_file(), page
    # the README page is the README, with its figures found
    readme = (site / "readme" / "index.html").read_text(encoding="utf-8")
    assert 'src="../figure1.png"' in readme and (site / "figure1.png").is_file()
    # the maths is rendered: every :math: of the analytic page's docstrings is a <math>
    import labelvar.analytic

    analytic = (site / "api" / "analytic" / "index.html").read_text(encoding="utf-8")
    assert analytic.count("<math ") >= (labelvar.analytic.__doc__ or "").count(":math:") > 0
    assert analytic.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"') >= 3
    # every page reads as a reader trusts (see site_defects)
    defects = {str(p.relative_to(site)): site_defects(p.read_text(encoding="utf-8"))
               for p in sorted(site.rglob("*.html"))}
    defects = {page: found for page, found in defects.items() if found}
    assert not defects, "\n".join(f"{page}: {len(found)}: {found[:5]}"
                                  for page, found in defects.items())
