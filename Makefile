# Corridor: `make run` serves the dashboard on the shipped scenario; `make test` runs every check.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SCENARIO := data/scenarios/aleppo-2016-12
PORT ?= 8501
GEOPY_VERSION := $(shell sed -n 's/^geopy==//p' requirements.txt)
GEOPY_TESTS := .cache/geopy-$(GEOPY_VERSION)
TEST_DATABASE ?= corridor_test
TEAM_DATABASE ?= corridor
TEAM_URL ?= postgresql://postgres@127.0.0.1:5432/$(TEAM_DATABASE)
TEAM ?=

.PHONY: run prepare test install install-dev gazetteer workspace chromium chromium-if-possible arabic-font arabic-font-if-possible \
	postgis team-database check lint typecheck pytest clean

run: prepare
	$(VENV)/bin/streamlit run dashboard.py --server.port $(PORT) --server.headless true

# Everything `make run` needs before it serves: the runtime, the gazetteer's index, the
# workspace, and Chromium for PNG/PDF snapshots (tests/test_install.py runs this on a clone).
prepare: install gazetteer workspace chromium-if-possible arabic-font-if-possible

test: install-dev gazetteer chromium arabic-font postgis check

install: $(VENV)/.installed assets/node_modules/.installed

install-dev: $(VENV)/.installed-dev assets/node_modules/.installed validators/node_modules/.installed \
	$(GEOPY_TESTS)/.extracted

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
	  { echo "Corridor needs Python 3.11 or newer as $(PYTHON) (set PYTHON=...)"; exit 1; }
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  rm -rf $(VENV); \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" -eq 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null; \
	  else echo "Cannot create a virtual environment: install python3-venv (Debian: sudo apt-get install python3-venv)"; exit 1; fi; \
	  $(PYTHON) -m venv $(VENV); }

$(VENV)/.installed: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements-dev.txt requirements-dev-nodeps.txt requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-dev-nodeps.txt
	touch $(VENV)/.installed $@

# The validators other tools use, which the tests run on Corridor's outputs: the Nu Html
# Checker (a Java program) and the GeoJSON JSON Schemas, pinned in validators/package-lock.json.
validators/node_modules/.installed: validators/package.json validators/package-lock.json
	@scripts/ensure-tool.sh npm "the validators come from npm packages" npm
	@scripts/ensure-tool.sh default-jre-headless "the Nu Html Checker runs on Java" java
	npm ci --prefix validators --no-audit --no-fund --loglevel=error
	touch $@

# geopy's own tests for geocoders (test/geocoders/ of the geopy release pinned in
# requirements.txt, from its source distribution on PyPI), run against OfflineGeocoder.
$(GEOPY_TESTS)/.extracted: requirements.txt | $(VENV)/bin/python
	rm -rf $(GEOPY_TESTS) && mkdir -p $(GEOPY_TESTS)
	$(PY) -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
	  geopy==$(GEOPY_VERSION) -d $(GEOPY_TESTS)
	tar -xzf $(GEOPY_TESTS)/geopy-$(GEOPY_VERSION).tar.gz -C $(GEOPY_TESTS) --strip-components=1 \
	  geopy-$(GEOPY_VERSION)/test/geocoders/__init__.py geopy-$(GEOPY_VERSION)/test/geocoders/util.py \
	  geopy-$(GEOPY_VERSION)/test/geocoders/base.py
	touch $@

# Leaflet and its plugins, pinned in assets/package-lock.json, inlined into every map (no CDN).
assets/node_modules/.installed: assets/package.json assets/package-lock.json
	@scripts/ensure-tool.sh npm "the map's Leaflet assets come from npm packages" npm
	npm ci --prefix assets --no-audit --no-fund --loglevel=error
	touch $@

# The offline gazetteer's index, cached in .cache/: GeoNames is indexed once (about 10 s), then
# only the curated files in data/gazetteer/ are re-indexed when they change (under 2 s).
gazetteer: install
	$(PY) -c 'from geo import geocoding; geocoding.default()'

workspace: install
	$(PY) -m geo import $(SCENARIO) --if-missing

# PostGIS for the tests of the team workspace (tests/test_postgis.py): Debian's package for
# the running PostgreSQL where the extension is missing, and the database $(TEST_DATABASE).
postgis:
	@scripts/ensure-postgis.sh $(TEST_DATABASE)

# A team's workspace in PostGIS, in one command on a machine with PostgreSQL: the shipped
# workspace copied into $(TEAM_URL) (unless it holds one already), and the team's roles, e.g.
#   make team-database TEAM_DATABASE=aleppo TEAM="--editor ana --viewer desk"
team-database: workspace
	@scripts/ensure-postgis.sh $(TEAM_DATABASE)
	$(PY) -m geo workspace copy data/workspace.gpkg $(TEAM_URL) --if-missing
	$(PY) -m geo team init $(TEAM_URL) $(TEAM)

chromium:
	@scripts/ensure-tool.sh chromium "browser tests and PNG/PDF snapshots" \
	  chromium chromium-browser google-chrome

# The dashboard runs without Chromium: its PNG and PDF buttons then say how to install it.
chromium-if-possible:
	@scripts/ensure-tool.sh chromium "PNG and PDF snapshots" chromium chromium-browser google-chrome \
	  || echo "Corridor: no Chromium, so PNG and PDF exports will say how to install it."

# Arabic place names and words in PNG and PDF snapshots need a font that shapes Arabic; where
# fontconfig knows none, Debian's fonts-noto-core brings Noto Sans Arabic (SIL OFL 1.1).
arabic-font: chromium
	@scripts/ensure-font.sh ar fonts-noto-core "Arabic names in PNG and PDF snapshots"

arabic-font-if-possible: chromium-if-possible
	@scripts/ensure-font.sh ar fonts-noto-core "Arabic names in PNG and PDF snapshots" \
	  || echo "Corridor: no Arabic font, so Arabic names in PNG and PDF may show as boxes."

check: lint typecheck pytest

lint:
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck:
	$(VENV)/bin/mypy

# The slowest modules first (about 4, 3 and 2 minutes of one worker), so that no worker is
# left with a long one while the other has finished; the rest follow in their usual order.
SLOWEST_TESTS := tests/test_browser_edit.py tests/test_install.py tests/test_browser_view.py \
	tests/test_browser_team.py tests/test_dashboard_app.py

pytest:
	$(PY) -m pytest -n auto --dist loadfile $(SLOWEST_TESTS) tests

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache tests/artifacts
