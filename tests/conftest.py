"""Fixtures shared by the whole test run, and the markers that say what a test needs.

- ``browser``: one headless Chromium for the session (``tests/browser.py`` starts it with the
  flags the benchmarks use too). A test that asks for it is marked ``browser``.
- ``site``: the built book (``_build/html``, or ``$ATTNBOOK_SITE``) served on 127.0.0.1 for
  the session. A test that asks for it, or a module marked ``build``, needs ``make book``
  first; without a built site such a test fails and says so.
- ``serve``: serve any folder (a harness page written by a test) until the session ends.

Two more: ``colab``, the run of every chapter in the Colab stand-in, and ``lab``, the checks
in JupyterLab (a test that asks for the ``lab`` fixture). ``make unit`` runs
``-m "not build"`` (no built site needed, so it runs beside the build); once the book is
built, ``make site-test`` (``-m "build and not colab and not lab"``), ``make lab-test`` and
``make colab-test`` run side by side.

With ``$ATTNBOOK_DURATIONS`` set to a folder, each run writes every test's time there
(``tests/slowest.py`` prints the slowest of all runs: ``make test`` ends with them).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import browser as chromium
import pytest

_DURATIONS: dict[str, float] = {}


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "build: needs the built book (`make book`)")
    config.addinivalue_line("markers", "browser: drives headless Chromium")
    config.addinivalue_line("markers", "colab: runs the chapters in the Colab stand-in")
    config.addinivalue_line("markers", "lab: drives JupyterLab (the lab fixture)")


def pytest_runtest_logreport(report) -> None:
    _DURATIONS[report.nodeid] = _DURATIONS.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session) -> None:
    folder = os.environ.get("ATTNBOOK_DURATIONS")
    if folder and _DURATIONS:
        Path(folder).mkdir(parents=True, exist_ok=True)
        out = Path(folder) / f"{os.getpid()}.json"
        out.write_text(json.dumps(_DURATIONS, indent=0), encoding="utf-8")


def pytest_collection_modifyitems(items) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if "browser" in names:
            item.add_marker(pytest.mark.browser)
        if "site" in names:
            item.add_marker(pytest.mark.build)
        if "lab" in names:
            item.add_marker(pytest.mark.lab)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium, started once for every test that drives a page."""
    why = chromium.missing()
    if why:
        pytest.fail(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = chromium.launch(p)
        yield b
        b.close()


@pytest.fixture(scope="session")
def serve():
    """``serve(folder)`` -> its URL on 127.0.0.1, served until the session ends."""
    with contextlib.ExitStack() as stack:
        yield lambda folder: stack.enter_context(chromium.serve(folder))


@pytest.fixture(scope="session")
def site(serve) -> str:
    """The URL of the built book, served on 127.0.0.1."""
    if not (chromium.SITE / "index.html").is_file():
        pytest.fail(f"no built site in {chromium.SITE}: run `make book` first")
    return serve(chromium.SITE)
