"""The notebooks `make book` generates for Colab and JupyterLab (`_build/colab/`).

Static checks: no MyST-only syntax is left; every value the site pastes into a chapter
appears in bold in its notebook; citations and cross-references link to pages and anchors
that exist in the built site; the Colab install cell comes first; cells hidden on the
site are collapsed; no outputs. The site's buttons point at these notebooks.

Then the Colab situation (marked ``colab``): a fresh virtual environment with only what Colab
preinstalls (`site/colab-runtime.txt`) and the package installed with `pip install .`, built
offline by `make colab-env` (`site/colab_env.py`) into `_build/colab-env`; every chapter
executes top to bottom there with nbclient, one thread each (the checks beside it share the
two cores). What executes is the chapter's code as the generated notebook holds it: its
source's code cells, which `test_the_generated_code_is_the_chapters_code` checks are the
generated notebook's, cell for cell (only the titles Colab shows on collapsed cells added).
So the run needs no built book, and runs beside the build.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
GENERATED = BUILD / "colab"
SITE = BUILD / "html"
EXECUTED = BUILD / "jupyter_execute" / "notebooks"
COLAB_ENV = BUILD / "colab-env"
sys.path.insert(0, str(ROOT / "site"))
from colab import install_cell_source, requirement  # noqa: E402
from colab_env import KERNEL  # noqa: E402
from notebooks_for_colab import site_url  # noqa: E402

pytestmark = pytest.mark.build

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
SITE_URL = site_url(CONFIG)
SOURCES = sorted((ROOT / "notebooks").glob("*.ipynb"))
NAMES = [p.name for p in SOURCES]
MYST_ONLY = {
    "a glue role": re.compile(r"\{glue"),
    "a citation role": re.compile(r"\{cite"),
    "a ref role": re.compile(r"\{ref\}"),
    "a doc role": re.compile(r"\{doc\}"),
    "a colon-fenced directive": re.compile(r":::+\s*\{"),
    "a backtick-fenced directive": re.compile(r"```+\s*\{"),
    "any other role": re.compile(r"\{[a-z][\w:+.-]*\}`"),
    "a target label": re.compile(r"^\s*\([^)\s]+\)=\s*$", re.M),
}
HIDE_TAGS = {"remove-cell", "hide-cell", "remove-input", "hide-input"}


def _code(nb) -> list[str]:
    """The notebook's code, cell by cell, without the form titles Colab shows on collapsed
    cells (``# @title …`` first lines: comments, nothing that runs)."""
    return [re.sub(r"^# @title[^\n]*\n", "", c.source) for c in nb.cells if c.cell_type == "code"]


def _generated(name: str) -> nbformat.NotebookNode:
    path = GENERATED / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make book` first")
    return nbformat.read(path, as_version=4)


def _site_page(name: str) -> BeautifulSoup:
    html_text = (SITE / "notebooks" / name).with_suffix(".html").read_text("utf-8")
    return BeautifulSoup(html_text, "html.parser")


def _markdown(nb) -> str:
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def test_one_notebook_per_chapter():
    assert NAMES and sorted(p.name for p in GENERATED.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_no_myst_syntax_left(name):
    text = _markdown(_generated(name))
    found = {what: rx.findall(text)[:3] for what, rx in MYST_ONLY.items() if rx.search(text)}
    assert not found, f"MyST-only syntax in the generated notebook: {found}"


@pytest.mark.parametrize("name", NAMES)
def test_every_pasted_value_is_in_bold(name):
    """Each value the site pastes into the chapter's prose is in the notebook, in bold."""
    page = _site_page(name)
    # quotes made straight on both sides (Sphinx turns the site's into curly ones)
    straight = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
    pasted = [s.get_text().translate(straight) for s in page.select("span.pasted-text")]
    assert pasted, "the chapter's page pastes no values"
    text = _markdown(_generated(name)).translate(straight)
    missing = [v for v, n in Counter(pasted).items() if len(re.findall(_in_bold(v), text)) < n]
    assert not missing, f"values the site shows but the notebook does not: {missing[:10]}"


def _in_bold(value: str) -> str:
    """A pattern for `value` in bold Markdown, escaped or not (`\\*`, `&lt;`)."""
    entities = {"<": "(?:<|&lt;)", ">": "(?:>|&gt;)", "&": "(?:&|&amp;)"}
    chars = "".join(r"\\?" + entities.get(c, re.escape(c)) for c in value)
    return rf"(?:\*\*{chars}\*\*|<strong>{chars}</strong>)"


@pytest.mark.parametrize("name", NAMES)
def test_every_glued_table_is_in(name):
    """Values pasted as Markdown blocks ({glue:md}) are in the notebook as the build wrote them."""
    source = "".join(c.source for c in nbformat.read(ROOT / "notebooks" / name, 4).cells)
    keys = re.findall(r"\{glue:md\}\s*(\S+)", source)
    glue_file = (EXECUTED / name).with_suffix(".glue.json")
    data = json.loads(glue_file.read_text("utf-8")) if glue_file.exists() else {}
    text = _markdown(_generated(name))
    for key in keys:
        table = "".join(data[key]["data"]["text/markdown"]).strip()
        quoted = "\n".join(f"> {line}" for line in table.splitlines())  # in a collapsed aside
        assert table in text or quoted in text, key


@pytest.mark.parametrize("name", NAMES)
def test_links_to_the_site_resolve(name):
    """Every link to the published site names a built page, and an anchor on it."""
    links = re.findall(r"\]\((\S+?)\)", _markdown(_generated(name)))
    ours = [u for u in links if u.startswith(SITE_URL)]
    assert ours, "no links to the book's site (the note, citations, cross-references)"
    for url in ours:
        parsed = urlparse(url[len(SITE_URL) :])
        page = SITE / unquote(parsed.path)
        assert page.is_file(), f"{url}: no such page in the built site"
        if parsed.fragment:
            assert f'id="{parsed.fragment}"' in page.read_text("utf-8"), f"{url}: no such anchor"


@pytest.mark.parametrize("name", NAMES)
def test_citations_read_and_link_as_on_the_site(name):
    """Each citation: the site's text ("Vaswani et al., 2017") and its bibliography entry."""
    page = _site_page(name)
    on_site = [
        (" ".join(a.get_text().split()), a["href"].split("#")[1])
        for a in page.select("article a[href*='bibliography.html#']")
    ]
    prefix = re.escape(f"{SITE_URL}book/bibliography.html#")
    in_notebook = re.findall(
        r"\[([^\[\]]+)\]\(" + prefix + r"([^)\s]+)\)", _markdown(_generated(name))
    )
    assert on_site, "the chapter's page cites nothing"
    assert sorted(in_notebook) == sorted(on_site)


@pytest.mark.parametrize("name", NAMES)
def test_the_generated_code_is_the_chapters_code(name):
    """The generated notebook runs the chapter's code cells, in order, unchanged: so the
    Colab stand-in's run of the chapter's code (``test_runs_top_to_bottom_with_only_the_
    package``) is the run of the generated notebook."""
    source = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    assert _code(_generated(name)) == _code(source)


@pytest.mark.parametrize("name", NAMES)
def test_install_cell_first_and_collapsed(name):
    cells = _generated(name).cells
    code = [c for c in cells if c.cell_type == "code"]
    first = code[0]
    assert install_cell_source(requirement()) in first.source
    assert first.metadata.get("cellView") == "form"
    assert first.metadata.get("jupyter", {}).get("source_hidden") is True


@pytest.mark.parametrize("name", NAMES)
def test_hidden_cells_collapsed_and_no_outputs(name):
    source = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    generated = [c for c in _generated(name).cells if c.cell_type == "code"]
    by_code = {re.sub(r"^# @title[^\n]*\n", "", c.source): c for c in generated}
    hidden = [c for c in source.cells if HIDE_TAGS & set(c.metadata.get("tags", []))]
    assert hidden, "the chapter hides no cell (at least its install cell and solutions)"
    for cell in hidden:
        out = by_code.get(cell.source)
        if "google.colab" in cell.source:
            out = generated[0]
        assert out is not None, f"hidden cell missing: {cell.source[:60]!r}"
        assert out.metadata.get("cellView") == "form", cell.source[:60]
        assert out.metadata.get("jupyter", {}).get("source_hidden") is True, cell.source[:60]
    assert all(not c.outputs and c.execution_count is None for c in generated)
    assert "widgets" not in _generated(name).metadata


@pytest.mark.parametrize("name", NAMES)
def test_buttons_point_at_the_generated_notebook(name):
    page = _site_page(name)
    hrefs = [a.get("href", "") for a in page.select("a")]
    branch = CONFIG["launch_buttons"]["notebooks_branch"]
    repo = urlparse(CONFIG["repository"]["url"]).path.strip("/")
    colab = [h for h in hrefs if h.startswith(CONFIG["launch_buttons"]["colab_url"])]
    assert colab == [
        f"{CONFIG['launch_buttons']['colab_url']}/github/{repo}/blob/{branch}/notebooks/{name}"
    ]
    binder = [h for h in hrefs if h.startswith(CONFIG["launch_buttons"]["binderhub_url"])]
    assert len(binder) == 1 and f"/v2/gh/{repo}/{branch}?" in binder[0]
    assert binder[0].endswith(f"/notebooks/{name}")
    downloads = [h for h in hrefs if h.endswith(".ipynb") and not h.startswith("http")]
    assert downloads, "no download link to a notebook"
    for href in downloads:
        served = (SITE / "notebooks" / href).resolve()
        assert served.read_bytes() == (GENERATED / name).read_bytes(), href


def test_binder_environment_installs_the_package():
    text = (GENERATED / "binder" / "requirements.txt").read_text("utf-8")
    assert requirement() in text.splitlines()


# --------------------------------------------------------------------------- Colab situation


@pytest.fixture(scope="session")
def colab_kernel() -> Path:
    """The folder of the Colab stand-in that `make colab-env` created (its kernel: colab)."""
    if not (COLAB_ENV / "kernels" / KERNEL / "kernel.json").is_file():
        pytest.fail(f"{COLAB_ENV} is missing: `make colab-env` creates it")
    return COLAB_ENV


@pytest.mark.colab
@pytest.mark.parametrize("name", NAMES)
def test_runs_top_to_bottom_with_only_the_package(colab_kernel, name, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    home = colab_kernel
    monkeypatch.setenv("JUPYTER_PATH", str(home))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("MPLCONFIGDIR", str(tmp_path / "mpl"))
    # one thread: the site's checks run beside this on two cores, and OpenMP's threads spin
    # and wait for each other when the cores are oversubscribed
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    # the chapter's code, which the generated notebook holds unchanged (checked above)
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.cells.append(nbformat.v4.new_code_cell("import attnbook\nprint(attnbook.__file__)"))
    workdir = tmp_path / "content"  # like Colab's /content: no repository around
    workdir.mkdir()
    nbformat.write(nb, workdir / name)
    client = NotebookClient(
        nb, kernel_name=KERNEL, timeout=600, resources={"metadata": {"path": str(workdir)}}
    )
    client.execute()
    where = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert str(home / "venv") in where, f"attnbook imported from {where!r}, not the fresh venv"


# --------------------------------------------------------------------------- the converter


def _chapter(glue: dict | None = None):
    import notebooks_for_colab as g

    site = g.Site(
        url="https://o.github.io/r/", raw_url="https://raw.githubusercontent.com/o/r/main/"
    )
    site.titles = {"book/glossary": "Glossary", "notebooks/02_attention": "Attention"}
    site.labels = {
        "fig-scores": ("notebooks/02_attention", "fig-scores", "The scores"),
        "sec-mask": ("notebooks/02_attention", "masking", "Masking"),
    }
    site.fignumbers = {"notebooks/02_attention": {"figure": {"fig-scores": (2, 1)}}}
    site.equations = {"eq-sdpa": ("notebooks/02_attention", 1)}
    site.terms = {"query": ("book/glossary", "term-query")}
    site.py = {"attnbook.attention.causal_mask": ("book/api", "attnbook.attention.causal_mask")}
    site.citations = {
        "v17": g.Citation("Vaswani et al.", "2017", "https://o.github.io/r/book/b.html#v17"),
        "b15": g.Citation("Bahdanau and Cho", "2015", "https://o.github.io/r/book/b.html#b15"),
    }
    return g, g.Chapter("notebooks/01_x", site, glue or {})


def test_converter_glue_text_with_format_and_escaping():
    g, ch = _chapter({"p": {"text/plain": "0.91234"}, "tok": {"text/plain": "'<bos> *'"}})
    text = "p = {glue:text}`p:.2f`, ({glue:text}`tok`), x{glue:text}`tok`, `{glue:text}`p``"
    out = g.convert_markdown(text, ch)
    # `**` where CommonMark reads it as bold, <strong> where it would not (after a letter)
    assert out == (
        "p = **0.91**, (**&lt;bos&gt; \\***), x<strong>&lt;bos&gt; \\*</strong>, `{glue:text}`p``"
    )
    assert ch.glued == {"p", "tok"}


def test_converter_admonitions_as_block_quotes():
    g, ch = _chapter()
    text = (
        ":::{admonition} Why $x$\n:class: dropdown\nA line with $a\nb$ math.\n\n"
        "$$\ny = 1\n$$\n:::\n\n```{note}\nPlain note.\n```\n\n"
        "::::{tip}\n:::{warning}\nInner.\n:::\n::::"
    )
    out = g.convert_markdown(text, ch)
    assert out.split("\n\n")[0] == ("> **Why $x$**\n>\n> A line with $a b$ math.\n>\n> $$ y = 1 $$")
    assert "> **Note**\n>\n> Plain note." in out
    assert "> **Tip**\n>\n> > **Warning**\n> >\n> > Inner." in out


def test_converter_citations_and_cross_references():
    g, ch = _chapter()
    out = g.convert_markdown(
        "{cite:p}`v17,b15` and {cite:t}`v17`; {ref}`sec-mask`, {numref}`fig-scores`, "
        "{numref}`Figure {number} <fig-scores>`, {eq}`eq-sdpa`, {term}`queries <query>`, "
        "{doc}`../book/glossary`, {func}`~attnbook.attention.causal_mask`",
        ch,
    )
    site = "https://o.github.io/r/"
    assert out == (
        f"([Vaswani et al., 2017]({site}book/b.html#v17); "
        f"[Bahdanau and Cho, 2015]({site}book/b.html#b15)) and "
        f"Vaswani et al. ([2017]({site}book/b.html#v17)); "
        f"[Masking]({site}notebooks/02_attention.html#masking), "
        f"[Fig. 2.1]({site}notebooks/02_attention.html#fig-scores), "
        f"[Figure 2.1]({site}notebooks/02_attention.html#fig-scores), "
        f"[(1)]({site}notebooks/02_attention.html#equation-eq-sdpa), "
        f"[queries]({site}book/glossary.html#term-query), "
        f"[Glossary]({site}book/glossary.html), "
        f"[`causal_mask`]({site}book/api.html#attnbook.attention.causal_mask)"
    )


def test_converter_figures_tables_math_and_code_fences():
    g, ch = _chapter({"fig": {"image/png": "iVBO", "text/plain": "<Figure>"}})
    text = (
        "(fig-scores)=\n```{figure} ../book/images/a.png\n:name: fig-scores\n:alt: scores\n"
        "The *scores*.\n```\n\n:::{table} Sizes\n| a |\n|---|\n| 1 |\n:::\n\n"
        "```{glue:figure} fig\n:name: fig-scores\nGlued.\n```\n\n"
        "$$\nx\n$$ (eq-sdpa)\n\n```python\n{glue:text}`not_a_role`\n```\n% a comment"
    )
    out = g.convert_markdown(text, ch)
    assert out.startswith(
        "![scores](https://raw.githubusercontent.com/o/r/main/book/images/a.png)\n\n"
        "*Fig. 2.1: The *scores*.*"
    )
    assert "*Sizes*\n\n| a |\n|---|\n| 1 |" in out
    assert "![fig](attachment:fig.png)\n\n*Fig. 2.1: Glued.*" in out
    assert ch.attachments == {"fig.png": {"image/png": "iVBO"}}
    assert "$$\nx\n$$" in out and "(eq-sdpa)" not in out
    assert "```python\n{glue:text}`not_a_role`\n```" in out
    assert "comment" not in out and "(fig-scores)=" not in out


def test_converter_keeps_one_of_a_light_and_dark_pair():
    g, ch = _chapter()
    text = (
        "```{image} ../book/images/f.svg\n:alt: Figure 1\n:class: only-light\n```\n\n"
        "```{image} ../book/images/f_dark.svg\n:alt: Figure 1\n:class: only-dark dark-light\n```"
    )
    out = g.convert_markdown(text, ch)
    assert "book/images/f.svg" in out and "f_dark.svg" not in out


def test_converter_escapes_underscores_in_math_text():
    g, ch = _chapter()
    text = "$\\text{warmup_steps}$, `$\\text{a_b}$` stays, $$\n\\mbox{x_1} \\text{y\\_2}\n$$"
    out = g.convert_markdown(text, ch)
    assert (
        out
        == "$\\text{warmup\\_steps}$, `$\\text{a_b}$` stays, $$\n\\mbox{x\\_1} \\text{y\\_2}\n$$"
    )


@pytest.mark.parametrize(
    "text", ["{unknownrole}`x`", ":::{unknowndirective}\nx\n:::", "{glue:text}`missing`"]
)
def test_converter_refuses_what_it_cannot_render(text):
    g, ch = _chapter()
    with pytest.raises(g.MystError, match="notebooks/01_x"):
        g.convert_markdown(text, ch)


def test_site_url_from_the_repository_or_the_override():
    assert site_url({"repository": {"url": "https://github.com/Ab/book"}}) == (
        "https://ab.github.io/book/"
    )
    assert site_url({"repository": {"url": "https://github.com/ab/ab.github.io"}}) == (
        "https://ab.github.io/"
    )
    config = {"repository": {"url": "https://gitlab.com/a/b"}, "html": {"baseurl": "https://x/y"}}
    assert site_url(config) == "https://x/y/"
    with pytest.raises(ValueError, match="baseurl"):
        site_url({"repository": {"url": "https://gitlab.com/a/b"}})
