"""Link a wheel's declared dependencies, as installed here, into one folder.

Usage (scripts/wheel_smoke.sh): ``python scripts/_wheel_deps.py WHEEL DEST``

Reads the wheel's ``Requires-Dist`` (no extras), follows each requirement's own
requirements (with the extras asked for) through the distributions installed in this
interpreter's environment, checks each installed version against every specifier that
asked for it, and symlinks each distribution's top-level files (packages, modules,
``.libs`` folders, its ``.dist-info``) into DEST. A fresh virtualenv whose ``.pth`` names
DEST then imports those distributions and nothing else of this environment: not the
extras' packages (a dependency missing from ``pyproject.toml`` still fails the smoke
test), and not an editable labelvar (labelvar is no dependency of itself, and the
``.pth`` files of this environment are not read from DEST). Exit 3, naming it, when a
requirement is not installed here or its version does not fit (the caller then installs
the dependencies from the package index instead).
"""

from __future__ import annotations

import sys
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def _wanted(req: Requirement, extras: set[str]) -> bool:
    return req.marker is None or any(req.marker.evaluate({"extra": e}) for e in extras | {""})


def _fail(message: str) -> None:
    print(f"_wheel_deps: {message}", file=sys.stderr)
    sys.exit(3)


def closure(requires: list[str]) -> dict[str, metadata.Distribution]:
    """Every distribution the requirements need, by canonical name (exit 3 if one is absent)."""
    todo = [(req, "labelvar") for req in map(Requirement, requires) if _wanted(req, set())]
    found: dict[str, metadata.Distribution] = {}
    extras: dict[str, set[str]] = {}
    while todo:
        req, by = todo.pop()
        name = canonicalize_name(req.name)
        try:
            dist = found.get(name) or metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            _fail(f"{req.name} (needed by {by}) is not installed in {sys.prefix}")
        if not req.specifier.contains(dist.version, prereleases=True):
            _fail(f"{by} needs {req}, {sys.prefix} has {dist.version}")
        new = set(req.extras) - extras.get(name, set())
        if name in found and not new:
            continue
        asked = new if name in found else set(req.extras)
        found[name] = dist
        extras.setdefault(name, set()).update(req.extras)
        todo += [(sub, name) for sub in map(Requirement, dist.requires or []) if _wanted(sub, asked)]
    return found


def main(wheel: str, dest: str) -> None:
    with zipfile.ZipFile(wheel) as zf:
        (meta,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        requires = Parser().parsestr(zf.read(meta).decode()).get_all("Requires-Dist") or []
    out = Path(dest)
    out.mkdir(parents=True, exist_ok=True)
    for name, dist in sorted(closure(requires).items()):
        if not dist.files:
            _fail(f"{name} lists no files (no RECORD)")
        site = Path(dist.locate_file("")).resolve()
        tops = {f.parts[0] for f in dist.files if f.parts and f.parts[0] not in ("..", "__pycache__")
                and not f.parts[0].endswith(".pth")}
        for top in sorted(tops):
            link, target = out / top, site / top
            if target.exists() and not link.exists():
                link.symlink_to(target)
    print(f"_wheel_deps: {len(list(out.iterdir()))} entries linked into {out}", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
