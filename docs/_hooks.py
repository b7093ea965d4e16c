"""MkDocs hooks of the labelvar site (``hooks:`` in mkdocs.yml).

- ``readme.md`` is the repository's README.md, its links rewritten for the site
  (``docs/x.png`` -> ``x.png``, ``docs/glossary.md`` -> ``glossary.md``), so the README
  stays the one entry point and the site does not copy it.
- ``api/index.md``'s marker line ``<!-- public-api -->`` becomes a table of every name in
  ``labelvar.__all__`` with a cross-reference to its entry (``labelvar.stratify``) and the
  page that shows it. The references are mkdocstrings autorefs, so a public name without
  an API entry fails the strict build. The table sits in a ``<div class="api-index">``,
  whose names and modules never break inside a word (docs/stylesheets/labelvar.css).
- a line ``<!-- top: name ... -->`` becomes ``::: labelvar`` rendering those top-level
  names (each documented once, at its one public path ``labelvar.name``); a line
  ``<!-- module: labelvar.x -->`` becomes ``::: labelvar.x`` rendering exactly the names
  in ``labelvar.x.__all__`` (extra names may follow the module name).
- the docstrings' Sphinx roles (``:func:`x` ``, ``:math:`x` ``, ...) and ``.. math::``
  blocks, which the numpydoc docstrings keep for ``help()`` and IDEs, are rendered for the
  site: ``:math:``, ``.. math::`` and the pages' ``$...$`` / ``$$...$$`` (arithmatex) become
  MathML at build time (latex2mathml; browsers render MathML natively, so the site loads
  no maths script and nothing from the internet); ``:func:``, ``:class:``, ... become
  cross-references to the API entry when the target is documented (``~a.b`` shows ``b``,
  as Sphinx does), plain code otherwise; ``:sup:`` / ``:sub:`` become ``<sup>`` / ``<sub>``.
  A formula latex2mathml cannot read fails the build.
- a role naming an object by its private module (``labelvar.evaluation._stratified.stratify``)
  shows and links its public path (``labelvar.stratify``); a class's "Bases:" line names a
  private base by its public path (``labelvar.votes._pilot_predict.PilotFit`` ->
  ``labelvar.PilotFit``) and leaves out a private base class that has none
  (``_DirichletFamily``).
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- public-api -->"
#: ``<!-- module: labelvar.x [extra names] -->``: the API of ``labelvar.x``, its ``__all__``
MODULE = re.compile(r"^<!-- module: ([\w.]+)((?: \w+)*) -->$", re.MULTILINE)
#: ``<!-- top: name ... -->``: top-level names of ``labelvar``, documented at ``labelvar.name``
TOP = re.compile(r"^<!-- top:((?: \w+)+) -->$", re.MULTILINE)
API = ROOT / "docs" / "api"


def _top_pages() -> dict[str, str]:
    """Top-level name -> the API page (``api/<page>.md``) whose ``<!-- top: -->`` shows it."""
    pages = {}
    for page in sorted(API.glob("*.md")):
        for match in TOP.finditer(page.read_text(encoding="utf-8")):
            for name in match.group(1).split():
                pages.setdefault(name, page.stem)
    return pages


def _readme() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](", text)
    return text


def _public_api() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    import labelvar

    pages = _top_pages()
    rows = ["| name | kind | page | summary |", "|---|---|---|---|"]
    for name in labelvar.__all__:
        obj = getattr(labelvar, name)
        kind = "class" if isinstance(obj, type) else "function"
        doc = (obj.__doc__ or "").strip().splitlines()
        summary = doc[0].replace("|", "\\|") if doc else ""
        page = pages.get(name, "index")  # a name on no page fails the build (no API entry)
        rows.append(f"| [`{name}`][labelvar.{name}] | {kind} | [{page}]({page}.md) | {summary} |")
    return '<div class="api-index" markdown>\n\n' + "\n".join(rows) + "\n\n</div>"


def _top(match: re.Match) -> str:
    """``::: labelvar`` rendering the listed top-level names."""
    return ("::: labelvar\n    options:\n      show_root_heading: false\n"
            f"      members: [{', '.join(match.group(1).split())}]")


def _module(match: re.Match) -> str:
    """``::: module`` rendering exactly the names of the module's ``__all__``."""
    import importlib

    sys.path.insert(0, str(ROOT / "src"))
    name, extra = match.group(1), (match.group(2) or "").split()
    members = list(getattr(importlib.import_module(name), "__all__", [])) + extra
    return (f"::: {name}\n    options:\n      show_root_heading: false\n"
            f"      members: [{', '.join(members)}]")


#: a Sphinx role as the Markdown renderer leaves it, ``:func:<code>x</code>``, or as it
#: stays in a parameter's type line, ``:func:`x` `` (a reST escaped space ``\ `` before it,
#: as in ``10\ :sup:`9` ``, goes with it)
ROLE = re.compile(r"(?:\\ )?:(?:py:)?(func|class|meth|mod|attr|data|obj|exc|const|term|ref|math"
                  r"|sup|sub):(?:<code>(~?)([^<]*)</code>|`(~?)([^`<]*)`)")
#: a ``.. math::`` block, which Markdown leaves as a paragraph of its own
DISPLAY = re.compile(r"<p>\.\. math::\s*(.*?)</p>", re.DOTALL)
#: arithmatex's output for ``$...$`` and ``$$...$$`` in the pages (``generic: true``)
ARITHMATEX = re.compile(r'<(span|div) class="arithmatex">\s*\\[(\[](.*?)\\[)\]]\s*</\1>', re.DOTALL)
#: TeX that latex2mathml does not know, as TeX it does
TEX_SPELLINGS = {"\\arg": "\\mathrm{arg}"}
_NAMES: dict[str, str] = {}


def _mathml(tex: str, display: bool, page) -> str:
    """TeX as MathML (with the TeX as its annotation); the build fails on TeX it cannot read."""
    from latex2mathml.converter import convert

    if re.search(r"</?(?:em|strong|code|a|span)\b", tex):
        raise ValueError(f"{page.file.src_uri}: Markdown rewrote the formula {tex!r}; "
                         "write it as :math:`...` or fence it")
    tex = source = html.unescape(tex).strip()
    for word, spelling in TEX_SPELLINGS.items():
        tex = re.sub(re.escape(word) + r"(?![a-zA-Z])", lambda _, s=spelling: s, tex)
    try:
        out = convert(tex, display="block" if display else "inline")
    except Exception as error:  # latex2mathml's own errors name no formula
        raise ValueError(f"{page.file.src_uri}: latex2mathml cannot read the formula {source!r}: "
                         f"{type(error).__name__} {error}") from error
    if "\\" in out or "merror" in out:  # an unknown command stays as its TeX
        raise ValueError(f"{page.file.src_uri}: latex2mathml cannot read the formula {source!r}")
    head, body = out.split(">", 1)
    body = body.rsplit("</math>", 1)[0]
    return (f'{head} class="math">'
            f'<semantics>{body}<annotation encoding="application/x-tex">{html.escape(source)}'
            f"</annotation></semantics></math>")


def _documented() -> list[str]:
    """The modules the API pages render (``::: x`` and ``<!-- module: x -->`` lines)."""
    pages = "".join(f.read_text(encoding="utf-8") for f in sorted(API.glob("*.md")))
    found = re.findall(r"^(?:::: |<!-- module: )(labelvar[\w.]*)", pages, re.MULTILINE)
    return list(dict.fromkeys(found))


def _names() -> dict[str, str]:
    """Names (``stratify``, ``labelvar.stratify``, ``TaskData``) -> their API identifier.

    A private module's path (``labelvar.evaluation._stratified.stratify``) maps to the
    public path too.
    """
    if not _NAMES:
        import importlib

        sys.path.insert(0, str(ROOT / "src"))
        import labelvar

        def add(public: str, name: str, obj) -> None:
            for key in (name, public, f"{getattr(obj, '__module__', public)}.{name}"):
                _NAMES.setdefault(key, public)

        for name in labelvar.__all__:
            add(f"labelvar.{name}", name, getattr(labelvar, name))
        for module in _documented():
            try:
                imported = importlib.import_module(module)
            except ImportError:  # ``::: labelvar.x.function``: an object, not a module
                continue
            _NAMES.setdefault(module, module)
            for name in getattr(imported, "__all__", []):
                add(f"{module}.{name}", name, getattr(imported, name))
    return _NAMES


def _identifier(target: str) -> str | None:
    """The API identifier a role's target names (``TaskData.humans`` included), or None."""
    names = _names()
    parts = target.split(".")
    for cut in range(len(parts), 0, -1):  # the longest documented prefix, then its attributes
        head = ".".join(parts[:cut])
        if head in names:
            return ".".join([names[head], *parts[cut:]])
    return None


def _role(match: re.Match, page=None) -> str:
    role = match.group(1)
    short, target = match.group(2, 3) if match.group(3) is not None else match.group(4, 5)
    if role == "math":
        return _mathml(target, False, page)
    if role in ("sup", "sub"):
        return f"<{role}>{target}</{role}>"
    identifier = _identifier(target.removesuffix("()"))
    if identifier is not None and "._" in target:  # a private module's name: its public path
        target = identifier + ("()" if target.endswith("()") else "")
    shown = f"<code>{target.rsplit('.', 1)[-1] if short else target}</code>"
    if identifier is None or role in ("term", "ref"):
        return shown
    return f'<autoref identifier="{identifier}" optional>{shown}</autoref>'


#: a class's "Bases:" line as mkdocstrings writes it
BASES = re.compile(r"Bases: ((?:<code>[^<]*</code>(?:, )?)+)</p>")


def _bases(match: re.Match) -> str:
    """A private base (``labelvar.votes._pilot_predict.PilotFit``) named by its public path, if any."""
    shown = []
    for base in re.findall(r"<code>([^<]*)</code>", match.group(1)):
        if base.startswith("labelvar") and "._" in base:
            base = _names().get(base) or _names().get(base.rsplit(".", 1)[-1])
        if base:
            shown.append(f"<code>{base}</code>")
    return f"Bases: {', '.join(shown)}</p>" if shown else "</p>"


def on_page_content(html_text, page, config, files):
    """Render the docstrings' maths and roles (see the module docstring)."""
    html_text = BASES.sub(_bases, html_text)
    html_text = DISPLAY.sub(lambda m: _mathml(m.group(1), True, page), html_text)
    html_text = ARITHMATEX.sub(lambda m: _mathml(m.group(2), m.group(1) == "div", page), html_text)
    return ROLE.sub(lambda m: _role(m, page), html_text)


def on_page_markdown(markdown, page, config, files):
    """Fill the generated pages (see the module docstring)."""
    if page.file.src_uri == "readme.md":
        return _readme()
    markdown = MODULE.sub(_module, TOP.sub(_top, markdown))
    if MARKER in markdown:
        return markdown.replace(MARKER, _public_api())
    return markdown
