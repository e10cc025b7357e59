"""What every explorer shares: the base class, its bundled ES module and stylesheet.

Each explorer's ES module (``js/<name>.js``) imports the helpers it needs from
``js/base.js`` (and, for a family of explorers, a helper module such as
``js/positional.js``) with an ordinary ES ``import``, so node can import it in tests. A
widget must ship ONE self-contained module (the static site imports it from the saved
page), so :func:`bundle` replaces each such import by the helpers the module uses (and
the helpers those use), ``export`` keywords removed.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import anywidget
import torch

JS = Path(__file__).resolve().parent.parent / "js"

# import { a, b } from "./base.js";  (the formatter may spread the names over several lines)
_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*["\']\./(\w+)\.js["\'];?[ \t]*$', re.M)
# a top-level declaration: (export) (async) function name / const name / let name / class name
_DECLARATION = re.compile(r"^(?:export\s+)?(?:async\s+)?(?:function\*?|const|let|class)\s+([\w$]+)")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")


def _declarations(source: str) -> dict[str, str]:
    """The top-level declarations of ``source`` by name, each with the comment right above it.

    Top-level code starts in column 0 (the formatter sees to it); a top-level comment
    followed by a blank line heads a section and is left out.
    """
    chunks: dict[str, list[str]] = {}
    current: list[str] = []
    comment: list[str] = []
    for line in source.splitlines():
        match = _DECLARATION.match(line)
        if match:
            current = chunks.setdefault(match.group(1), [])
            current.extend([*comment, line])
            comment = []
        elif line.startswith(("//", "/*", " *")):
            comment.append(line)  # belongs to the declaration below it
        elif not line.strip() and comment:
            comment = []  # a section heading
        else:
            current.append(line)
    return {name: "\n".join(lines).strip() + "\n" for name, lines in chunks.items()}


def _needed(names: list[str], declarations: dict[str, str], helper: str) -> list[str]:
    """``names`` and every top-level name their code refers to, in declaration order."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in declarations:
            raise ValueError(f"{helper}.js has no top-level {name!r} to import")
        seen.add(name)
        todo.extend(w for w in set(_WORD.findall(declarations[name])) if w in declarations)
    return [name for name in declarations if name in seen]


def _inline(helper: str, names: list[str]) -> str:
    """The helpers ``names`` of ``helper``.js and what they use, as plain declarations."""
    source = (JS / f"{helper}.js").read_text(encoding="utf-8")
    if _IMPORT.search(source):
        raise ValueError(f"helper module {helper}.js must not import other modules")
    declarations = _declarations(source)
    code = "".join(
        re.sub(r"^export\s+", "", declarations[n], flags=re.M) + "\n"
        for n in _needed(names, declarations, helper)
    )
    return f"// ---- from {helper}.js: {', '.join(names)}\n{code}// ---- end of {helper}.js"


@cache
def bundle(name: str) -> str:
    """``js/<name>.js`` with its imports of helper modules replaced by what it uses.

    Several imports from one helper module are merged: its code is inlined once, where
    the first of them stood.
    """
    path = JS / f"{name}.js"
    if not path.is_file():
        raise ValueError(f"no explorer module {path.name} in {JS}")
    source = path.read_text(encoding="utf-8")
    wanted: dict[str, list[str]] = {}
    for match in _IMPORT.finditer(source):
        names = wanted.setdefault(match.group(2), [])
        names.extend(n.strip() for n in match.group(1).split(",") if n.strip())

    def replace(match: re.Match) -> str:
        names = wanted.pop(match.group(2), None)
        return _inline(match.group(2), names) if names else ""

    code = _IMPORT.sub(replace, source)
    if re.search(r"^\s*import\s", code, re.M):
        raise ValueError(f"{path.name} has an import the bundler cannot inline")
    return code


@cache
def stylesheet() -> str:
    """The shared ``.attnbook-explorer`` styles (light and dark theme)."""
    return (JS / "explorer.css").read_text(encoding="utf-8")


def rounded(t: torch.Tensor, digits: int = 5) -> list:
    """A tensor as nested lists of floats, rounded so the saved page stays small."""
    return torch.round(t.detach().double().cpu(), decimals=digits).tolist()


class _Bundled:
    """The class's ``_esm`` (or ``_css``), made on first use rather than at import."""

    def __init__(self, make) -> None:
        self.make = make

    def __get__(self, obj, cls) -> str:
        module = getattr(cls, "_module", "")
        return self.make(module) if module else ""


class Explorer(anywidget.AnyWidget):
    """An anywidget whose ES module ``js/<_module>.js`` draws and redraws in the browser.

    A subclass names its module in ``_module`` and declares its synced traits; its
    constructor checks the reader's input and computes what the browser needs. The
    conventions the site's tests rely on: a root ``<div class="attnbook-explorer">``
    holding an ``<svg>``; controls are ``<input type="range">`` or ``<select>``; moving
    any of them redraws the SVG.
    """

    _module: str = ""
    _esm = _Bundled(bundle)
    _css = _Bundled(lambda _module: stylesheet())
