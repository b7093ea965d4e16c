"""MkDocs hooks of the labelvar site (``hooks:`` in mkdocs.yml).

- ``readme.md`` is the repository's README.md, its links rewritten for the site
  (``docs/x.png`` -> ``x.png``, ``docs/glossary.md`` -> ``glossary.md``), so the README
  stays the one entry point and the site does not copy it.
- ``api/index.md``'s marker line ``<!-- public-api -->`` becomes a table of every name in
  ``labelvar.__all__`` with a cross-reference to where it is documented. The references
  are mkdocstrings autorefs, so a public name without an API entry fails the strict build.
- a line ``<!-- module: labelvar.x -->`` becomes ``::: labelvar.x`` rendering exactly the
  names in ``labelvar.x.__all__`` (extra names may follow the module name).
- the docstrings' Sphinx roles (``:func:`x` ``, ``:math:`x` ``, ...), which the numpydoc
  docstrings keep for ``help()`` and IDEs, are rendered as plain code on the site
  (``~a.b`` shows ``b``, as Sphinx does) instead of showing the role's name.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = "<!-- public-api -->"
#: ``<!-- module: labelvar.x [extra names] -->``: the API of ``labelvar.x``, its ``__all__``
MODULE = re.compile(r"^<!-- module: ([\w.]+)((?: \w+)*) -->$", re.MULTILINE)
#: implementation module -> API page that documents it
PAGES = {
    "labelvar.analytic": "analytic", "labelvar.priors": "priors", "labelvar.models": "models",
    "labelvar.engine": "engine", "labelvar.sweep": "sweeps", "labelvar.config": "sweeps",
    "labelvar.stratified": "stratified", "labelvar.inference": "inference",
    "labelvar.design": "design", "labelvar.pilot": "pilot", "labelvar.agreement": "agreement",
    "labelvar.io._samples": "samples", "labelvar.ceilings": "ceilings", "labelvar.raters": "raters",
}


def _readme() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"\]\(docs/", "](", text)
    return text


def _public_api() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    import labelvar

    rows = ["| name | kind | module | summary |", "|---|---|---|---|"]
    for name in labelvar.__all__:
        if name == "__version__":
            continue
        module = labelvar._EXPORTS[name]
        obj = getattr(labelvar, name)
        kind = "class" if isinstance(obj, type) else "function"
        doc = (obj.__doc__ or "").strip().splitlines()
        summary = doc[0].replace("|", "\\|") if doc else ""
        rows.append(f"| [`{name}`][{module}.{name}] | {kind} | "
                    f"[`{module}`](api/{PAGES[module]}.md) | {summary} |".replace("(api/", "("))
    return "\n".join(rows)


def _module(match: re.Match) -> str:
    """``::: module`` rendering exactly the names of the module's ``__all__``."""
    import importlib

    sys.path.insert(0, str(ROOT / "src"))
    name, extra = match.group(1), (match.group(2) or "").split()
    members = list(getattr(importlib.import_module(name), "__all__", [])) + extra
    return (f"::: {name}\n    options:\n      show_root_heading: false\n"
            f"      members: [{', '.join(members)}]")


#: a Sphinx role as the Markdown renderer leaves it, ``:func:<code>x</code>``, or as it
#: stays in a parameter's type line, ``:func:`x` ``
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|data|obj|exc|const|term|ref|math)"
                  r":(?:<code>(~?)([^<]*)</code>|`(~?)([^`<]*)`)")


def _role(match: re.Match) -> str:
    short, target = match.group(1, 2) if match.group(2) is not None else match.group(3, 4)
    return f"<code>{target.rsplit('.', 1)[-1] if short else target}</code>"


def on_page_content(html, page, config, files):
    """Render the docstrings' Sphinx roles as plain code (see the module docstring)."""
    return ROLE.sub(_role, html)


def on_page_markdown(markdown, page, config, files):
    """Fill the generated pages (see the module docstring)."""
    if page.file.src_uri == "readme.md":
        return _readme()
    markdown = MODULE.sub(_module, markdown)
    if MARKER in markdown:
        return markdown.replace(MARKER, _public_api())
    return markdown
