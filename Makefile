# The two promised commands: `make serve` and `make test` (the journal's checks);
# `make test-toolkit` runs the toolkit's own suite (toolkit/). Every target sets up
# .venv first, from the pins in requirements.txt, so a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Where pip also looks for PyTorch (torch only). Empty: the default registry alone
# gives torch==2.13.0 (requirements.txt). PyPI's Linux wheel of that version is the
# CUDA build (several GB); for the CPU-only wheel set, on a fresh .venv,
#   make setup TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
# (there 2.13.0+cpu, which the pin admits and pip prefers). CI sets it (pages.yml).
TORCH_INDEX_URL ?=
TORCH_PIN = $(shell grep -E '^torch==' requirements.txt)
FONT_STAMP := .cache/fonts/.installed
PYTEST_ARGS ?= -n 2
# make serve PORT=8001 (SERVE_HOST=...): where the live site listens.
SERVE_HOST ?= 127.0.0.1
PORT ?= 8000
POSTS ?=

export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test test-toolkit check lint lint-toolkit build update-outputs new bench fuzz clean setup

setup: $(STAMP) $(FONT_STAMP)

$(STAMP): requirements.txt toolkit/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(if $(TORCH_INDEX_URL),$(BIN)/pip install --quiet --extra-index-url '$(TORCH_INDEX_URL)' '$(TORCH_PIN)')
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e toolkit
	touch $@

# A math font served with the site (not committed): installed from the npm
# registry at set-up. Without npm the pages fall back to the reader's math font,
# except under CI=true: there a failed install fails set-up (the font tests
# would fail anyway, journal_tools/testing/prerequisites.py), and no stamp is left to skip it next time.
$(FONT_STAMP):
	$(BIN)/python -m journal_tools.mkdocs_plugin.fonts install || case "$$CI" in \
	  1|true|TRUE|True|yes) echo "math font not installed, and CI=$$CI needs it" >&2; exit 1;; \
	  *) echo "math font not installed: pages fall back to font-family: math";; esac
	mkdir -p $(dir $@) && touch $@

# A busy port is reported in one line before anything is built. POSTS: how many recent
# entries to serve (20 when empty, `all` for every one; journal_tools/serve/window.py).
serve: setup
	@$(BIN)/python -m journal_tools.serve.port $(SERVE_HOST) $(PORT)
	JOURNAL_POSTS='$(POSTS)' $(BIN)/mkdocs serve --dev-addr $(SERVE_HOST):$(PORT) --livereload --watch snippets --watch toolkit/src/journal_tools

# The journal's checks: its pages, snippets, strict build and built site (tests/, docs/).
test: setup lint
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The toolkit's own suite (toolkit/tests/), run from here: it reads this checkout's pins and
# math font, and builds only its fixture journal. CI runs it beside `make test`.
test-toolkit: setup lint-toolkit
	$(BIN)/python -m pytest -c toolkit/pyproject.toml --rootdir toolkit toolkit/tests $(PYTEST_ARGS)

# One page's tests, the small loop while writing: make check PAGE=docs/blog/posts/<entry>.md
# (or a notebook, docs/notebooks/<name>.py). Its render check and its code blocks, in page order.
check: setup
	@test -n "$(PAGE)" || { echo "usage: make check PAGE=docs/blog/posts/<entry>.md" >&2; exit 2; }
	@test -f "$(PAGE)" || { echo "make check: no such page: $(PAGE)" >&2; exit 2; }
	$(BIN)/python -m pytest $(PAGE) -p no:randomly

# A long fuzz run of the page readers (toolkit/tests/core/test_fuzz_pages.py; make test-toolkit runs
# a fixed sample of 500): FUZZ_EXAMPLES random pages. Hypothesis keeps each failure
# it finds in .cache/hypothesis and replays it first on the next run.
FUZZ_EXAMPLES ?= 20000
fuzz: setup
	JOURNAL_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -c toolkit/pyproject.toml --rootdir toolkit \
		toolkit/tests/core/test_fuzz_pages.py -k fuzzed_pages \
		-p no:randomly -n 0

# The journal's static checks, one line per tool; any finding fails. ruff on the journal's own
# Python (snippets/, tests/, the notebooks in docs/; pyproject.toml's settings: pyflakes,
# pycodestyle, import order, mccabe complexity <= 12). zizmor audits the workflow and
# dependabot.yml offline with every audit on (the auditor persona) and fails on a file it
# cannot parse (--strict-collection).
lint: setup
	$(BIN)/ruff check --no-cache snippets tests docs
	$(BIN)/zizmor --offline --persona auditor --strict-collection --no-progress .github/

# The toolkit's static checks, run by `make test-toolkit`: ruff with toolkit/pyproject.toml's
# settings (docstrings on public functions too), and lint-imports: the layers of journal_tools
# (core < compat < the three plugins < commands < testing), the contract in
# toolkit/pyproject.toml's [tool.importlinter]; its cache would go stale across branches.
lint-toolkit: setup
	$(BIN)/ruff check --no-cache toolkit
	$(BIN)/lint-imports --no-cache --config toolkit/pyproject.toml

# Builds into a temporary folder and swaps it into site/ only when the build succeeds.
build: setup
	$(BIN)/python -m journal_tools.commands.build

# Rewrites what the code printed into the pages (every page, or PAGE=docs/blog/posts/<entry>.md alone).
update-outputs: setup
	@test -z "$(PAGE)" || test -f "$(PAGE)" || { echo "make update-outputs: no such page: $(PAGE)" >&2; exit 2; }
	$(BIN)/python -m pytest $(or $(PAGE),docs) --update-outputs -p no:randomly

# The title reaches the command as typed: $(value) keeps make from expanding a $ in
# it, single quotes (a ' written '\'') keep the shell from reading " $ ` \ in it.
new: setup
	$(BIN)/python -m journal_tools.commands.new_entry '$(subst ','\'',$(value TITLE))' $(if $(CATEGORY),--category '$(subst ','\'',$(value CATEGORY))') $(if $(AUTHOR),--author '$(subst ','\'',$(value AUTHOR))') $(if $(SERIES),--series '$(subst ','\'',$(value SERIES))')

# make bench BENCH_ARGS="--quick" (or --only 7,9): see toolkit/benchmarks/run.py.
bench: setup
	$(BIN)/python toolkit/benchmarks/run.py $(BENCH_ARGS)

# Keeps .cache/fonts (the math font installed at set-up): deleting it would make
# the next build fetch it from npm again and re-subset it.
clean:
	rm -rf site .pytest_cache
	if [ -d .cache ]; then find .cache -mindepth 1 -maxdepth 1 ! -name fonts -exec rm -rf {} +; fi
