"""Corridor's outputs through the validators other tools use: GDAL's validate_gpkg.py, the
GeoJSON JSON Schema and RFC 7946, the Nu Html Checker, and geopy's own tests for geocoders.

Each validator is installed by name by `make install-dev` (PyPI, npm, or geopy's source
distribution); nothing of theirs is copied here.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
import shapely
from shapely.geometry import shape

from geo import export
from geo.geocoding import OfflineGeocoder
from geo.mapview import ALL_LAYERS, MapView
from geo.mapview.place_labels import LabelLanguage
from geo.records import Scenario
from geo.scenario import read_scenario, write_scenario
from geo.settings import Settings
from geo.store import open_workspace
from geo.synthetic import generate

ROOT = Path(__file__).resolve().parent.parent
VALIDATORS = ROOT / "validators" / "node_modules"
VNU = VALIDATORS / "vnu-jar" / "build" / "dist" / "vnu.jar"
GEOJSON_SCHEMA = VALIDATORS / "geojson-schema" / "FeatureCollection.json"
GEOPY_VERSION = re.search(r"^geopy==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
GEOPY_TESTS = ROOT / ".cache" / f"geopy-{GEOPY_VERSION[1] if GEOPY_VERSION else ''}" / "test"
MOMENTS = [datetime(2016, 12, 15, hour, tzinfo=UTC) for hour in (11, 13, 16, 20)]


@pytest.fixture(scope="module")
def shipped() -> Scenario:
    return read_scenario(Settings.from_environment().default_scenario_dir)


@pytest.fixture(scope="module")
def synthetic() -> Scenario:
    return generate(events=200, convoys=20, zones=12)


def snapshot(scenario: Scenario, at: datetime, **view: Any) -> export.Snapshot:
    return export.Snapshot(scenario, MapView(at=at, layers=frozenset(ALL_LAYERS), **view))


# --- GeoPackage: GDAL's validate_gpkg.py ---------------------------------------------------


def validate_gpkg(path: Path) -> str:
    """What GDAL's validator says of a file (nothing when it is valid)."""
    done = subprocess.run(
        [sys.executable, "-m", "osgeo_utils.samples.validate_gpkg", str(path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return (done.stdout + done.stderr).strip() or ("" if done.returncode == 0 else "failed")


def test_gdals_validator_catches_a_broken_geopackage(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "not.gpkg"
    sqlite3.connect(path).execute("create table x(a)").connection.commit()
    assert "Wrong application_id" in validate_gpkg(path)


def test_the_workspace_passes_gdals_validator(
    shipped: Scenario, synthetic: Scenario, tmp_path: Path
) -> None:
    path = tmp_path / "workspace.gpkg"
    open_workspace(path).save(shipped)
    open_workspace(path).save(synthetic)
    assert validate_gpkg(path) == ""


def test_every_geopackage_export_passes_gdals_validator(shipped: Scenario, tmp_path: Path) -> None:
    for number, at in enumerate(MOMENTS):
        path = tmp_path / f"export-{number}.gpkg"
        path.write_bytes(export.render(snapshot(shipped, at), "gpkg"))
        assert validate_gpkg(path) == "", at


# --- GeoJSON: the JSON Schema and RFC 7946 ----------------------------------------------


DECIMALS = re.compile(r"-?\d+\.(\d+)")


def rfc7946_problems(document: dict[str, Any]) -> list[str]:
    """Rings wound the wrong way (section 3.1.6) and coordinates past 7 decimals (11.2)."""
    problems = []
    for feature in document["features"]:
        geometry = shape(feature["geometry"])
        where = f"{feature['properties'].get('layer')} {feature['properties'].get('id')}"
        for polygon in shapely.get_parts(geometry):
            if polygon.geom_type != "Polygon":
                continue
            if not polygon.exterior.is_ccw:
                problems.append(f"{where}: exterior ring clockwise")
            if any(ring.is_ccw for ring in polygon.interiors):
                problems.append(f"{where}: hole anticlockwise")
        longest = max(
            (len(m) for m in DECIMALS.findall(json.dumps(feature["geometry"]))), default=0
        )
        if longest > 7:
            problems.append(f"{where}: {longest} decimals")
    return problems


@pytest.fixture(scope="module")
def feature_collection_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(GEOJSON_SCHEMA.read_text(encoding="utf-8"))
    return schema


def test_the_checks_catch_clockwise_rings_and_long_coordinates() -> None:
    clockwise = {"type": "Polygon", "coordinates": [[[0, 0], [0, 1.123456789], [1, 1], [0, 0]]]}
    document = {"features": [{"properties": {"layer": "zones", "id": "z"}, "geometry": clockwise}]}
    assert rfc7946_problems(document) == ["zones z: exterior ring clockwise", "zones z: 9 decimals"]


@pytest.mark.parametrize("which", ["shipped", "synthetic"])
def test_geojson_exports_pass_the_schema_and_rfc_7946(
    which: str, request: pytest.FixtureRequest, feature_collection_schema: dict[str, Any]
) -> None:
    scenario = request.getfixturevalue(which)
    moments = MOMENTS if which == "shipped" else [scenario.start]
    for at in moments:
        document = json.loads(export.render(snapshot(scenario, at), "geojson"))
        assert document["features"]
        jsonschema.validate(document, feature_collection_schema)
        assert rfc7946_problems(document) == []


def test_generated_zones_are_written_anticlockwise(synthetic: Scenario, tmp_path: Path) -> None:
    folder = write_scenario(synthetic, tmp_path / synthetic.id)
    document = json.loads((folder / "zones.geojson").read_text(encoding="utf-8"))
    wrong = [p for p in rfc7946_problems(document) if "clockwise" in p]
    assert wrong == []


# --- HTML: the Nu Html Checker -------------------------------------------------------------


def nu_messages(path: Path) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["java", "-jar", str(VNU), "--format", "json", "--exit-zero-always", str(path)],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    messages: list[dict[str, Any]] = json.loads(done.stderr or done.stdout)["messages"]
    return messages


def test_html_exports_pass_the_nu_html_checker(shipped: Scenario, tmp_path: Path) -> None:
    pages = []
    for name, view in {"english": {}, "arabic": {"labels": LabelLanguage.BOTH}}.items():
        path = tmp_path / f"{name}.html"
        path.write_bytes(export.render(snapshot(shipped, MOMENTS[1], **view), "html"))
        pages.append(path)
    for path in pages:
        messages = nu_messages(path)
        errors = [m["message"] for m in messages if m["type"] == "error"]
        assert errors == [], path.name
        warnings = [m["message"] for m in messages if m.get("subType") == "warning"]
        assert not [w for w in warnings if "viewport" in w], path.name


def test_the_nu_checker_finds_a_script_after_the_body(tmp_path: Path) -> None:
    path = tmp_path / "bad.html"
    path.write_text(
        '<!DOCTYPE html><html lang="en"><head><title>x</title></head><body></body>'
        "<script>1</script></html>",
        encoding="utf-8",
    )
    assert [m["message"] for m in nu_messages(path) if m["type"] == "error"]


# --- geopy's own tests for geocoders --------------------------------------------------------


def geopy_test_module(name: str, file: str) -> ModuleType:
    """A module of geopy's test suite (from its source distribution; see the Makefile)."""
    spec = importlib.util.spec_from_file_location(name, GEOPY_TESTS / "geocoders" / file)
    assert spec is not None, f"{GEOPY_TESTS} is missing: make install-dev"
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEOPY_CHECKS = geopy_test_module("geopy_geocoder_checks", "__init__.py")
GEOPY_BASE = geopy_test_module("geopy_geocoder_test_base", "util.py")


def test_geopys_init_signature_check_passes() -> None:
    GEOPY_CHECKS.test_init_method_signature(OfflineGeocoder)


def test_geopys_geocode_signature_check_passes() -> None:
    GEOPY_CHECKS.test_geocode_method_signature(OfflineGeocoder)


def test_geopys_reverse_signature_check_passes() -> None:
    GEOPY_CHECKS.test_reverse_method_signature(OfflineGeocoder)


def test_geopys_check_for_extra_public_methods_passes() -> None:
    GEOPY_CHECKS.test_no_extra_public_methods(OfflineGeocoder)


def test_geopys_signature_check_catches_an_undocumented_parameter() -> None:
    class Undocumented(OfflineGeocoder):  # type: ignore[misc]
        def reverse(self, query: Any, *, exactly_one: bool = True, timeout: Any = None) -> Any:
            """Nothing documented."""

    with pytest.raises(AssertionError, match="timeout"):
        GEOPY_CHECKS.test_reverse_method_signature(Undocumented)


def geopy_base_cases() -> ModuleType:
    """geopy's tests of its Geocoder base class, each run on OfflineGeocoder instead."""
    module = geopy_test_module("geopy_base_geocoder_cases", "base.py")
    module.Geocoder = OfflineGeocoder  # type: ignore[attr-defined]
    return module


GEOPY_BASE_CASES = geopy_base_cases()


class TestGeopysGeocoderCasesOnOfflineGeocoder(GEOPY_BASE_CASES.GeocoderTestCase):  # type: ignore[misc, name-defined]
    """Options, user agent, timeout and SSL context taken as every geopy geocoder takes them."""


class TestGeopysPointCasesOnOfflineGeocoder(GEOPY_BASE_CASES.GeocoderPointCoercionTestCase):  # type: ignore[misc, name-defined]
    """Points given as geopy's geocoders take them."""


class TestGeopysBoxCasesOnOfflineGeocoder(GEOPY_BASE_CASES.GeocoderFormatBoundingBoxTestCase):  # type: ignore[misc, name-defined]
    """Bounding boxes given as geopy's geocoders take them."""


def test_geopys_base_cases_make_offline_geocoders() -> None:
    case = TestGeopysGeocoderCasesOnOfflineGeocoder()
    case.setUpClass()
    assert type(case.geocoder) is OfflineGeocoder


@pytest.fixture(scope="session")
def is_internet_access_allowed() -> bool:
    return False  # (geopy's own conftest reads a command-line flag; Corridor never goes online)


@pytest.fixture(scope="session")
def patch_adapter() -> None:
    """geopy's conftest wraps its HTTP adapter for retries; an offline geocoder sends nothing."""


class TestOfflineGeocoderOnGeopysBase(GEOPY_BASE.BaseTestGeocoder):  # type: ignore[misc, name-defined]
    """geopy's BaseTestGeocoder, as every geocoder in geopy is tested."""

    @classmethod
    def make_geocoder(cls, **kwargs: Any) -> OfflineGeocoder:
        return OfflineGeocoder(**kwargs)

    async def test_geocode(self) -> None:
        await self.geocode_run({"query": "Aleppo"}, {"latitude": 36.2, "longitude": 37.16})

    async def test_geocode_many(self) -> None:
        found = await self.geocode_run({"query": "Idlib", "exactly_one": False}, {})
        assert len(found) >= 1

    async def test_geocode_nothing(self) -> None:
        await self.geocode_run({"query": "Qwzxqwzx Qwzx"}, {}, expect_failure=True)

    @pytest.mark.parametrize(
        "query",
        [(36.20124, 37.16117), "36.20124, 37.16117", "36.20124 37.16117", "36.20124,37.16117"],
    )
    async def test_reverse(self, query: Any) -> None:
        await self.reverse_run({"query": query}, {"latitude": 36.2, "longitude": 37.16})

    @pytest.mark.parametrize(
        ("query", "expected"),
        [((13.45, 22.44), (13.45, 22.45)), ((47.10, 37.55), (47.10, 37.55)),
         ((31.34, 34.30), (31.35, 34.30)), ((40.42, -3.70), (40.42, -3.70))],
    )  # fmt: skip
    async def test_reverse_answers_with_the_point_asked_about(
        self, query: Any, expected: tuple[float, float]
    ) -> None:  # (El Geneina, Mariupol, Khan Younis, Madrid)
        latitude, longitude = expected
        await self.reverse_run({"query": query}, {"latitude": latitude, "longitude": longitude})

    @pytest.mark.parametrize("query", [(200, 10), (float("nan"), 1), (-91, 0), "not a point"])
    async def test_reverse_refuses_what_is_no_point(self, query: Any) -> None:
        with pytest.raises(ValueError, match=r"Latitude must be|must be finite|Failed to create"):
            await self.reverse_run({"query": query}, {})
