"""The notebooks in a real JupyterLab, driven in headless Chromium.

A JupyterLab server (the one pinned in requirements.txt) starts on 127.0.0.1 with no
token, with its configuration, data, runtime and settings folders in a temporary
directory (no user settings leak in) and a root folder holding a gallery notebook and
copies of the chapter notebooks `make book` generated in `_build/colab/` (the Chinese ones
in `_build/colab/zh-cn/`).

The gallery holds one cell per explorer class (every one ``attnbook.viz`` exports, the
translator included), built as ``explorer_cases`` builds them. It is run with Run > Run All
Cells, and then each explorer must

- render (`.attnbook-explorer svg`);
- redraw when the mouse moves each of its sliders;
- redraw when ArrowRight is pressed on a focused slider, without moving the notebook's
  active cell;
- keep its cell when D D (JupyterLab's "delete cell") is pressed on a focused slider;
- choose the next option when ArrowDown is pressed on a focused picker, and redraw,
  without moving the notebook's active cell;
- the translator: translate what is typed into it, as the Python model does.

Each generated chapter is opened without running it (the build and the Colab check run the
chapters): its rendered Markdown must hold no MyST syntax and no MathJax error. The server,
its kernels and the browser are stopped at the end. Set ATTNBOOK_SCREENSHOTS=<folder> to
save a screenshot of the gallery and of each chapter. Run after `make book`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from explorer_cases import CASES
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from attnbook import viz

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "_build" / "colab"
ZH = "zh-cn"  # the Chinese chapters, generated beside the English ones
pytestmark = pytest.mark.build
RUN_TIMEOUT_S = 300  # the gallery, Run All to the last cell, on a busy 2-core machine
SETTINGS = {
    # every cell in the page, so that cells and explorers can be counted
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # no news or update checks (no network)
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}
IDLE = ".jp-Notebook-ExecutionIndicator[data-status='idle']"
MYST_LEFTOVERS = re.compile(r"\{(glue|cite|ref|doc|numref|eq|term)[:}]|:::\{|```\{")
GALLERY = "gallery.ipynb"
TRANSLATOR_TEXTS = ["29 November 1850", "Nov 3, 1999", "1 January 2000"]


def _chapters() -> list[str]:
    """The generated chapters, English ones by name, Chinese ones as ``zh-cn/<name>``."""
    if not GENERATED.is_dir():
        return []
    english = sorted(p.name for p in GENERATED.glob("*.ipynb"))
    return english + sorted(f"{ZH}/{p.name}" for p in (GENERATED / ZH).glob("*.ipynb"))


CHAPTERS = _chapters()


def gallery() -> nbformat.NotebookNode:
    """One cell per explorer: the cases of ``explorer_cases``, then the date translator."""
    nb = nbformat.v4.new_notebook()
    setup = f"import sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
    setup += "from explorer_cases import CASES\nfrom attnbook.viz import TranslatorExplorer"
    nb.cells = [nbformat.v4.new_code_cell(setup)]
    nb.cells += [nbformat.v4.new_code_cell(f"CASES[{name!r}]()") for name in CASES]
    nb.cells.append(nbformat.v4.new_code_cell("TranslatorExplorer.for_date_model()"))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    return nb


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """A JupyterLab server on 127.0.0.1 serving copies of the generated notebooks."""
    if not CHAPTERS:
        pytest.fail("no generated notebooks in _build/colab: run `make book` first")
    tmp = tmp_path_factory.mktemp("jupyterlab")
    root = tmp / "root"
    root.mkdir()
    (root / ZH).mkdir()
    for name in CHAPTERS:
        shutil.copyfile(GENERATED / name, root / name)
    nbformat.write(gallery(), root / GALLERY)
    settings = tmp / "settings"
    for rel, value in SETTINGS.items():
        path = settings / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "PYTHONPATH"))}
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp / "config"),
        JUPYTER_DATA_DIR=str(tmp / "data"),
        JUPYTER_RUNTIME_DIR=str(tmp / "runtime"),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(tmp / "workspaces"),
        IPYTHONDIR=str(tmp / "ipython"),
        MPLCONFIGDIR=str(tmp / "matplotlib"),
        # one thread per kernel: on a shared machine OpenMP's spinning threads slow a
        # chapter down many times over when the cores are oversubscribed
        OMP_NUM_THREADS="1",
    )
    port = _free_port()
    log = open(tmp / "server.log", "w")  # noqa: SIM115 (closed at teardown)
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("jupyter-lab")),
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            "--ServerApp.allow_root=True",  # containers run tests as root
            "--LabApp.extension_manager=readonly",  # no PyPI queries
            "--LabApp.expose_app_in_browser=True",  # to read the cells' execution state
            f"--ServerApp.root_dir={root}",
        ],
        env=env,
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its kernels are in its process group
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not start:\n{(tmp / 'server.log').read_text()}")
            time.sleep(0.5)
        yield url
    finally:
        _stop(server)
        log.close()


def _stop(server: subprocess.Popen) -> None:
    """Stop the server, then anything left in its process group (its kernels)."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


RUN_STATE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.model.cells;
  const counts = [], errors = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== "code") continue;
    counts.push(cell.executionCount);
    for (const out of cell.outputs.toJSON())
      if (out.output_type === "error") errors.push(`${out.ename}: ${out.evalue}`);
  }
  return { counts, errors };
}"""


KERNEL_READY = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  return panel.sessionContext.isReady && panel.sessionContext.session?.kernel?.status === "idle";
}"""


def _run_all(page) -> None:
    """Run > Run All Cells, then wait until every code cell has run (or one failed)."""
    page.wait_for_function(KERNEL_READY, timeout=120_000)
    for _ in range(3):  # a click before the notebook has settled can go unheard
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        try:
            page.wait_for_function(
                f"({RUN_STATE})().counts.some((c) => c !== null)", timeout=60_000
            )
            break
        except PlaywrightTimeout:
            page.keyboard.press("Escape")
    else:
        pytest.fail("Run > Run All Cells started nothing")
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while True:
        state = page.evaluate(RUN_STATE)
        assert not state["errors"], f"a cell failed: {state['errors']}"
        if state["counts"] and None not in state["counts"]:
            break
        assert time.monotonic() < deadline, f"cells still running after {RUN_TIMEOUT_S} s"
        page.wait_for_timeout(1000)
    page.wait_for_selector(IDLE, timeout=60_000)


def _drawing(explorer) -> str:
    return "".join(svg.inner_html() for svg in explorer.locator("svg").all())


def _redraws(page, explorer, before: str) -> bool:
    for _ in range(20):
        if _drawing(explorer) != before:
            return True
        page.wait_for_timeout(100)
    return False


def _state(page) -> tuple[int, int]:
    """(number of cells, index of the active cell) of the open notebook."""
    return tuple(
        page.evaluate(
            """() => {
          const cells = [...document.querySelectorAll('.jp-Notebook .jp-Cell')];
          return [cells.length, cells.findIndex((c) => c.classList.contains('jp-mod-active'))];
        }"""
        )
    )


def _mouse_to_other_end(page, slider) -> None:
    """Click the slider's track near the end its thumb is furthest from."""
    slider.scroll_into_view_if_needed()
    low, high = float(slider.get_attribute("min")), float(slider.get_attribute("max"))
    current = float(slider.input_value())
    box = slider.bounding_box()
    fraction = 0.1 if current - low > high - current else 0.9
    page.mouse.click(box["x"] + fraction * box["width"], box["y"] + box["height"] / 2)


def _check_slider(page, explorer, slider, tried: dict) -> list[str]:
    problems = []
    before = _drawing(explorer)
    _mouse_to_other_end(page, slider)
    tried["mouse"] += 1
    if not _redraws(page, explorer, before):
        problems.append("did not redraw after a mouse change of a slider")
    # ArrowRight needs room above the current value
    if float(slider.input_value()) >= float(slider.get_attribute("max")):
        box = slider.bounding_box()
        page.mouse.click(box["x"] + 0.1 * box["width"], box["y"] + box["height"] / 2)
    slider.focus()
    cells, active = _state(page)
    value, before = slider.input_value(), _drawing(explorer)
    page.keyboard.press("ArrowRight")
    tried["ArrowRight"] += 1
    if slider.input_value() == value or not _redraws(page, explorer, before):
        problems.append("ArrowRight on a focused slider did not move it and redraw")
    if _state(page) != (cells, active):
        problems.append(f"ArrowRight changed the notebook: (cells, active) {(cells, active)}")
    slider.focus()
    page.keyboard.press("d")
    page.keyboard.press("d")
    tried["D D"] += 1
    page.wait_for_timeout(200)
    if _state(page)[0] != cells:
        raise AssertionError(
            f"D D on a focused slider deleted a cell ({cells} -> {_state(page)[0]})"
        )
    return problems


def _check_picker(page, explorer, picker, tried: dict) -> list[str]:
    """ArrowDown on a focused picker chooses the next option, redraws, and stays there."""
    options = [o.get_attribute("value") for o in picker.locator("option").all()]
    if len(options) < 2:
        return []
    picker.scroll_into_view_if_needed()
    picker.select_option(options[0])
    picker.focus()
    cells, active = _state(page)
    before = _drawing(explorer)
    page.keyboard.press("ArrowDown")
    tried["ArrowDown"] += 1
    problems = []
    if picker.input_value() != options[1] or not _redraws(page, explorer, before):
        problems.append("ArrowDown on a focused picker did not choose the next option and redraw")
    if _state(page) != (cells, active):
        problems.append(f"ArrowDown changed the notebook: (cells, active) {(cells, active)}")
    return problems


def _open(browser, lab: str, name: str, idle: bool = True):
    """The notebook open in JupyterLab; with ``idle``, once its kernel is ready to run it
    (a notebook only read need not wait for the kernel that JupyterLab starts)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # ?reset: a fresh workspace, so no notebook opened before reopens beside this one
    page.goto(f"{lab}/lab/tree/{name}?reset", wait_until="load")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    if idle:
        page.wait_for_selector(IDLE, timeout=120_000)
    return page, errors


def _screenshot(page, name: str) -> None:
    shots = os.environ.get("ATTNBOOK_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        stem = name.removesuffix(".ipynb").replace("/", "-")
        page.screenshot(path=str(Path(shots) / f"{stem}.png"), full_page=False)


def _check_translator(page, explorer) -> list[str]:
    """Typed dates translate as the Python model translates them."""
    from attnbook.data import DATE_VOCAB
    from attnbook.decode import translate
    from attnbook.recipes import load_date_model

    box = explorer.locator('input[name="source"]')
    explorer.locator("svg").first.wait_for(timeout=30_000)
    shown = []
    for text in TRANSLATOR_TEXTS:
        box.fill("")
        box.press_sequentially(text)
        shown.append(explorer.locator('output[name="translation"]').text_content())
    expected = translate(load_date_model(), TRANSLATOR_TEXTS, DATE_VOCAB)
    return [] if shown == expected else [f"translator showed {shown}, Python {expected}"]


def test_every_explorer_in_the_gallery_covers_every_class():
    """The gallery shows an instance of every explorer class ``attnbook.viz`` exports."""
    classes = {
        getattr(viz, n)
        for n in viz.__all__
        if isinstance(getattr(viz, n), type) and issubclass(getattr(viz, n), viz.Explorer)
    }
    classes.discard(viz.Explorer)
    classes.discard(viz.TranslatorExplorer)  # the gallery's last cell
    made = [make() for make in CASES.values()]
    missing = {c.__name__ for c in classes if not any(isinstance(w, c) for w in made)}
    assert classes and not missing, f"not in the gallery: {sorted(missing)}"


def test_explorers_in_jupyterlab(lab, browser):
    """Run All on the gallery; every explorer renders, answers the mouse and the keys, and
    keeps the notebook's own shortcuts from firing."""
    tried = {"mouse": 0, "ArrowRight": 0, "ArrowDown": 0, "D D": 0, "explorers": 0}
    page, errors = _open(browser, lab, GALLERY)
    try:
        _run_all(page)
        expected = len(CASES) + 1
        page.wait_for_function(
            f"document.querySelectorAll('.attnbook-explorer').length >= {expected}",
            timeout=60_000,
        )
        explorers = page.locator(".attnbook-explorer").all()
        assert len(explorers) == expected, f"{len(explorers)} explorers rendered, {expected} run"
        problems = []
        for i, explorer in enumerate(explorers):
            explorer.scroll_into_view_if_needed()
            if "attnbook-translator" in (explorer.get_attribute("class") or ""):
                problems += [f"translator: {p}" for p in _check_translator(page, explorer)]
            explorer.locator("svg").first.wait_for(timeout=30_000)
            tried["explorers"] += 1
            for slider in explorer.locator("input[type=range]").all():
                try:
                    found = _check_slider(page, explorer, slider, tried)
                except AssertionError as deleted:  # the explorers after it have moved
                    pytest.fail("\n".join([*problems, f"explorer {i}: {deleted}"]))
                problems += [f"explorer {i}: {p}" for p in found]
            for picker in explorer.locator("select").all():
                found = _check_picker(page, explorer, picker, tried)
                problems += [f"explorer {i}: {p}" for p in found]
        _screenshot(page, GALLERY)
        assert not problems, "\n".join(problems)
        assert tried["mouse"] and tried["ArrowDown"], f"nothing to try: {tried}"
        assert errors == [], f"page errors: {errors}"
    finally:
        print(f"gallery: tried {tried}", flush=True)
        with contextlib.suppress(Exception):  # free the kernel's memory
            page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.close()


# JupyterLab adds a Markdown cell's output element first and renders its text after: the
# chapter has rendered once its Markdown reads more than a few words
RENDERED_JS = """() => [...document.querySelectorAll('.jp-MarkdownOutput')]
  .map((e) => e.innerText).join('').length > 1000"""


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_opens_in_jupyterlab(lab, browser, name):
    """The generated chapter, opened (not run): its Markdown rendered, no MyST left, no
    MathJax error, no page error."""
    page, errors = _open(browser, lab, name, idle=False)
    try:
        page.wait_for_selector(".jp-MarkdownOutput", timeout=60_000)
        with contextlib.suppress(PlaywrightTimeout):  # the cells fill in after they appear
            page.wait_for_function(RENDERED_JS, timeout=60_000)
        markdown = "\n".join(page.locator(".jp-MarkdownOutput").all_inner_texts())
        assert len(markdown) > 1000, "the chapter's Markdown did not render"
        leftovers = sorted(set(m.group(0) for m in MYST_LEFTOVERS.finditer(markdown)))
        assert not leftovers, f"MyST syntax shown as text: {leftovers}"
        page.wait_for_timeout(500)  # MathJax typesets after the cells render
        assert page.locator("mjx-merror").count() == 0, "MathJax reported a TeX error"
        _screenshot(page, name)
        assert errors == [], f"page errors: {errors}"
    finally:
        page.close()


def test_every_chapter_is_opened():
    """Every chapter, in English and in Chinese."""
    sources = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    expected = sources + [f"{ZH}/{name}" for name in sources]
    assert sources and CHAPTERS == expected, f"generated {CHAPTERS}, chapters {sources}"
