"""The Chinese edition (issue 32): gettext catalogues of the book's prose, and the Chinese
sources built from them.

The prose is translated at the source level, one Markdown block at a time, the way Python's
own documentation is translated (gettext catalogues, one per document), but without Sphinx's
gettext builder: the Chinese sources are the English build's *executed* notebooks with their
Markdown replaced, so every output, glued value and widget is the English build's and no
chapter runs a second time.

Commands (``.venv/bin/python site/i18n.py COMMAND``):

- ``extract``: print every message of every document: its catalogue, location, kind and
  first line (``counts``: the number of messages and English words of each catalogue).
- ``update`` (``make translations``): merge the messages into
  ``locales/zh_CN/LC_MESSAGES/<document>.po``: a new message is added untranslated, a changed
  one becomes *fuzzy* with its old translation kept (and the old English as ``#| msgid``),
  one that is gone becomes obsolete (``#~``).
- ``check``: list every message that is untranslated or fuzzy (also those the catalogues do
  not hold yet); exit status 1 if there is any. ``make test`` runs it.
- ``apply``: write the Chinese sources to ``_build/zh-src`` (after the English build): the
  executed notebooks and the pages translated, a ``_config.yml`` and ``_toc.yml`` for them.
- ``publish``: copy the Chinese site (``_build/zh/_build/html``) to ``_build/html/zh-cn``.

**What a message is.** One Markdown block: a heading (its text, without the ``#``), a
paragraph, a whole list, a whole table, a definition list, an HTML block with text; in a
block quote and in a directive's body, each block inside (recursively); a directive's title
(admonitions, cards), its ``:alt:`` and ``:img-alt:`` options; in the glossary, each term
line and each block of its definition; a figure caption (``mystnb.figure.caption`` in a code
cell's metadata) and a solution button's label (``code_prompt_show``/``_hide``). Never
a message: code, display math (``$$``), label lines ``(x)=``, other directive options,
``{eval-rst}`` and other code-like directives, HTML blocks without text, comments, cell
outputs. Roles (``{glue:text}`name```, ``{cite:p}`key```, ``{doc}`page```) stay verbatim in
the message and must be kept in its translation.

A message without a translation (or with a fuzzy one) stays English in the Chinese sources.
The site's own strings (the theme's strings its Chinese catalogue lacks, and the strings the
site's scripts mark with ``_()``) are in the catalogue ``sphinx.po`` of the same folder.
"""

from __future__ import annotations

import argparse
import ast
import copy
import functools
import html
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
LOCALE = "zh_CN"  # Sphinx's language and the catalogues' folder
LANG_TAG = "zh-CN"  # the pages' lang attribute
FOLDER = "zh-cn"  # where the Chinese site sits in the English one, and its Colab notebooks
LOCALES = ROOT / "locales"
MESSAGES = LOCALES / LOCALE / "LC_MESSAGES"
SEARCH_WORDS = LOCALES / LOCALE / "search_words.txt"  # jieba's user dictionary
SITE_DOMAIN = "sphinx"  # the site's and the theme's own strings
TOC_DOMAIN = "_toc"  # the book's title, author and the table of contents' captions
PROJECT = "Attention, Explained"
HEADER = """\
# Attention, Explained in Simplified Chinese: one catalogue per page
# (README, "The Chinese edition"). Each msgid is one Markdown block of
# the English source; its msgstr is Markdown too, and keeps every role
# ({glue:text}`…`, {cite:p}`…`, {doc}`…`), math ($…$), code span and
# link target as it is. After an English change: `make translations`;
# `.venv/bin/python site/i18n.py check` lists what is left to do.
#"""

# directives whose argument is a title (a message); their body is Markdown
TITLED = {
    "admonition", "note", "tip", "hint", "important", "warning", "caution", "attention",
    "danger", "error", "seealso", "dropdown", "margin", "sidebar", "topic", "table",
    "grid-item-card", "card", "tab-item",
}  # fmt: skip
# directives whose argument is no text (a path, a key, a layout) but whose body is Markdown
BODY = {"figure", "glue:figure", "grid", "grid-item", "tab-set", "div", "container",
        "epigraph", "pull-quote", "highlights"}  # fmt: skip
# directives with no message in their body (code, math, rst, generated content)
OPAQUE = {
    "eval-rst", "code-block", "code", "code-cell", "sourcecode", "math", "raw", "bibliography",
    "include", "glue", "glue:any", "glue:md", "glue:text", "glue:math", "image", "toctree",
    "tableofcontents", "literalinclude", "list-table", "csv-table",
}  # fmt: skip
TEXT_OPTIONS = ("alt", "img-alt")
# block tokens that are never messages
SKIP_TOKENS = {
    "math_block", "math_block_label", "amsmath", "myst_target", "myst_line_comment",
    "myst_block_break", "hr", "front_matter", "footnote_reference_open",
}  # fmt: skip
TEXT_TOKENS = {
    "paragraph_open", "bullet_list_open", "ordered_list_open", "table_open", "dl_open",
    "footnote_block_open",
}  # fmt: skip


class I18nError(ValueError):
    """A construct the cutter does not know (name it here before using it)."""


# --------------------------------------------------------------------------- cutting


@dataclass(frozen=True)
class Message:
    """One message: its English text, where it is, and what kind of block it is."""

    id: str
    where: str  # "notebooks/02_attention.ipynb"
    line: int  # the source line (.md) or the cell's number from 1 (.ipynb)
    kind: str  # "paragraph", "heading", "figure caption", …


#: msgid -> the text to put in its place (the translation, or the msgid itself)
Translate = Callable[[str, str], str]  # (msgid, kind) -> text


@functools.cache
def _parser():
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    extensions = set(config.get("parse", {}).get("myst_enable_extensions", []))
    return create_md_parser(MdParserConfig(enable_extensions=extensions), RendererHTML)


_HEADING = re.compile(r"^(?P<head> {0,3}#{1,6}[ \t]+)(?P<text>.*?)(?P<tail>[ \t]+#+)?[ \t]*$")
_DIRECTIVE = re.compile(
    r"^(?P<fence> *(?:`{3,}|:{3,})\{(?P<name>[^}\s]+)\})(?P<space>[ \t]*)(?P<arg>.*?)\s*$"
)
_OPTION = re.compile(r"^(?P<key>\s*:(?P<name>[\w-]+):)(?P<space>\s*)(?P<value>.*?)\s*$")
_QUOTE = re.compile(r"^( {0,3}> ?)")
_TAG = re.compile(r"<[^>]*>|&\w+;|&#\d+;")


def _indent(lines: list[str]) -> str:
    widths = [len(ln) - len(ln.lstrip(" ")) for ln in lines if ln.strip()]
    return " " * min(widths) if widths else ""


_CODE_OR_MATH = re.compile(
    r"\{[\w:+.-]+\}(`+).*?(?<!`)\1(?!`)|(`+).*?(?<!`)\2(?!`)|\$\$.*?\$\$|\$[^$]*\$", re.S
)
# a place the build fills in (a card's reading time)
_PLACEHOLDER = re.compile(r'^\s*<(span|div)\b[^>]*\bclass="attnbook-[^"]*"[^>]*>[^<]*</\1>\s*$')


def has_text(text: str) -> bool:
    """Whether a block holds words to translate (not only code, math, roles and tags)."""
    if _PLACEHOLDER.match(text):
        return False
    return bool(re.search(r"[^\W\d_]", _TAG.sub("", _CODE_OR_MATH.sub("", text))))


def _message(lines: list[str], kind: str, tr: Translate) -> list[str]:
    """A block as one message: dedented for the catalogue, indented again after."""
    pad = _indent(lines)
    text = "\n".join(ln[len(pad) :] if ln.strip() else ln.strip() for ln in lines)
    if not has_text(text):
        return lines
    done = tr(text, kind)
    if done == text:
        return lines
    return [(pad + ln) if ln.strip() else "" for ln in done.split("\n")]


def translate_markdown(text: str, tr: Translate) -> str:
    """``text`` (a page, a Markdown cell, a directive's body) with every message passed
    through ``tr``; with ``tr`` returning its msgid, ``text`` exactly as it was."""
    lines = text.split("\n")
    tokens = _parser().parse(text)
    out: list[str] = []
    pos = 0
    for token in tokens:
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        start, end = token.map
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1  # a block's trailing blank lines stay between blocks
        if start < pos:
            raise I18nError(f"overlapping blocks at line {start + 1}: {lines[start]!r}")
        out.extend(lines[pos:start])
        out.extend(_block(token, lines[start:end], tr))
        pos = end
    out.extend(lines[pos:])
    return "\n".join(out)


def _block(token, lines: list[str], tr: Translate) -> list[str]:
    kind = token.type
    if kind == "heading_open":
        m = _HEADING.match(lines[0]) if len(lines) == 1 else None
        if m is None:  # a setext heading: the lines as they are
            return _message(lines, "heading", tr)
        done = tr(m["text"], "heading") if has_text(m["text"]) else m["text"]
        return lines if done == m["text"] else [m["head"] + done + (m["tail"] or "")]
    if kind in TEXT_TOKENS:
        return _message(lines, kind.removesuffix("_open").replace("_", " "), tr)
    if kind == "blockquote_open":
        return _blockquote(lines, tr)
    if kind == "html_block":
        if _TAG.sub("", "\n".join(lines)).strip():
            return _message(lines, "html", tr)
        return lines
    if kind in ("fence", "colon_fence"):
        if token.info.strip().startswith("{"):
            return _directive(lines, tr)
        return lines  # code
    if kind in SKIP_TOKENS:
        return lines
    raise I18nError(f"unknown Markdown block {kind!r}: {lines[0]!r}; name it in site/i18n.py")


def _blockquote(lines: list[str], tr: Translate) -> list[str]:
    inner, prefixes = [], []
    for ln in lines:
        m = _QUOTE.match(ln)
        prefixes.append(m.group(1) if m else "")
        inner.append(ln[m.end() :] if m else ln)
    text = "\n".join(inner)
    done = translate_markdown(text, tr)
    if done == text:
        return lines
    return [("> " + ln) if ln.strip() else ">" for ln in done.split("\n")]


def _directive(lines: list[str], tr: Translate) -> list[str]:
    m = _DIRECTIVE.match(lines[0])
    if m is None:
        raise I18nError(f"cannot read the directive line {lines[0]!r}")
    name, arg = m["name"], m["arg"]
    if name in OPAQUE:
        out = list(lines)
        for j in range(1, len(lines) - 1):  # an image's alt text
            o = _OPTION.match(lines[j])
            if not o:
                break
            if o["name"] in TEXT_OPTIONS and o["value"]:
                out[j] = f"{o['key']}{o['space']}{tr(o['value'], 'alt text')}"
        return out
    if name not in TITLED and name not in BODY and name != "glossary":
        raise I18nError(f"unknown directive {{{name}}}: name it in site/i18n.py")
    closed = len(lines) > 1 and lines[-1].strip() and set(lines[-1].strip()) <= set("`:")
    body_end = len(lines) - 1 if closed else len(lines)
    out = [lines[0]]
    if name in TITLED and arg:
        done = tr(arg, "title")
        out[0] = f"{m['fence']}{m['space']}{done}"
    j = 1
    if j < body_end and lines[j].strip() == "---":  # YAML options: kept as they are
        k = next((k for k in range(j + 1, body_end) if lines[k].strip() == "---"), body_end - 1)
        out.extend(lines[j : k + 1])
        j = k + 1
    while j < body_end:
        o = _OPTION.match(lines[j])
        if not o:
            break
        if o["name"] in TEXT_OPTIONS and o["value"]:
            out.append(f"{o['key']}{o['space']}{tr(o['value'], 'alt text')}")
        else:
            out.append(lines[j])
        j += 1
    body = lines[j:body_end]
    if name == "glossary":
        out.extend(_glossary(body, tr))
    else:
        text = "\n".join(body)
        out.extend(translate_markdown(text, tr).split("\n") if body else [])
    out.extend(lines[body_end:])
    return out if out != lines else lines


def _glossary(lines: list[str], tr: Translate) -> list[str]:
    """Each group of term lines is a message, each definition is Markdown."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            out.append(lines[i])
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip() and not lines[j].startswith((" ", "\t")):
            j += 1
        if j > i:
            out.extend(_message(lines[i:j], "term", tr))
            i = j
            continue
        while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
            j += 1
        while j > i and not lines[j - 1].strip():
            j -= 1
        pad = _indent(lines[i:j])
        text = "\n".join(ln[len(pad) :] for ln in lines[i:j])
        done = translate_markdown(text, tr)
        if done == text:
            out.extend(lines[i:j])
        else:
            out.extend((pad + ln) if ln else ln for ln in done.split("\n"))
        i = j
    return out


# --------------------------------------------------------------------------- documents


@dataclass(frozen=True)
class Document:
    """A page of the book: its name (the catalogue's path) and its source file."""

    name: str  # "notebooks/02_attention", the catalogue locales/…/<name>.po
    path: Path  # the source, relative to the repository

    @property
    def catalogue(self) -> Path:
        return MESSAGES / f"{self.name}.po"


def documents(root: Path = ROOT) -> list[Document]:
    """Every document of ``_toc.yml`` in order, then the files they include."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(node) -> None:
        if isinstance(node, dict):
            if "file" in node:
                names.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in toc.items() if k != "root"})
    docs = []
    for name in names:
        name = re.sub(r"\.(md|ipynb)$", "", name)
        path = next(
            (Path(f"{name}{s}") for s in (".md", ".ipynb") if (root / f"{name}{s}").is_file()),
            None,
        )
        if path is None:
            raise I18nError(f"_toc.yml names {name}, which has no .md or .ipynb")
        docs.append(Document(name, path))
    for doc in list(docs):
        if doc.path.suffix == ".md":
            text = (root / doc.path).read_text(encoding="utf-8")
            for m in re.finditer(r"^\s*[`:]{3,}\{include\}\s*(\S+)", text, re.M):
                included = (doc.path.parent / m[1]).as_posix()
                docs.append(Document(re.sub(r"\.md$", "", included), Path(included)))
    return docs


def _cards_text(root: Path) -> str:
    """The landing page's cards (``site/make_cards.py`` writes them at build time)."""
    sys.path.insert(0, str(HERE))
    import make_cards

    return make_cards.card_grid(make_cards.chapters())


def document_text(doc: Document, root: Path = ROOT) -> str:
    path = root / doc.path
    if path.is_file():
        return path.read_text(encoding="utf-8")
    if doc.path.as_posix() == "book/images/cards/cards.md":
        return _cards_text(root)
    raise I18nError(f"{doc.path} is missing")


def _cell_source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def translate_notebook(nb: dict, tr: Callable[[str, str, int], str]) -> dict:
    """A copy of the notebook (its JSON) with its messages passed through ``tr(msgid, kind,
    cell number)``; code cells' source and outputs are left as they are."""
    nb = copy.deepcopy(nb)
    for number, cell in enumerate(nb["cells"], start=1):

        def here(text: str, kind: str, number=number) -> str:
            return tr(text, kind, number)

        if cell["cell_type"] == "markdown":
            text = _cell_source(cell)
            done = translate_markdown(text, here)
            if done != text:
                as_list = isinstance(cell["source"], list)
                cell["source"] = done.splitlines(keepends=True) if as_list else done
        elif cell["cell_type"] == "code":
            mystnb = cell.get("metadata", {}).get("mystnb", {})
            figure = mystnb.get("figure", {})
            if figure.get("caption"):
                figure["caption"] = here(figure["caption"], "figure caption")
            for key in ("code_prompt_show", "code_prompt_hide"):
                if mystnb.get(key):
                    mystnb[key] = here(mystnb[key], "button")
    return nb


def messages(doc: Document, root: Path = ROOT) -> list[Message]:
    """The messages of one document, in the order they appear."""
    found: list[Message] = []
    where = doc.path.as_posix()
    if doc.path.suffix == ".ipynb":
        nb = json.loads((root / doc.path).read_text(encoding="utf-8"))

        def record(text: str, kind: str, number: int) -> str:
            found.append(Message(text, where, number, kind))
            return text

        translate_notebook(nb, record)
        return found
    text = document_text(doc, root)
    lines = text.split("\n")

    def record_md(msgid: str, kind: str) -> str:
        first = msgid.split("\n", 1)[0]
        line = next((n for n, ln in enumerate(lines, 1) if first.strip() in ln), 0)
        found.append(Message(msgid, where, line, kind))
        return msgid

    translate_markdown(text, record_md)
    return found


def toc_messages(root: Path = ROOT) -> list[Message]:
    """The book's title and author (``_config.yml``) and the toc's captions (``_toc.yml``)."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    found = [
        Message(config["title"], "_config.yml", 0, "book title"),
        Message(config["author"], "_config.yml", 0, "author"),
    ]
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    for part in toc.get("parts", []):
        if part.get("caption"):
            found.append(Message(part["caption"], "_toc.yml", 0, "caption"))
    return found


# the theme's strings that its Chinese catalogue translates, but not as mainland Chinese does
THEME_OVERRIDES = ("Print to PDF", "© Copyright %(copyright)s.")


def theme_gaps() -> list[str]:
    """The theme's strings its Chinese catalogues leave untranslated (pydata-sphinx-theme's
    ``zh`` and sphinx-book-theme's ``zh_CN``, and Sphinx's own), and ``THEME_OVERRIDES``."""
    import pydata_sphinx_theme
    import sphinx
    import sphinx_book_theme

    def translated(po: Path) -> set[str]:
        return {m.id for m in _read(po) if m.id and m.string} if po.is_file() else set()

    pydata = Path(pydata_sphinx_theme.__file__).parent / "locale"
    book = Path(sphinx_book_theme.__file__).parent / "theme" / "sphinx_book_theme"
    done = translated(pydata / "zh" / "LC_MESSAGES" / "sphinx.po")
    done |= translated(
        Path(sphinx.__file__).parent / "locale" / LOCALE / "LC_MESSAGES" / "sphinx.po"
    )
    done |= translated(book / "static" / "locales" / LOCALE / "LC_MESSAGES" / "booktheme.po")
    wanted = [m.id for m in _read(pydata / "sphinx.pot") if m.id]
    used = re.compile(r"""\btranslat(?:e|ion)\(\s*(["'])(.+?)\1\s*\)""")
    for path in sorted(Path(sphinx_book_theme.__file__).parent.rglob("*")):
        if path.suffix in (".py", ".html"):
            wanted += [m[2] for m in used.finditer(path.read_text(encoding="utf-8"))]
    gaps = [m for m in dict.fromkeys(wanted) if m not in done]
    return gaps + [m for m in THEME_OVERRIDES if m not in gaps]


def _read(po: Path):
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        return read_po(f)


SITE_SCRIPTS = ("attnbook_site.py", "attnbook_colab.py", "notebooks_for_colab.py")


def site_messages() -> list[Message]:
    """The theme's missing strings and the strings the site's scripts mark with ``_()``."""
    from babel.messages.extract import extract_from_file

    found = [Message(s, "the theme", 0, "theme") for s in theme_gaps()]
    for template in sorted((HERE / "templates").rglob("*.html")):
        text = template.read_text(encoding="utf-8")
        for m in re.finditer(r"""\b_\(\s*(["'])(.+?)\1\s*\)""", text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(Message(m[2], f"site/{template.relative_to(HERE)}", line, "theme"))
    for name in SITE_SCRIPTS:
        for line, text, comments, _ in extract_from_file(
            "python",
            HERE / name,
            keywords={"_": None, "N_": None},
            comment_tags=("TRANSLATORS:",),
        ):
            found.append(Message(text, f"site/{name}", line, " ".join(comments) or "site"))
    return found


def all_messages(root: Path = ROOT) -> dict[str, list[Message]]:
    """Catalogue name -> its messages."""
    out = {doc.name: messages(doc, root) for doc in documents(root)}
    out[TOC_DOMAIN] = toc_messages(root)
    out[SITE_DOMAIN] = site_messages()
    return out


# --------------------------------------------------------------------------- catalogues


def template(name: str, found: list[Message]):
    """The catalogue template (a .pot) of one document."""
    from babel.messages.catalog import Catalog

    catalogue = Catalog(project=PROJECT, domain=name.replace("/", "."), fuzzy=False)
    for m in found:
        if not m.id.strip():
            continue
        entry = catalogue.get(m.id)
        if entry is None:
            catalogue.add(m.id, locations=[(m.where, m.line)], auto_comments=[m.kind])
        else:
            entry.locations.append((m.where, m.line))
    for entry in catalogue:
        entry.flags.discard("python-format")
        entry.flags.discard("python-brace-format")
    return catalogue


def read_catalogue(path: Path):
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po

    if path.is_file():
        with path.open("rb") as f:
            catalogue = read_po(f, locale=LOCALE)
        previous = _previous_ids(path.read_text(encoding="utf-8"))
        for entry in catalogue:
            # Babel reads "#|" lines as comments: they are the previous msgid, read here
            entry.user_comments = [c for c in entry.user_comments if not c.startswith("|")]
            if entry.id in previous:
                entry.previous_id = [previous[entry.id]]
        return catalogue
    return Catalog(
        locale=LOCALE,
        project=PROJECT,
        domain=path.stem,
        header_comment=HEADER,
        copyright_holder=f"The {PROJECT} authors",
        language_team="Chinese (Simplified)",
        fuzzy=False,
    )


_QUOTED = r'"(?:[^"\\]|\\.)*"'
_PREVIOUS = re.compile(
    rf"^#\| msgid ((?:{_QUOTED}\n#\| )*{_QUOTED})\nmsgid ((?:{_QUOTED}\n)+)", re.M
)


def _previous_ids(text: str) -> dict[str, str]:
    """msgid -> the English it had before (``#| msgid``), as written by ``write_catalogue``."""
    from babel.messages.pofile import denormalize

    return {
        denormalize(m[2]): denormalize(m[1].replace('\n#| "', '\n"'))
        for m in _PREVIOUS.finditer(text)
    }


def merged(name: str, found: list[Message]):
    """The document's catalogue merged with its current messages (as ``update`` writes it)."""
    catalogue = read_catalogue(MESSAGES / f"{name}.po")
    # Babel keeps a fuzzy message's old English (#| msgid) only on the update that made it
    hints = {m.id: m.previous_id for m in catalogue if m.id and m.fuzzy and m.previous_id}
    catalogue.update(template(name, found), update_creation_date=False)
    for entry in catalogue:
        if entry.fuzzy and not entry.previous_id and entry.id in hints:
            entry.previous_id = hints[entry.id]
    for entry in catalogue:
        entry.flags.discard("python-format")
        entry.flags.discard("python-brace-format")
    return catalogue


def write_catalogue(catalogue, path: Path) -> bool:
    """Write the catalogue; False when the file already says the same."""
    from io import BytesIO

    from babel.messages.pofile import normalize, write_po

    buffer = BytesIO()
    # one line of the PO file per line of Markdown (no wrapping inside a sentence); the old
    # English of a fuzzy message as "#| msgid" (Babel's own wraps it into broken lines)
    write_po(buffer, catalogue, width=0, include_previous=False, sort_output=False)
    text = buffer.getvalue().decode("utf-8")
    for entry in catalogue:
        if entry.fuzzy and entry.previous_id and entry.id:
            block = f"msgid {normalize(entry.id, width=0)}\nmsgstr"
            old = normalize(entry.previous_id[0], width=0).replace('\n"', '\n#| "')
            text = text.replace(block, f"#| msgid {old}\n{block}", 1)
    data = text.encode("utf-8")
    if path.is_file() and _without_dates(path.read_bytes()) == _without_dates(data):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _without_dates(data: bytes) -> bytes:
    return re.sub(rb'"(POT-Creation-Date|PO-Revision-Date): [^"]*"\n', b"", data)


def update(root: Path = ROOT) -> int:
    for name, found in all_messages(root).items():
        catalogue = merged(name, found)
        changed = write_catalogue(catalogue, MESSAGES / f"{name}.po")
        print(f"{name}.po: {len(catalogue)} messages" + ("" if changed else " (unchanged)"))
    return 0


@dataclass
class Status:
    """What a catalogue still needs."""

    name: str
    total: int
    untranslated: list
    fuzzy: list

    @property
    def done(self) -> int:
        return self.total - len(self.untranslated) - len(self.fuzzy)


def status(root: Path = ROOT) -> list[Status]:
    out = []
    for name, found in all_messages(root).items():
        catalogue = merged(name, found)
        entries = [m for m in catalogue if m.id]
        out.append(
            Status(
                name,
                len(entries),
                [m for m in entries if not m.string and not m.fuzzy],
                [m for m in entries if m.fuzzy],
            )
        )
    return out


def _where(entry) -> str:
    where = ", ".join(f"{f}:{n}" for f, n in entry.locations[:2]) or "?"
    first = entry.id.split("\n", 1)[0]
    return f"{where}: {first[:70]}{'…' if len(first) > 70 or chr(10) in entry.id else ''}"


def check(root: Path = ROOT, quiet: bool = False) -> int:
    """Exit status 1 and a list when any message is untranslated or fuzzy."""
    results = status(root)
    total = sum(s.total for s in results)
    todo = sum(len(s.untranslated) + len(s.fuzzy) for s in results)
    for s in results:
        print(
            f"{s.name}.po: {s.done}/{s.total} translated, {len(s.untranslated)} untranslated, "
            f"{len(s.fuzzy)} fuzzy"
        )
        if not quiet:
            for entry in s.fuzzy:
                print(f"  fuzzy        {_where(entry)}")
            for entry in s.untranslated:
                print(f"  untranslated {_where(entry)}")
    print(f"{todo} of {total} messages untranslated or fuzzy" if todo else f"all {total} done")
    return 1 if todo else 0


# --------------------------------------------------------------------------- the Chinese sources


def translations(name: str) -> dict[str, str]:
    """msgid -> translation, for the messages translated and not fuzzy."""
    catalogue = read_catalogue(MESSAGES / f"{name}.po")
    return {m.id: m.string for m in catalogue if m.id and m.string and not m.fuzzy}


def translator(name: str) -> Callable[..., str]:
    table = translations(name)
    return lambda msgid, *_: table.get(msgid, msgid)


def _write(path: Path, data: bytes) -> None:
    """Write only what changed, so that Sphinx re-reads only what changed."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


GLUE_NOTE = "# The values this chapter glued, as the English build computed them (site/i18n.py)"


def glue_cell(nb: dict, glued: dict) -> dict | None:
    """A hidden cell holding the glued values the executed notebook no longer shows.

    myst-nb keeps the values glued with ``display=False`` in ``<chapter>.glue.json`` and
    drops them from the notebook it writes; a build that does not execute reads glued
    values from the notebook's outputs only, so they go back in, in one cell at the end.
    """
    shown = {name for name, _ in glued_outputs(nb)}
    outputs = []
    for name, out in glued.items():
        if name in shown:
            continue
        out = copy.deepcopy(out)
        prefix = out.get("metadata", {}).get("scrapbook", {}).get("mime_prefix", "")
        out["data"] = {prefix + k: v for k, v in out["data"].items()}
        outputs.append(out)
    if not outputs:
        return None
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": "attnbook-glued-values",
        "metadata": {"tags": ["remove-cell"]},
        "outputs": outputs,
        "source": GLUE_NOTE,
    }


def notebook_bytes(nb: dict) -> bytes:
    """A notebook's JSON as nbformat writes it."""
    return (json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def zh_config(root: Path, toc_tr: Callable[..., str]) -> dict:
    """The English ``_config.yml`` for the Chinese sources."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    config["title"] = toc_tr(config["title"])
    config["author"] = toc_tr(config["author"])
    config["execute"] = {**config.get("execute", {}), "execute_notebooks": "off"}
    config["only_build_toc_files"] = True
    html_options = config.setdefault("html", {})
    if html_options.get("baseurl"):
        html_options["baseurl"] = html_options["baseurl"].rstrip("/") + f"/{FOLDER}/"
    sphinx = config.setdefault("sphinx", {})
    sphinx["local_extensions"] = {
        name: str((root / path).resolve()) for name, path in sphinx["local_extensions"].items()
    }
    options = sphinx.setdefault("config", {})
    for key in ("html_static_path", "html_extra_path"):
        if key in options:
            options[key] = [str((root / p).resolve()) for p in options[key]]
    options["language"] = LOCALE
    options["html_search_language"] = "zh"
    options["html_search_options"] = {"dict": str(SEARCH_WORDS.resolve())}
    return config


def zh_toc(root: Path, toc_tr: Callable[..., str]) -> dict:
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    for part in toc.get("parts", []):
        if part.get("caption"):
            part["caption"] = toc_tr(part["caption"])
    return toc


def apply(root: Path = ROOT, build: Path | None = None, out: Path | None = None) -> int:
    """Write the Chinese sources from the English build's executed notebooks."""
    build = build or root / "_build"
    out = out or build / "zh-src"
    executed = build / "jupyter_execute"
    written: set[Path] = set()
    fallback = 0
    english: list[str] = []  # glued values that glued.yml does not put into Chinese
    for doc in documents(root):
        tr = translator(doc.name)
        missing = []

        def counted(msgid: str, *_, tr=tr, missing=missing) -> str:
            done = tr(msgid)
            if done == msgid:
                missing.append(msgid)
            return done

        if doc.path.suffix == ".ipynb":
            source = executed / doc.path
            if not source.is_file():
                raise FileNotFoundError(f"{source} is missing: build the English book first")
            nb = translate_notebook(json.loads(source.read_text(encoding="utf-8")), counted)
            stored = source.with_suffix(".glue.json")
            if stored.is_file():
                cell = glue_cell(nb, json.loads(stored.read_text(encoding="utf-8")))
                nb["cells"] += [cell] if cell else []
            english += translate_glued_outputs(nb, glued_words(root))
            data = notebook_bytes(nb)
        else:
            data = translate_markdown(document_text(doc, root), counted).encode("utf-8")
        fallback += len(missing)
        _write(out / doc.path, data)
        written.add(out / doc.path)
    # what the pages use beside their text: images (the cards' pictures too), the bibliography
    labels = figure_labels(root)
    cards = root / "book" / "images" / "cards"
    for src in sorted((root / "book").rglob("*")):
        rel = src.relative_to(root)
        if src.parent == cards / CARDS_FOLDER:
            continue  # the cards' Chinese pictures, copied in place of the English ones
        if src.is_file() and src.suffix != ".md" and out / rel not in written:
            chinese = cards / CARDS_FOLDER / src.name
            if src.suffix == ".svg":  # the book's own figures, their words in Chinese
                _write(out / rel, localise_svg(src.read_text("utf-8"), labels).encode("utf-8"))
            elif src.parent == cards and src.suffix == ".png":
                if not chinese.is_file():
                    raise FileNotFoundError(f"{chinese} is missing: run site/make_cards.py")
                _write(out / rel, chinese.read_bytes())
            else:
                _write(out / rel, src.read_bytes())
    toc_tr = translator(TOC_DOMAIN)
    config = zh_config(root, toc_tr)
    head = "# Generated by site/i18n.py apply from _config.yml: edit that, not this.\n"
    text = head + yaml.safe_dump(config, allow_unicode=True, sort_keys=False)
    _write(out / "_config.yml", text.encode("utf-8"))
    toc = zh_toc(root, toc_tr)
    _write(out / "_toc.yml", yaml.safe_dump(toc, allow_unicode=True, sort_keys=False).encode())
    print(f"wrote {out} ({fallback} messages left in English)")
    if english:
        print(
            f"{len(english)} glued values left in English (add their words to "
            f"locales/{LOCALE}/{GLUED}):\n  " + "\n  ".join(english)
        )
    return 0


FIGURE_LABELS = "figure_labels.yml"
CARDS_FOLDER = "zh_CN"  # book/images/cards/zh_CN: the cards drawn in Chinese (make_cards.py)
# a label drawn in a figure: the words of a <text> element that is not set in monospace
# (monospace labels name the package's classes and stay as they are)
_SVG_TEXT = re.compile(r"(<text\b(?![^>]*monospace)[^>]*>)([^<]*)(</text>)")


def figure_labels(root: Path = ROOT) -> dict[str, str]:
    """The Chinese words of the book's own figures (``locales/zh_CN/figure_labels.yml``)."""
    path = root / "locales" / LOCALE / FIGURE_LABELS
    return yaml.safe_load(path.read_text("utf-8")) if path.is_file() else {}


def figure_words(svg: str) -> list[str]:
    """The words of an SVG figure that a reader reads (not the monospace class names)."""
    words = [m.group(2) for m in _SVG_TEXT.finditer(svg)]
    return [w for w in words if re.search(r"[A-Za-z]{2}", html.unescape(w))]


def localise_svg(svg: str, labels: dict[str, str]) -> str:
    """The SVG with each label that ``labels`` translates replaced by its translation."""
    return _SVG_TEXT.sub(
        lambda m: m.group(1) + labels.get(m.group(2), m.group(2)) + m.group(3), svg
    )


# --------------------------------------------------------------------------- glued values

GLUED = "glued.yml"
_CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef]")
_WORD = re.compile(r"[^\W\d][\w'-]*")  # a word, or a name such as ε_ls or d_model


@dataclass(frozen=True)
class GluedWords:
    """The Chinese of the words in glued values (``locales/zh_CN/glued.yml``)."""

    exact: dict[str, str]
    templates: list[tuple[re.Pattern, str]]  # the most specific first
    phrases: list[tuple[re.Pattern, str]]  # the longest first
    kept_words: frozenset[str]
    kept_values: frozenset[str]  # glue names


@functools.cache
def glued_words(root: Path = ROOT) -> GluedWords:
    path = root / "locales" / LOCALE / GLUED
    data = yaml.safe_load(path.read_text("utf-8")) if path.is_file() else {}
    values = data.get("values") or {}
    exact = {k: v for k, v in values.items() if "{}" not in k}
    patterns = sorted(
        (k for k in values if "{}" in k), key=lambda k: len(k.replace("{}", "")), reverse=True
    )
    templates = [
        (re.compile("(.+?)".join(re.escape(part) for part in k.split("{}"))), values[k])
        for k in patterns
    ]
    phrases = sorted((data.get("phrases") or {}).items(), key=lambda kv: -len(kv[0]))
    return GluedWords(
        exact=exact,
        templates=templates,
        phrases=[(re.compile(rf"(?<![\w-]){re.escape(k)}(?![\w-])"), v) for k, v in phrases],
        kept_words=frozenset(data.get("kept_words") or ()),
        kept_values=frozenset(data.get("kept_values") or ()),
    )


def translate_glued(text: str, words: GluedWords) -> str:
    """One glued value (or a glued table's cell) in Chinese: the whole of it if
    ``glued.yml`` has it, else each "; "-separated part, else the first template that
    matches it all (what its {} matched translated the same way), else its phrases."""
    if text in words.exact:
        return words.exact[text]
    if "; " in text:
        return "；".join(translate_glued(part, words) for part in text.split("; "))
    for pattern, chinese in words.templates:
        m = pattern.fullmatch(text)
        if m:
            return chinese.format(*(translate_glued(g, words) for g in m.groups()))
    for pattern, chinese in words.phrases:
        text = pattern.sub(chinese, text)
    return text


def english_left(text: str, words: GluedWords) -> bool:
    """Whether a value on a Chinese page still reads as English: words that are not kept
    (units, names, identifiers with "_") and no Chinese beside them."""
    english = [
        w
        for w in _WORD.findall(text)
        if re.search(r"[A-Za-z]{2}", w) and "_" not in w and w not in words.kept_words
    ]
    return bool(english) and not _CJK.search(text)


def _table_cells(markdown: str, f: Callable[[str], str]) -> str:
    """A Markdown table with ``f`` applied to each cell (the separator row kept)."""
    lines = []
    for line in markdown.split("\n"):
        if line.startswith("|") and not re.fullmatch(r"[|:\- ]+", line):
            cells = line.strip().strip("|").split("|")
            line = "| " + " | ".join(f(c.strip()) for c in cells) + " |"
        lines.append(line)
    return "\n".join(lines)


def glued_outputs(nb: dict) -> Iterator[tuple[str, dict]]:
    """(name, output) for each glued value the notebook holds."""
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                yield name, out


def translate_glued_outputs(nb: dict, words: GluedWords) -> list[str]:
    """The notebook's glued text and Markdown tables in Chinese, in place; returns what
    still reads as English (``name: value``)."""
    left: list[str] = []
    for name, out in glued_outputs(nb):
        if name in words.kept_values:
            continue
        for key, value in out.get("data", {}).items():
            source = "".join(value) if isinstance(value, list) else value
            if key.endswith("text/markdown"):

                def cell(text: str, name=name) -> str:
                    done = translate_glued(text, words)
                    if english_left(done, words):
                        left.append(f"{name}: {text}")
                    return done

                out["data"][key] = _table_cells(source, cell)
            elif key.endswith("text/plain"):
                try:
                    text = ast.literal_eval(source)
                except (ValueError, SyntaxError):
                    continue  # a display object's repr, shown by its other types
                if not isinstance(text, str):
                    continue
                done = translate_glued(text, words)
                if english_left(done, words):
                    left.append(f"{name}: {text}")
                out["data"][key] = repr(done)
    return left


def publish(build: Path | None = None) -> int:
    """The Chinese site into the English one, at ``zh-cn/``."""
    build = build or ROOT / "_build"
    source, target = build / "zh" / "_build" / "html", build / "html" / FOLDER
    if not (source / "index.html").is_file():
        raise FileNotFoundError(f"no Chinese site in {source}")
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".buildinfo"))
    print(f"copied {source} to {target}")
    return 0


# --------------------------------------------------------------------------- the command


def _print_messages(root: Path) -> int:
    for name, found in all_messages(root).items():
        for m in found:
            print(f"{name}\t{m.where}:{m.line}\t{m.kind}\t{m.id.splitlines()[0][:80]}")
    return 0


def _counts(root: Path) -> Iterator[str]:
    for name, found in all_messages(root).items():
        unique = {m.id for m in found}
        prose = (_TAG.sub("", _CODE_OR_MATH.sub("", m)) for m in unique)
        words = sum(len(re.findall(r"[A-Za-z]+(?:['’-][A-Za-z]+)*", p)) for p in prose)
        yield f"| `{name}` | {len(unique)} | {words} |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = ["extract", "update", "check", "apply", "publish", "counts"]
    parser.add_argument("command", choices=commands)
    parser.add_argument("--quiet", action="store_true", help="check: counts only")
    parser.add_argument("--build", type=Path, help="the English build (default _build)")
    parser.add_argument("--out", type=Path, help="apply: where to write (default _build/zh-src)")
    args = parser.parse_args(argv)
    if args.command == "extract":
        return _print_messages(ROOT)
    if args.command == "update":
        return update(ROOT)
    if args.command == "check":
        return check(ROOT, args.quiet)
    if args.command == "apply":
        return apply(ROOT, args.build, args.out)
    if args.command == "counts":
        print("| catalogue | messages | English words |\n|---|---:|---:|")
        print("\n".join(_counts(ROOT)))
        return 0
    return publish(args.build)


if __name__ == "__main__":
    sys.exit(main())
