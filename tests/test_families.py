"""One interface test per family (stores, import formats, report languages, geocoders, map layers,
map elements): every member its registry lists answers the family's interface, and every
member found in the family's modules is listed, so that a new file that skips either fails."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import folium
import pytest
from branca.element import Element, Figure, MacroElement
from conftest import STORES
from geopy.geocoders.base import Geocoder
from geopy.location import Location

import geo
from geo import mapview, readers, store
from geo.errors import ProblemLog
from geo.geocoding import OfflineGeocoder
from geo.geocoding.online import Fallback
from geo.mapview import ALL_LAYERS, LAYER_LABELS, MapView
from geo.readers import zipped
from geo.reading import base as reading_base
from geo.reading import report
from geo.reading.mentions import NOUN_KINDS, Extraction, PlaceMention
from geo.scenario import read_scenario
from geo.store import GeoPackageWorkspace, Workspace, open_workspace
from geo.store.postgis import PostgisWorkspace

DATA = Path(__file__).parent / "data"
TINY_GAZETTEER = DATA / "geocoding" / "tiny-gazetteer.csv"
TINY_DIR = DATA / "scenarios" / "tiny"


def modules(package: ModuleType) -> Iterator[ModuleType]:
    """Every module of a package, imported (geo's own `__main__` left out: it runs the CLI)."""
    for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if not found.name.endswith("__main__"):
            yield importlib.import_module(found.name)


def subclasses(base: type, package: ModuleType) -> set[type]:
    """Every class below `base` defined in `package`'s modules (each of them imported)."""
    prefix = f"{package.__name__}."
    list(modules(package))
    found: set[type] = set()
    todo: list[type] = [base]
    while todo:
        children: list[type] = todo.pop().__subclasses__()
        for child in children:
            todo.append(child)
            if child.__module__.startswith(prefix):
                found.add(child)
    return found


def shape(function: Callable[..., Any]) -> list[tuple[str, Any]]:
    """A signature's parameters (name and kind), what a caller of the interface relies on."""
    return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]


# --- stores: a subclass of `Workspace` in geo/store/, opened by `open_workspace` -------------

STORE_LOCATIONS: dict[type, Callable[[Path], Path | str]] = {
    GeoPackageWorkspace: lambda folder: folder / "workspace.gpkg",
    PostgisWorkspace: lambda folder: "postgresql://corridor@127.0.0.1:5432/nowhere",
}
"""Where each store is opened from (nothing is connected to or written)."""
STORE_CLASSES = sorted(subclasses(Workspace, store), key=lambda cls: cls.__name__)


def test_every_store_is_opened_by_open_workspace_and_named_in_the_workspace_tests() -> None:
    assert set(STORE_CLASSES) == set(STORE_LOCATIONS), "a store with no location to open it from"
    assert len(STORES) == len(STORE_CLASSES), "a store the workspace tests (conftest.STORES) skip"


@pytest.mark.parametrize("store_class", STORE_CLASSES, ids=lambda cls: cls.__name__)
def test_a_store_answers_the_workspace_interface(store_class: type, tmp_path: Path) -> None:
    assert not inspect.isabstract(store_class), vars(store_class).get("__abstractmethods__")
    for name in sorted(Workspace.__abstractmethods__):
        declared, given = inspect.getattr_static(Workspace, name), getattr(store_class, name)
        if isinstance(declared, property):
            assert isinstance(inspect.getattr_static(store_class, name), property), name
        else:
            assert shape(given) == shape(declared), name
    workspace = open_workspace(STORE_LOCATIONS[store_class](tmp_path))
    assert type(workspace) is store_class
    assert isinstance(workspace.shared, bool)
    assert isinstance(workspace.label, str)
    assert workspace.label
    assert open_workspace(workspace.location).location == workspace.location
    assert isinstance(workspace.without_login(), str)


# --- import formats: a module in geo/readers/ listed in `MODULES` ---------------------------

FORMAT_SAMPLES = {
    "csv": "places.csv",
    "xlsx": "dtm.xlsx",
    "ods": "dtm.ods",
    "geojson": "zones.geojson",
    "kml": "zones.kml",
    "gpx": "track.gpx",
    "gpkg": "zones.gpkg",
    "zip": "zones_shp.zip",
}
"""A tiny file of each format (tests/data/import)."""
READER_HELPERS = {"base", "text", "safezip", "acled", "columnar"}
"""The modules of geo/readers/ that read no format of their own (what the readers share)."""
FORMAT_MODULES = [*readers.MODULES, zipped]


def test_every_module_of_geo_readers_is_a_listed_format_or_a_helper() -> None:
    names = {module.__name__.rpartition(".")[2] for module in modules(readers)}
    listed = {module.__name__.rpartition(".")[2] for module in FORMAT_MODULES}
    assert names - READER_HELPERS == listed
    assert set(FORMAT_SAMPLES) == set(readers.FORMATS), "a format with no sample file here"


@pytest.mark.parametrize("module", FORMAT_MODULES, ids=lambda module: module.__name__)
def test_an_import_format_answers_the_reader_interface(module: ModuleType) -> None:
    assert module.SUFFIXES, "SUFFIXES: each file-name suffix read and its format"
    assert shape(module.read)[:5] == shape(lambda path, file, layer, log, limits: None)
    for suffix, found in module.SUFFIXES.items():
        assert suffix.startswith("."), suffix
        assert suffix == suffix.lower(), suffix
        assert readers.SUFFIXES[suffix] == found
        assert suffix.removeprefix(".") in readers.UPLOAD_TYPES
        path = DATA / "import" / FORMAT_SAMPLES[found]
        log = ProblemLog()
        tables = readers.READERS[found](path, path.name, None, log, readers.DEFAULT_LIMITS)
        assert not log.errors, list(log)
        assert tables
        assert all(table.layer in readers.LAYERS and table.rows for table in tables)


# --- report languages: a `Reader` in geo/reading/ listed in `READERS` ------------------------

LANGUAGE_SAMPLES = {
    "English": "ALEPPO, Syria, Dec 15 - Twenty buses left Aleppo for Idlib on Thursday.",
    "Arabic": "غادرت عشرون حافلة مدينة حلب باتجاه إدلب يوم الخميس.",
}
"""A line of a report in each language, counting twenty buses."""


@pytest.fixture(scope="module")
def tiny_geocoder() -> OfflineGeocoder:
    return OfflineGeocoder(curated=[TINY_GAZETTEER], geonames=False, country_bias="SY")


def test_every_reader_of_geo_reading_is_listed_once() -> None:
    listed = [type(reader) for reader in report.READERS]
    assert sorted(listed, key=str) == sorted(subclasses(reading_base.Reader, geo.reading), key=str)
    assert len(set(listed)) == len(listed)
    assert {reader.language for reader in report.READERS} == set(LANGUAGE_SAMPLES)


@pytest.mark.parametrize("reader", report.READERS, ids=lambda reader: reader.language)
def test_a_report_language_answers_the_reader_interface(
    reader: reading_base.Reader, tiny_geocoder: OfflineGeocoder
) -> None:
    text = LANGUAGE_SAMPLES[reader.language]
    assert reader.detects(text) is True
    assert report.reader_for(text) is reader
    read = reader.read(text, published=date(2016, 12, 15), geocoder=tiny_geocoder, homes=("SY",))
    assert isinstance(read, Extraction)
    places = reader.places(text, tiny_geocoder)
    assert isinstance(places, list)
    assert all(isinstance(p, PlaceMention) for p in places)
    assert isinstance(reader.dateline(text, tiny_geocoder), str)
    kinds = [reader.noun_kind(figure.what) for figure in read.figures]
    assert kinds == ["vehicles"]  # (twenty buses)
    assert reader.noun_kind("nothing counted") in {*NOUN_KINDS, ""}


# --- geocoders: a geopy `Geocoder` anywhere in geo/ --------------------------------------------


class Unreachable(Geocoder):  # type: ignore[misc]
    """An online geocoder that knows no place (the fallback's second)."""

    def geocode(self, query: str, **options: Any) -> None:
        return None


GEOCODERS: dict[type, Callable[[OfflineGeocoder], Geocoder]] = {
    OfflineGeocoder: lambda offline: offline,
    Fallback: lambda offline: Fallback(offline, Unreachable(), min_delay_seconds=0),
}
"""How each of Corridor's geocoders is made over the tiny gazetteer."""


def test_every_geocoder_of_geo_is_made_here() -> None:
    assert subclasses(Geocoder, geo) == set(GEOCODERS)


@pytest.mark.parametrize("kind", list(GEOCODERS), ids=lambda cls: cls.__name__)
def test_a_geocoder_answers_geopys_interface(
    kind: type[Any], tiny_geocoder: OfflineGeocoder
) -> None:
    geocoder: Any = GEOCODERS[kind](tiny_geocoder)
    assert type(geocoder) is kind
    found = geocoder.geocode("Aleppo")
    assert isinstance(found, Location)
    assert (round(found.latitude, 1), round(found.longitude, 1)) == (36.2, 37.2)
    assert geocoder.geocode("Nowhere At All") is None
    many = geocoder.geocode("Idlib", exactly_one=False)
    assert isinstance(many, list)
    assert all(isinstance(one, Location) for one in many)
    near = geocoder.reverse((36.2, 37.16))
    assert isinstance(near, Location)
    assert near.raw["name"] == "Aleppo"


# --- map layers: a key of `LAYER_LABELS`, one toggle in the map ------------------------------


@pytest.fixture(scope="module")
def every_layer() -> dict[tuple[str, str], list[folium.FeatureGroup]]:
    """The layer groups of a map of the tiny scenario, every layer shown, then none."""
    scenario = read_scenario(TINY_DIR)
    at = datetime(2016, 12, 15, 12, tzinfo=UTC)
    shown = mapview.build_map(scenario, MapView(at=at, layers=frozenset(ALL_LAYERS)))
    hidden = mapview.build_map(scenario, MapView(at=at, layers=frozenset()))
    groups: dict[tuple[str, str], list[folium.FeatureGroup]] = {}
    for name, built in (("shown", shown), ("hidden", hidden)):
        for child in walk(built):
            if isinstance(child, folium.FeatureGroup):
                groups.setdefault((name, child.layer_name), []).append(child)
    return groups


def walk(element: Element) -> Iterator[Element]:
    for child in element._children.values():
        yield child
        yield from walk(child)


@pytest.mark.parametrize("key", ALL_LAYERS)
def test_a_map_layer_is_one_toggle_shown_as_the_view_asks(
    key: str, every_layer: dict[tuple[str, str], list[folium.FeatureGroup]]
) -> None:
    label = LAYER_LABELS[key]
    assert isinstance(label, str)
    assert label
    assert [group.show for group in every_layer["shown", label]] == [True]
    assert [group.show for group in every_layer["hidden", label]] == [False]


# --- map elements: a branca element class in geo/mapview/ with its template ------------------

ELEMENTS = sorted(subclasses(Element, geo), key=lambda cls: (cls.__module__, cls.__name__))


@pytest.mark.parametrize("element", ELEMENTS, ids=lambda cls: cls.__name__)
def test_a_map_element_lives_in_mapview_and_renders_its_own_template(element: type) -> None:
    assert element.__module__.startswith("geo.mapview."), element.__module__
    own = [k for k in element.__mro__ if k not in (Element, MacroElement, Figure, object)]
    assert any("_template" in vars(k) or "render" in vars(k) for k in own)
