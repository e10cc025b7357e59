"""What every explorer shares: the base class, its bundled ES module and stylesheet.

Each explorer's ES module (``js/<name>.js``) imports the helpers it needs from
``js/base.js`` (and, for a family of explorers, a helper module such as
``js/positional.js``) with an ordinary ES ``import``, so node can import it in tests. A
widget must ship ONE self-contained module (the static site imports it from the saved
page), so :func:`bundle` replaces each such import by the helpers the module uses (and
the helpers those use, in their own module or in a helper module theirs imports from, as
``base.js`` imports the string tables of ``strings.js``), ``export`` keywords removed.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import anywidget
import torch
import traitlets

JS = Path(__file__).resolve().parent.parent / "js"
#: The languages of the explorers' words (the tables of js/strings.js).
LANGUAGES = ("en", "zh")

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


def _imports(source: str) -> dict[str, list[str]]:
    """The names ``source`` imports, by helper module, in the order the modules first appear."""
    wanted: dict[str, list[str]] = {}
    for match in _IMPORT.finditer(source):
        names = wanted.setdefault(match.group(2), [])
        names.extend(n.strip() for n in match.group(1).split(",") if n.strip())
    return wanted


def _helpers(wanted: dict[str, list[str]]) -> dict[str, list[str]]:
    """Every helper declaration an explorer needs, by module, dependencies first.

    ``wanted`` names what the explorer imports from each helper module. A helper module may
    itself import from another (``base.js`` imports its strings from ``strings.js``): a name
    its needed code uses is then needed from that module too. Each module's names come in
    declaration order; a module comes after every module it imports from.
    """
    parsed: dict[str, tuple[dict[str, str], dict[str, str]]] = {}  # module -> (decls, imported)
    needed: dict[str, set[str]] = {}
    todo = [(helper, name) for helper, names in wanted.items() for name in names]
    while todo:
        helper, name = todo.pop()
        if name in needed.setdefault(helper, set()):
            continue
        if helper not in parsed:
            source = (JS / f"{helper}.js").read_text(encoding="utf-8")
            imported = {n: module for module, ns in _imports(source).items() for n in ns}
            parsed[helper] = (_declarations(source), imported)
        declarations, imported = parsed[helper]
        if name not in declarations:
            raise ValueError(f"{helper}.js has no top-level {name!r} to import")
        needed[helper].add(name)
        for word in set(_WORD.findall(declarations[name])):
            if word in declarations:
                todo.append((helper, word))
            elif word in imported:
                todo.append((imported[word], word))
    order: list[str] = []

    def visit(helper: str, path: tuple[str, ...]) -> None:
        if helper in path:
            raise ValueError(f"helper modules import each other: {' -> '.join((*path, helper))}")
        if helper in order:
            return
        for module in dict.fromkeys(parsed[helper][1].values()):
            if module in needed:
                visit(module, (*path, helper))
        order.append(helper)

    for helper in needed:
        visit(helper, ())
    seen: dict[str, str] = {}
    for helper in order:
        for name in needed[helper]:
            if seen.setdefault(name, helper) != helper:
                raise ValueError(f"{seen[name]}.js and {helper}.js both declare {name!r}")
    return {h: [n for n in parsed[h][0] if n in needed[h]] for h in order}


def _inline(helper: str, names: list[str], imported: list[str]) -> str:
    """The declarations ``names`` of ``helper``.js, as plain declarations (``export`` removed);
    ``imported``: what the explorer imports from it, for the heading."""
    declarations = _declarations((JS / f"{helper}.js").read_text(encoding="utf-8"))
    code = "".join(re.sub(r"^export\s+", "", declarations[n], flags=re.M) + "\n" for n in names)
    shown = ", ".join(imported) if imported else "what the helpers above use"
    return f"// ---- from {helper}.js: {shown}\n{code}// ---- end of {helper}.js"


@cache
def bundle(name: str) -> str:
    """``js/<name>.js`` with its imports of helper modules replaced by what it uses.

    The helpers' code (and that of the helper modules they import from) is inlined once,
    where the module's first import stood, each helper module after those it imports from.
    """
    path = JS / f"{name}.js"
    if not path.is_file():
        raise ValueError(f"no explorer module {path.name} in {JS}")
    source = path.read_text(encoding="utf-8")
    wanted = _imports(source)
    helpers = _helpers(wanted)
    inlined = "\n".join(_inline(h, names, wanted.get(h, [])) for h, names in helpers.items())
    code = _IMPORT.sub(lambda _: inlined, source, count=1)  # at the first import ...
    code = _IMPORT.sub("", code)  # ... and the others gone
    if re.search(r"^\s*import\s", code, re.M):
        raise ValueError(f"{path.name} has an import the bundler cannot inline")
    return _own_strings(code)


# the string tables of strings.js: one entry a line, or a key line and its value below it
_TABLE = re.compile(r"^const STRINGS = \{\n(.*?)^\};\n", re.M | re.S)
_ENTRY = re.compile(r'^\s+"(\w+)\.[^"]*":')


def _own_strings(code: str) -> str:
    """``code`` with its string tables (strings.js) cut down to the strings it can ask for:
    those of the namespaces ("attention", "positional", ...) its code names in a literal
    (``t("attention.title")``, ``t(`scaling.option.${name}`)``), and "common". Each widget
    then carries its own words in each language, not every explorer's."""
    table = _TABLE.search(code)
    if not table:
        return code
    rest = code[: table.start()] + code[table.end() :]
    kept, keep = [], True
    for line in table.group(1).splitlines(keepends=True):
        entry = _ENTRY.match(line)
        if entry:
            namespace = entry.group(1)
            keep = namespace == "common" or re.search(rf"[\"'`]{namespace}\.", rest) is not None
        elif not line.startswith("      "):  # a language's opening or closing line, a comment
            keep = not line.lstrip().startswith("//") and bool(line.strip())
            if line.strip().endswith(("{", "},")):
                keep = True
        if keep:
            kept.append(line)
    return code[: table.start(1)] + "".join(kept) + code[table.end(1) :]


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
    holding a task line (what to try, what to look for), the controls, an ``<svg>`` and its
    legend; controls are ``<input type="range">``, ``<select>``, word buttons or checkboxes;
    moving any of them redraws the SVG.

    Every explorer takes two keyword arguments of its own:

    - ``task``: the chapter's own task line, shown instead of the explorer's default one: a
      string, or one string per language (``{"en": ..., "zh": ...}``, for a widget that the
      Chinese edition shows as the English build saved it);
    - ``language``: ``"en"`` or ``"zh"`` for the words of the explorer (js/strings.js), or
      ``""`` (the default) for the language of the page it is shown in.
    """

    _module: str = ""
    _esm = _Bundled(bundle)
    _css = _Bundled(lambda _module: stylesheet())

    task = traitlets.Union(
        [traitlets.Unicode(), traitlets.Dict(key_trait=traitlets.Enum(LANGUAGES))], default_value=""
    ).tag(sync=True)
    language = traitlets.Enum(("", *LANGUAGES), "").tag(sync=True)
