"""The chapters as Colab and JupyterLab show them: MyST rendered to plain Jupyter Markdown.

`python site/notebooks_for_colab.py` (run by `make book` after the site is built) writes
`_build/colab/<chapter>.ipynb` for every chapter, from the chapter source, the values the
build computed (myst-nb's glue records in `_build/jupyter_execute/`) and the build's
cross-reference data (`_build/.doctrees/environment.pickle`):

- glued values (`{glue:text}` and friends) become the numbers the build computed, in bold,
  with one note at the top of the chapter saying that the code recomputes them;
- admonitions become block quotes with their title in bold; citations become
  "(Author, Year)" linked to the site's bibliography; cross-references (`{doc}`, `{ref}`,
  `{numref}`, `{eq}`, `{term}`, Python objects) become links to the published site;
  figures and tables keep their captions;
- cells hidden on the site are collapsed (Colab: `cellView: form`; JupyterLab:
  `jupyter.source_hidden`), exercise solutions too; the Colab install cell comes first;
  code cells carry no outputs.

It also copies the notebooks into the built site, where the page's download button points
(see `attnbook_colab.py`), and writes `_build/colab/binder/requirements.txt`, the environment
Binder builds for the `colab` branch that the publishing workflow pushes these notebooks to.
An unknown role or directive stops the script with its name and chapter: render it here
before using it in a chapter.

After the Chinese build (`site/i18n.py`), it writes the Chinese chapters the same way to
`_build/colab/zh-cn/<chapter>.ipynb` (and beside the Chinese pages): each chapter's source
with its Markdown translated by its catalogue, links to the Chinese site, and this script's
own words (collapsed cells' titles, the note on bold numbers) from the site's catalogue
`locales/zh_CN/LC_MESSAGES/sphinx.po`, where they are marked here with `N_()`.
"""

from __future__ import annotations

import base64
import copy
import json
import pickle
import posixpath
import re
import shutil
import sys
import unicodedata
from ast import literal_eval
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import nbformat
import yaml
from docutils.nodes import make_id

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from colab import install_cell_source, requirement  # noqa: E402

GLUE_PREFIX = "application/papermill.record/"


def N_(text: str) -> str:
    """Marks a string of this script for the site's catalogue (``site/i18n.py``)."""
    return text


HIDE_TAGS = ("remove-cell", "hide-cell", "remove-input", "hide-input")
ADMONITIONS = {
    "admonition": "",
    "note": N_("Note"),
    "tip": N_("Tip"),
    "hint": N_("Hint"),
    "important": N_("Important"),
    "warning": N_("Warning"),
    "caution": N_("Caution"),
    "attention": N_("Attention"),
    "danger": N_("Danger"),
    "error": N_("Error"),
    "seealso": N_("See also"),
    "dropdown": "",
    "margin": "",
    "sidebar": "",
    "topic": "",
    "epigraph": "",
    "pull-quote": "",
    "highlights": "",
}
NUMFIG_FORMAT = {"figure": N_("Fig. %s"), "table": N_("Table %s"), "code-block": N_("Listing %s")}


# --------------------------------------------------------------------------- the build's data


@dataclass
class Citation:
    """One bibliography entry: who, when, and where the site lists it."""

    authors: str  # "Vaswani et al." / "Ba and Kiros" / "Hinton"
    year: str
    url: str


@dataclass
class Site:
    """Everything a chapter's Markdown may point at, resolved to URLs of the published site."""

    url: str  # the published site, ending in "/"
    raw_url: str  # raw files of the source branch, ending in "/"
    titles: dict[str, str] = field(default_factory=dict)  # docname -> title
    labels: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # -> doc, id, title
    equations: dict[str, tuple[str, int]] = field(default_factory=dict)  # -> doc, number
    terms: dict[str, tuple[str, str]] = field(default_factory=dict)  # lower name -> doc, id
    py: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> doc, id
    fignumbers: dict[str, dict[str, dict[str, tuple]]] = field(default_factory=dict)
    citations: dict[str, Citation] = field(default_factory=dict)

    def page(self, docname: str, anchor: str = "") -> str:
        return f"{self.url}{docname}.html" + (f"#{anchor}" if anchor else "")


def site_url(config: dict) -> str:
    """`html.baseurl` when set, else GitHub Pages' address for `repository.url`."""
    base = (config.get("html") or {}).get("baseurl") or ""
    if base:
        return base.rstrip("/") + "/"
    url = config["repository"]["url"].rstrip("/")
    m = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)(?:\.git)?", url)
    if not m:
        raise ValueError(f"set html.baseurl: repository.url {url!r} is not a GitHub repository")
    owner, repo = m.groups()
    if repo.lower() == f"{owner.lower()}.github.io":
        return f"https://{repo.lower()}/"
    return f"https://{owner.lower()}.github.io/{repo}/"


def raw_url(config: dict) -> str:
    """Where the source branch's files are served raw (images the chapters show)."""
    repo = config["repository"]
    m = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?", repo["url"])
    if not m:
        return site_url(config)
    return f"https://raw.githubusercontent.com/{m[1]}/{m[2]}/{repo['branch']}/"


def bib_authors(persons: list) -> str:
    """Author-year label text, as the site's bibliography style writes it."""
    last = [" ".join(p.prelast_names + p.last_names) for p in persons]
    last = [_latex_to_text(n) for n in last]
    if len(last) == 1:
        return last[0]
    if len(last) == 2:
        return f"{last[0]} and {last[1]}"
    return f"{last[0]} et al."


def _latex_to_text(text: str) -> str:
    from pybtex.richtext import Text

    return Text.from_latex(text).render_as("text")


def load_site(config: dict, build: Path, bibfile: Path, folder: str = "") -> Site:
    """The published site's URL and cross-reference targets, from the Sphinx environment
    of ``build`` (its pages at ``folder`` in the published site: ``zh-cn/`` for Chinese)."""
    from pybtex.database import parse_file

    with open(build / ".doctrees" / "environment.pickle", "rb") as f:
        env = pickle.load(f)
    site = Site(url=site_url(config) + folder, raw_url=raw_url(config))
    site.titles = {doc: node.astext() for doc, node in env.titles.items()}
    std = env.domaindata["std"]
    for label, (doc, anchor) in std["anonlabels"].items():
        site.labels[label] = (doc, anchor, "")
    site.labels.update(std["labels"])
    site.terms = {name.lower(): target for name, target in std.get("terms", {}).items()}
    site.equations = dict(env.domaindata.get("math", {}).get("objects", {}))
    for name, entry in env.domaindata.get("py", {}).get("objects", {}).items():
        site.py[name] = (entry[0], entry[1])
    site.fignumbers = dict(env.toc_fignumbers)
    # where the site lists each entry: the bibliography page and the entry's anchor there
    where = {
        c.key: site.page(c.bibliography_key.docname, c.citation_id)
        for c in env.domaindata.get("cite", {}).get("citations", [])
    }
    for key, entry in parse_file(str(bibfile)).entries.items():
        persons = entry.persons.get("author") or entry.persons.get("editor") or []
        url = where.get(key, site.page("book/bibliography"))
        # an entry without a year reads "n.d." on the site's author-year labels
        year = entry.fields.get("year", "") or "n.d."
        site.citations[key] = Citation(bib_authors(persons), year, url)
    return site


# --------------------------------------------------------------------------- glue values


def glue_values(executed: Path) -> dict[str, dict]:
    """name -> mime bundle, from the executed notebook and myst-nb's `.glue.json` beside it."""
    data: dict[str, dict] = {}
    nb = nbformat.read(executed, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("scrapbook")
            if meta:
                prefix = len(meta.get("mime_prefix", ""))
                data[meta["name"]] = {k[prefix:]: v for k, v in out["data"].items()}
    stored = executed.with_suffix(".glue.json")
    if stored.exists():
        for name, out in json.loads(stored.read_text(encoding="utf-8")).items():
            data.setdefault(name, out["data"])
    return data


def format_plain(text: str, spec: str) -> str:
    """myst-nb's `{glue:text}`name:spec``: the repr's value, formatted with `spec`."""
    try:
        value = literal_eval(text)
    except (SyntaxError, ValueError):
        value = text
    if not spec:
        return str(value)
    kind = spec[-1]
    if kind == "s":
        value = str(value)
    elif kind in "bcdoxX":
        value = int(value)
    elif kind in "eEfFgGn%":
        value = float(value)
    return format(value, spec)


# --------------------------------------------------------------------------- Markdown


class MystError(ValueError):
    """A MyST construct this converter does not know how to render."""


ROLE = r"\{(?P<role>[A-Za-z][\w:+.-]*)\}(?P<rt>`+)(?P<content>.+?)(?<!`)(?P=rt)(?!`)"
CODE_SPAN = r"(?P<ct>`+)(?:.+?)(?<!`)(?P=ct)(?!`)"
INLINE = re.compile(f"{ROLE}|{CODE_SPAN}", re.S)
DIRECTIVE = re.compile(
    r"^(?P<indent> {0,3})(?P<fence>`{3,}|:{3,})\{(?P<name>[^}\s]+)\}[ \t]*(?P<arg>.*?)\s*$"
)
FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
TARGET = re.compile(r"^\s*\((?P<label>[^)\s]+)\)=\s*$")
EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
LINK = re.compile(r"(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<url>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
DISPLAY_LABEL = re.compile(r"^(?P<math>\s*\$\$)\s*\((?P<label>[^)]+)\)\s*$")


@dataclass
class Chapter:
    """What converting one chapter needs, and what it counts."""

    docname: str  # "notebooks/02_attention"
    site: Site
    glue: dict[str, dict]
    counts: Counter = field(default_factory=Counter)
    tr: Callable[[str], str] = str  # this script's own words in the chapter's language
    exercises: str = "Exercises"  # the heading of the chapter's exercises, as translated
    attachments: dict[str, dict] = field(default_factory=dict)  # of the cell being converted
    glued: set[str] = field(default_factory=set)

    def fail(self, what: str) -> MystError:
        return MystError(f"{self.docname}: {what}")

    def unknown(self, what: str) -> MystError:
        return MystError(f"{self.docname}: {what}; render it in site/notebooks_for_colab.py")

    def resolve_doc(self, target: str) -> str:
        target = target.removesuffix(".md").removesuffix(".ipynb")
        if target.startswith("/"):
            return target.lstrip("/")
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.docname), target))


_PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _is_punct(ch: str) -> bool:
    return ch in _PUNCT or unicodedata.category(ch)[0] in "PS"


def escape_md(text: str) -> str:
    """Text shown as is by a Markdown renderer (glued values are data, not Markdown)."""
    text = re.sub(r"([\\`*_\[\]|$])", r"\\\1", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def strong(text: str, before: str, after: str) -> str:
    """Bold that CommonMark honours wherever it sits (`**` only where it flanks correctly)."""
    if not text:
        return text

    def free(inner: str, outer: str) -> bool:  # a delimiter run may open / close here
        return not _is_punct(inner) or not outer or outer.isspace() or _is_punct(outer)

    if (
        text[0].isspace()
        or text[-1].isspace()
        or not (free(text[0], before) and free(text[-1], after))
    ):
        return f"<strong>{text}</strong>"
    return f"**{text}**"


def link(text: str, url: str) -> str:
    return f"[{text}]({url.replace(' ', '%20')})"


def convert_inline(text: str, ch: Chapter) -> str:
    """Roles in running text; code spans stay as they are."""

    def sub(m: re.Match) -> str:
        if m.group("role") is None:
            return m.group(0)
        before = m.string[m.start() - 1] if m.start() else ""
        after = m.string[m.end()] if m.end() < len(m.string) else ""
        return render_role(m.group("role"), m.group("content"), ch, before, after)

    return INLINE.sub(sub, text)


def _split_explicit(content: str) -> tuple[str, str]:
    m = EXPLICIT.fullmatch(content.strip())
    if m:
        return m["text"].strip(), m["target"].strip()
    return "", content.strip()


def render_role(name: str, content: str, ch: Chapter, before: str = "", after: str = "") -> str:
    kind = name.split(":")[0]
    if kind == "glue":
        ch.counts[f"{{{name}}}"] += 1
        return strong(glue_inline(name, content, ch), before, after)
    if kind in ("cite", "footcite") or name in ("citet", "citep"):
        ch.counts[f"{{{name}}}"] += 1
        return render_cite(name, content, ch)
    render = ROLES.get(name)
    if render is None:
        raise ch.unknown(f"unknown role {{{name}}}")
    ch.counts[f"{{{name}}}"] += 1
    return render(content, ch)


def glue_inline(name: str, content: str, ch: Chapter) -> str:
    key, _, spec = content.strip().partition(":")
    if "::" in content:
        raise ch.fail(f"glue from another document ({content}) is not supported")
    bundle = ch.glue.get(key)
    if bundle is None:
        raise ch.fail(f"the executed chapter glued no value {key!r} (did it run to the end?)")
    ch.glued.add(key)
    if name in ("glue", "glue:any") and "text/markdown" in bundle:
        return "".join(bundle["text/markdown"]).strip()
    if name in ("glue", "glue:any") and "text/latex" in bundle:
        return "$" + "".join(bundle["text/latex"]).strip().strip("$") + "$"
    if "text/plain" not in bundle:
        raise ch.fail(f"glued value {key!r} has no text/plain form")
    return escape_md(format_plain("".join(bundle["text/plain"]), spec))


def render_cite(name: str, content: str, ch: Chapter) -> str:
    keys = [k.strip() for k in content.split(",") if k.strip()]
    items = []
    for key in keys:
        c = ch.site.citations.get(key)
        if c is None:
            raise ch.fail(f"citation key {key!r} is not in the bibliography")
        items.append(c)
    textual = name.endswith(":t") or name.endswith(":ts") or name == "citet"
    if textual:
        # as on the site: the authors as text, the year as the link to the entry
        return ", ".join(f"{c.authors} ({link(c.year, c.url)})" for c in items)
    return "(" + "; ".join(link(f"{c.authors}, {c.year}", c.url) for c in items) + ")"


def _role_doc(content: str, ch: Chapter) -> str:
    text, target = _split_explicit(content)
    doc = ch.resolve_doc(target)
    if doc not in ch.site.titles:
        raise ch.fail(f"{{doc}} target {target!r} is not a page of the book")
    return link(text or ch.site.titles[doc], ch.site.page(doc))


def _role_ref(content: str, ch: Chapter) -> str:
    text, label = _split_explicit(content)
    if label not in ch.site.labels:
        raise ch.fail(f"{{ref}} label {label!r} is not defined")
    doc, anchor, title = ch.site.labels[label]
    return link(text or title or label, ch.site.page(doc, anchor))


def _role_numref(content: str, ch: Chapter) -> str:
    text, label = _split_explicit(content)
    if label not in ch.site.labels:
        raise ch.fail(f"{{numref}} label {label!r} is not defined")
    doc, anchor, title = ch.site.labels[label]
    for figtype, ids in ch.site.fignumbers.get(doc, {}).items():
        if anchor in ids:
            number = ".".join(map(str, ids[anchor]))
            fmt = text or ch.tr(NUMFIG_FORMAT.get(figtype, "%s"))
            shown = fmt.replace("{number}", number).replace("{name}", title).replace("%s", number)
            return link(shown, ch.site.page(doc, anchor))
    return link(text or title or label, ch.site.page(doc, anchor))


def _role_eq(content: str, ch: Chapter) -> str:
    text, label = _split_explicit(content)
    if label not in ch.site.equations:
        raise ch.fail(f"{{eq}} label {label!r} is not defined")
    doc, number = ch.site.equations[label]
    return link(text or f"({number})", ch.site.page(doc, make_id(f"equation-{label}")))


def _role_term(content: str, ch: Chapter) -> str:
    text, term = _split_explicit(content)
    if term.lower() not in ch.site.terms:
        raise ch.fail(f"{{term}} {term!r} is not in the glossary")
    doc, anchor = ch.site.terms[term.lower()]
    return link(text or term, ch.site.page(doc, anchor))


def _role_py(content: str, ch: Chapter) -> str:
    text, target = _split_explicit(content)
    target = target.lstrip("~.!")
    name = next((n for n in ch.site.py if n == target or n.endswith("." + target)), None)
    shown = text or (target.split(".")[-1] if content.strip().startswith("~") else target)
    if name is None:
        return f"`{shown}`"
    doc, anchor = ch.site.py[name]
    return link(f"`{shown}`", ch.site.page(doc, anchor))


def _role_download(content: str, ch: Chapter) -> str:
    text, target = _split_explicit(content)
    path = ch.resolve_doc(target) if not target.startswith("http") else target
    url = target if target.startswith("http") else ch.site.raw_url + quote(path)
    return link(text or posixpath.basename(target), url)


ROLES: dict[str, Callable[[str, Chapter], str]] = {
    "doc": _role_doc,
    "ref": _role_ref,
    "numref": _role_numref,
    "eq": _role_eq,
    "term": _role_term,
    "download": _role_download,
    "math": lambda c, ch: f"${c}$",
    "sub": lambda c, ch: f"<sub>{c}</sub>",
    "sup": lambda c, ch: f"<sup>{c}</sup>",
    "kbd": lambda c, ch: f"<kbd>{c}</kbd>",
    "abbr": lambda c, ch: _split_explicit(c)[0] or c,
    "index": lambda c, ch: _split_explicit(c)[0] or c,
    "code": lambda c, ch: f"`{c}`",
    "literal": lambda c, ch: f"`{c}`",
    "samp": lambda c, ch: f"`{c}`",
    "file": lambda c, ch: f"`{c}`",
    "command": lambda c, ch: f"**{c}**",
    "program": lambda c, ch: f"**{c}**",
    "dfn": lambda c, ch: f"*{c}*",
    "emphasis": lambda c, ch: f"*{c}*",
    "strong": lambda c, ch: f"**{c}**",
}
for _kind in ("func", "class", "meth", "mod", "attr", "obj", "data", "exc", "const"):
    ROLES[_kind] = ROLES[f"py:{_kind}"] = _role_py


MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?!\$).+?(?<![\\$])\$", re.S)


def _one_line_math(text: str) -> str:
    """Join math that spans lines, so that a block quote's `> ` never lands inside it."""
    out, i = [], 0
    for m in MATH.finditer(text):
        out.append(text[i : m.start()])
        out.append(re.sub(r"\s*\n\s*", " ", m.group(0)))
        i = m.end()
    out.append(text[i:])
    return "".join(out)


TEXT_IN_MATH = re.compile(r"(\\(?:text|textrm|textit|textbf|texttt|mbox)\{)([^{}]*)\}")


def text_underscores(text: str, ch: Chapter) -> str:
    """`\\text{warmup_steps}` as `\\text{warmup\\_steps}` inside math.

    The site's MathJax takes `_` in `\\text` literally; JupyterLab's (with `textmacros`) and
    Colab's renderers reject it, so there it must be escaped.
    """

    def fix_text(m: re.Match) -> str:
        fixed = re.sub(r"(?<!\\)_", r"\\_", m[2])
        ch.counts["\\text{} underscore in math"] += fixed != m[2]
        return f"{m[1]}{fixed}}}"

    parts = re.split(r"((`+).*?(?<!`)\2(?!`))", text, flags=re.S)  # code spans stay
    out = []
    for i in range(0, len(parts), 3):
        out.append(MATH.sub(lambda m: TEXT_IN_MATH.sub(fix_text, m[0]), parts[i]))
        if i + 1 < len(parts):
            out.append(parts[i + 1])
    return "".join(out)


def block_quote(title: str, body: str) -> str:
    parts = [f"**{title}**"] if title else []
    if body.strip():
        parts.append(_one_line_math(body.strip("\n")))
    lines = "\n\n".join(parts).split("\n")
    return "\n".join(("> " + line).rstrip() for line in lines)


def _options(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """A directive's `:key: value` or `---` YAML options, and the lines after them."""
    if lines and lines[0].strip() == "---":
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
        return yaml.safe_load("\n".join(lines[1:end])) or {}, lines[end + 1 :]
    opts, i = {}, 0
    while i < len(lines):
        m = re.match(r"^\s*:([\w-]+):\s*(.*?)\s*$", lines[i])
        if not m:
            break
        opts[m[1]], i = m[2], i + 1
    return opts, lines[i:]


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and set(stripped) == {fence[0]} and len(stripped) >= len(fence)


def convert_markdown(text: str, ch: Chapter) -> str:
    """One Markdown cell (or a directive's body) in plain Jupyter Markdown."""
    lines = text.split("\n")
    out: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append(text_underscores(convert_inline("\n".join(para), ch), ch))
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        d = DIRECTIVE.match(line)
        f = FENCE.match(line) if not d else None
        if d:
            flush()
            j = i + 1
            while j < len(lines) and not _closes(lines[j], d["fence"]):
                j += 1
            opts, body = _options(lines[i + 1 : j])
            out.append(render_directive(d["name"], d["arg"], opts, "\n".join(body), ch))
            i = j + 1
            continue
        if f:
            flush()
            j = i + 1
            while j < len(lines) and not _closes(lines[j], f["fence"]):
                j += 1
            out.append("\n".join(lines[i : j + 1]))
            i = j + 1
            continue
        if line.strip() == "$$" or DISPLAY_LABEL.match(line):
            j = i + 1
            while j < len(lines) and not (
                lines[j].strip() == "$$" or DISPLAY_LABEL.match(lines[j])
            ):
                j += 1
            if j == len(lines):  # no closing line: the `$$` ends math begun in the text
                para.append(line)
                i += 1
                continue
            flush()
            if DISPLAY_LABEL.match(lines[j]):
                ch.counts["equation label"] += 1
            out.append(text_underscores("\n".join(lines[i:j] + ["$$"]), ch))
            i = j + 1
            continue
        if TARGET.match(line):
            ch.counts["(label)="] += 1
            i += 1
            continue
        if re.match(r"^\s*%", line) or line.strip() == "+++":
            ch.counts["comment or block break"] += 1
            i += 1
            continue
        para.append(line)
        i += 1
    flush()
    return relink("\n".join(out), ch)


def relink(text: str, ch: Chapter) -> str:
    """Links and images relative to the chapter, made absolute (the site, the raw files)."""

    def sub(m: re.Match) -> str:
        url = m["url"]
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#", url):
            return m.group(0)
        path, _, anchor = url.partition("#")
        target = ch.resolve_doc(path) if not m["bang"] else None
        if m["bang"]:
            full = posixpath.normpath(posixpath.join(posixpath.dirname(ch.docname), path))
            new = ch.site.raw_url + quote(full)
        elif target in ch.site.titles:
            new = ch.site.page(target, anchor)
        else:
            full = posixpath.normpath(posixpath.join(posixpath.dirname(ch.docname), path))
            new = ch.site.raw_url + quote(full) + (f"#{anchor}" if anchor else "")
        ch.counts["relative link"] += 1
        return f"{m['bang']}[{m['text']}]({new}{m['title'] or ''})"

    return LINK.sub(sub, text)


def _attach(ch: Chapter, name: str, bundle: dict) -> str | None:
    """Attach the bundle's image to the cell; the Markdown that shows it, or None."""
    for mime in ("image/png", "image/jpeg", "image/svg+xml"):
        if mime in bundle:
            data = bundle[mime]
            data = "".join(data) if isinstance(data, list) else data
            if mime == "image/svg+xml":
                data = base64.b64encode(data.encode("utf-8")).decode("ascii")
            filename = f"{name}.{mime.split('/')[1].split('+')[0]}"
            ch.attachments[filename] = {mime: data.replace("\n", "")}
            return f"![{name}](attachment:{filename})"
    return None


def _caption(name: str, caption: str, ch: Chapter) -> str:
    """A figure's or table's caption, numbered as on the site when the site numbers it."""
    number = ""
    if name and name in ch.site.labels:
        doc, anchor, _ = ch.site.labels[name]
        for figtype, ids in ch.site.fignumbers.get(doc, {}).items():
            if anchor in ids:
                fmt = ch.tr(NUMFIG_FORMAT.get(figtype, "%s"))
                number = fmt.replace("%s", ".".join(map(str, ids[anchor])))
    head = f"{number}: " if number else ""
    text = convert_markdown(caption, ch).strip()
    return f"*{head}{text}*" if (head or text) else ""


def render_directive(name: str, arg: str, opts: dict, body: str, ch: Chapter) -> str:
    ch.counts[f"{{{name}}} directive"] += 1
    if name in ADMONITIONS:
        title = convert_inline(arg, ch) if arg else ch.tr(ADMONITIONS[name])
        if name in ("note", "tip", "hint", "important", "warning", "caution") and arg:
            # these take no title: MyST reads the first line as the start of the body
            body, title = f"{arg}\n{body}", ch.tr(ADMONITIONS[name])
        return block_quote(title, convert_markdown(body, ch))
    if name.startswith("glue"):
        return glue_block(name, arg, opts, body, ch)
    if name in ("figure", "image"):
        if "only-dark" in opts.get("class", "").split():
            return ""  # the site's dark-theme twin of the drawing beside it: one picture here
        url = arg
        if not re.match(r"^[a-z]+:", arg):  # a file of the repository, served raw
            path = posixpath.normpath(posixpath.join(posixpath.dirname(ch.docname), arg))
            url = ch.site.raw_url + quote(path)
        image = f"![{opts.get('alt', '')}]({url})"
        if name == "image":
            return image
        caption = _caption(opts.get("name", ""), body, ch)
        return f"{image}\n\n{caption}" if caption else image
    if name == "table":
        caption = _caption(opts.get("name", ""), arg, ch)
        table = convert_markdown(body, ch)
        return f"{caption}\n\n{table}" if caption else table
    if name == "math":
        if "label" in opts:
            ch.counts["equation label"] += 1
        return text_underscores("$$\n" + body.strip("\n") + "\n$$", ch)
    if name in ("code-block", "code", "sourcecode", "code-cell"):
        return f"```{arg}\n{body}\n```"
    if name == "raw":
        if arg.strip() != "html":
            raise ch.unknown(f"raw {arg} output cannot be shown in a notebook")
        return body
    raise ch.unknown(f"unknown directive {{{name}}}")


def glue_block(name: str, key: str, opts: dict, body: str, ch: Chapter) -> str:
    key = key.strip()
    bundle = ch.glue.get(key)
    if bundle is None:
        raise ch.fail(f"the executed chapter glued no value {key!r} (did it run to the end?)")
    ch.glued.add(key)
    if name == "glue:md" or (name in ("glue", "glue:any") and "text/markdown" in bundle):
        if "text/markdown" not in bundle:
            raise ch.fail(f"glued value {key!r} has no text/markdown form")
        shown = "".join(bundle["text/markdown"]).strip()
        return convert_markdown(shown, ch) if opts.get("format") == "myst" else shown
    if name == "glue:math":
        latex = "".join(bundle.get("text/latex", "")).strip().strip("$")
        if not latex:
            raise ch.fail(f"glued value {key!r} has no text/latex form")
        return f"$$\n{latex}\n$$"
    image = _attach(ch, key, bundle)
    if image is None and "text/html" in bundle:
        image = "".join(bundle["text/html"])
    if image is None and "text/plain" in bundle:
        image = "```\n" + "".join(bundle["text/plain"]) + "\n```"
    if image is None:
        raise ch.fail(f"glued value {key!r} has no form a notebook shows")
    if name == "glue:figure":
        caption = _caption(opts.get("name", ""), body, ch)
        return f"{image}\n\n{caption}" if caption else image
    return image


# --------------------------------------------------------------------------- cells


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


INSTALL_TITLE = N_("Install the book's package (Colab only)")
HIDDEN_TITLE = N_("Code hidden on the book's site")


def collapse(cell, title: str, outputs_too: bool) -> None:
    """Collapsed in Colab (a form showing `title`) and in JupyterLab."""
    cell.metadata["cellView"] = "form"
    jupyter = cell.metadata.setdefault("jupyter", {})
    jupyter["source_hidden"] = True
    if outputs_too:
        jupyter["outputs_hidden"] = True
    first = cell.source.split("\n", 1)[0]
    if not first.startswith("# @title"):
        cell.source = f"# @title {title}\n{cell.source}"


def note_cell(ch: Chapter) -> str:
    """The chapter's note on its bold numbers, with a link to its page on the site."""
    page = ch.site.page(ch.docname)
    note = ch.tr(
        N_(
            "**Numbers in bold** were computed when the book was built; the code cells below "
            "compute them again as you run them, so yours may differ a little (timings most "
            "of all). This chapter on the book's site, with every figure already drawn: {link}"
        )
    )
    return "> " + note.format(link=f"[{page}]({page})")


def reader_notebook(
    source: nbformat.NotebookNode, ch: Chapter, config_path: Path = ROOT / "_config.yml"
) -> nbformat.NotebookNode:
    """The chapter as Colab and JupyterLab readers get it."""
    nb = copy.deepcopy(source)
    nb.metadata.pop("widgets", None)
    nb.metadata.setdefault("colab", {})["provenance"] = []
    nb.metadata["colab"]["toc_visible"] = True
    install = nbformat.v4.new_code_cell(install_cell_source(requirement(config_path)))
    cells, seen_code, exercises, exercise_no = [], False, False, ""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            ch.attachments = dict(cell.get("attachments", {}))
            cell.source = convert_markdown(cell.source, ch)
            if ch.attachments:
                cell["attachments"] = ch.attachments
            heading = rf"^#+\s+{re.escape(ch.exercises)}"
            exercises = exercises or bool(re.search(heading, cell.source, re.M))
            m = re.match(r"^\s*\*\*(\d+)\.?\*\*", cell.source)
            exercise_no = m[1] if (exercises and m) else exercise_no
            cells.append(cell)
            continue
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        cell.outputs, cell.execution_count = [], None
        tags = _tags(cell)
        if not seen_code:
            seen_code = True
            if "google.colab" not in cell.source:
                cells.append(install)  # the install cell comes first in any case
                collapse(install, ch.tr(INSTALL_TITLE), True)
            else:
                cell.source = install.source
                collapse(cell, ch.tr(INSTALL_TITLE), True)
                ch.counts["install cell"] += 1
                cells.append(cell)
                continue
        if exercises and set(tags) & set(HIDE_TAGS):
            collapse(cell, ch.tr(N_("Solution {number}")).format(number=exercise_no).strip(), True)
            ch.counts["solution collapsed"] += 1
        elif set(tags) & {"hide-cell", "remove-cell"}:
            collapse(cell, ch.tr(HIDDEN_TITLE), True)
            ch.counts["hidden cell collapsed"] += 1
        elif set(tags) & {"hide-input", "remove-input"}:
            collapse(cell, ch.tr(HIDDEN_TITLE), False)
            ch.counts["hidden input collapsed"] += 1
        cells.append(cell)
    first_md = next((c for c in cells if c.cell_type == "markdown"), None)
    if first_md is not None:
        first_md.source = first_md.source.rstrip("\n") + "\n\n" + note_cell(ch)
    nb.cells = cells
    nbformat.validate(nb)
    return nb


# --------------------------------------------------------------------------- the command


def chapters(root: Path = ROOT) -> list[Path]:
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    found: list[str] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            if str(node.get("file", "")).startswith("notebooks/"):
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return [root / f"{f.removesuffix('.ipynb')}.ipynb" for f in found]


def binder_requirements(config_path: Path) -> str:
    """Binder's environment for the `colab` branch: CPU torch and the book's package."""
    return (
        "# Binder's environment for these notebooks (written by site/notebooks_for_colab.py)\n"
        "--extra-index-url https://download.pytorch.org/whl/cpu\n"
        "torch\n"
        f"{requirement(config_path)}\n"
    )


BRANCH_README = """# Generated notebooks

This branch is written by the book's publishing workflow: every chapter of
{site} as Colab and JupyterLab show it, generated from `{branch}` by
`site/notebooks_for_colab.py`. Do not edit it; edit the chapters in `{branch}`.
"""


def write_chapters(root: Path, site: Site, out: Path, pages: Path, language: str = "en") -> Counter:
    """Every chapter as a reader's notebook, to ``out`` and beside its page in ``pages``;
    in Chinese (``language="zh_CN"``) from its source translated by its catalogue."""
    build = root / "_build"
    if language != "en":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import i18n

        words = i18n.translations(i18n.SITE_DOMAIN)
    totals: Counter = Counter()
    for path in chapters(root):
        docname = path.relative_to(root).with_suffix("").as_posix()
        # the values the build glued; in Chinese, as site/i18n.py apply wrote them for the
        # Chinese pages (their words in Chinese, the numbers the English build's)
        executed = build / "jupyter_execute" / f"{docname}.ipynb"
        if language != "en":
            executed = build / "zh-src" / f"{docname}.ipynb"
        if not executed.exists():
            raise FileNotFoundError(f"{executed} is missing: build the book first (make book)")
        source = nbformat.read(path, as_version=4)
        ch = Chapter(docname, site, glue_values(executed))
        if language != "en":
            table = i18n.translations(docname)
            source = i18n.translate_notebook(source, lambda m, *_, t=table: t.get(m, m))
            ch.tr = lambda m, w=words: w.get(m, m)
            ch.exercises = table.get(ch.exercises, ch.exercises)
        nb = reader_notebook(source, ch, root / "_config.yml")
        out.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, out / path.name)
        page = pages / f"{docname}.ipynb"  # the download button's file
        page.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(out / path.name, page)
        totals.update(ch.counts)
        print(f"{out.name}/{path.name}: {sum(ch.counts.values())} constructs rendered")
    return totals


def main(root: Path = ROOT) -> int:
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    build = root / "_build"
    bib = root / "book" / "references.bib"
    site = load_site(config, build, bib)
    out = build / "colab"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    totals = write_chapters(root, site, out, build / "html")
    # the Chinese chapters, once the Chinese site is built (site/i18n.py; make book)
    zh_build = build / "zh" / "_build"
    if (zh_build / ".doctrees" / "environment.pickle").is_file():
        zh_site = load_site(config, zh_build, bib, "zh-cn/")
        totals += write_chapters(root, zh_site, out / "zh-cn", build / "html" / "zh-cn", "zh_CN")
    (out / "binder").mkdir()
    binder = binder_requirements(root / "_config.yml")
    (out / "binder" / "requirements.txt").write_text(binder, "utf-8")
    branch = config["repository"]["branch"]
    (out / "README.md").write_text(BRANCH_README.format(site=site.url, branch=branch), "utf-8")
    print("rendered: " + ", ".join(f"{k} {v}" for k, v in sorted(totals.items())))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
