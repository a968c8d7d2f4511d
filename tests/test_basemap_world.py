"""The world's base map around a scenario outside the Levant: outlines, divisions and town
names around its extent, offline, in the map, the locator and the PNG."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from conftest import OfflinePage
from PIL import Image
from shapely.geometry import shape

from geo import export, mapview
from geo.mapview import MapView, basemap
from geo.mapview.place_labels import LabelLanguage
from geo.records import Scenario
from geo.scenario import read_scenario

ROOT = Path(__file__).resolve().parent
AZOV_DIR = ROOT / "data" / "scenarios" / "azov"
SHIPPED_DIR = ROOT.parent / "data" / "scenarios" / "aleppo-2016-12"
AT = datetime(2022, 5, 1, 12, 0, tzinfo=UTC)
LAND = (0xFB, 0xFA, 0xF6)
SEA = (0xD4, 0xE4, 0xEE)
DONETSK = re.compile(r"^Donetsk")


@pytest.fixture(scope="module")
def azov() -> Scenario:
    return read_scenario(AZOV_DIR)


def render(scenario: Scenario, language: LabelLanguage = LabelLanguage.ENGLISH) -> str:
    view = MapView(at=AT, labels=language)
    return str(mapview.build_map(scenario, view).get_root().render())


def names(collection: dict[str, object]) -> list[str]:
    features = collection["features"]
    assert isinstance(features, list)
    return [feature["properties"]["name"] for feature in features]


# --- which base, and what it holds -----------------------------------------------------------


def test_the_shipped_scenario_keeps_the_levant_base() -> None:
    shipped = read_scenario(SHIPPED_DIR)
    assert mapview.offline_base(shipped, MapView(at=AT)).region is None
    assert basemap.region(36.2, 37.1, 36.2, 37.2, frozenset({"SY"})) is None


def test_a_scenario_on_the_sea_of_azov_gets_ukraines_divisions_and_its_neighbours_outlines(
    azov: Scenario,
) -> None:
    region = mapview.offline_base(azov, MapView(at=AT)).region
    assert region is not None
    countries = {f["properties"]["iso_a3"]: f["properties"] for f in region.countries["features"]}
    assert countries["UKR"]["home"] is True
    assert countries["RUS"]["home"] is False
    divisions = names(region.governorates)
    assert {"Donets'k", "Zaporizhzhya", "Kherson"} <= set(divisions)
    assert "Rostov" not in divisions  # a neighbour's divisions are not drawn
    towns = {town[2]: town for town in region.towns}
    assert towns["Kharkiv"][3:] == ["Харків", "uk"]
    assert towns["Rostov-on-Don"][3:] == ["Ростов-на-Дону", "ru"]
    (south, west), (north, east) = region.frame
    assert south < 47.09
    assert west < 35.19
    assert north > 47.83
    assert east > 37.55


def test_places_without_a_country_code_get_the_divisions_of_the_country_they_lie_in() -> None:
    region = basemap.region(13.45, 22.45, 13.45, 22.45, frozenset())  # El Geneina, no code
    assert region is not None
    assert "Western Darfur" in names(region.governorates)
    home = [
        f["properties"]["iso_a3"] for f in region.countries["features"] if f["properties"]["home"]
    ]
    assert home == ["SDN"]
    assert "TCD" in [f["properties"]["iso_a3"] for f in region.countries["features"]]


def test_the_world_base_is_clipped_to_the_story_and_stays_small(azov: Scenario) -> None:
    region = mapview.offline_base(azov, MapView(at=AT)).region
    assert region is not None
    (south, west), (north, east) = region.frame
    for feature in region.countries["features"] + region.governorates["features"]:
        w, s, e, n = shape(feature["geometry"]).bounds
        assert west - 1e-3 <= w <= e <= east + 1e-3
        assert south - 1e-3 <= s <= n <= north + 1e-3
    assert len(region.towns) <= basemap.MAX_TOWNS
    page = render(azov)
    assert len(page.encode()) < 600_000


def test_a_world_map_carries_its_region_and_not_the_levants_data(azov: Scenario) -> None:
    page = render(azov)
    assert f"window.{basemap.GLOBAL} =" not in page
    assert "Aleppo" not in page
    assert "حلب" not in page
    assert "Харків" in page
    assert "Zaporizhzhya" in page
    assert '"frame":' in page


def test_town_names_from_the_data_are_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    town = (37.5, 47.1, "<img src=x onerror=alert(1)>", "<b>Маріуполь</b>", "uk", "UA", 1)
    monkeypatch.setattr(basemap, "world_towns", lambda: (town,))
    labels = basemap._town_labels((35.0, 46.0, 38.0, 48.0))
    assert labels == [
        [47.1, 37.5, "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;Маріуполь&lt;/b&gt;", "uk"]
    ]


# --- in Chromium -------------------------------------------------------------------------------


def open_page(offline_page: OfflinePage, tmp_path: Path, html: str) -> None:
    path = tmp_path / "map.html"
    path.write_text(html, encoding="utf-8")
    offline_page.page.goto(path.as_uri(), wait_until="load")
    offline_page.page.wait_for_function("document.querySelector('[data-corridor-view]') !== null")


@pytest.mark.browser
def test_the_exported_page_draws_ukraines_towns_and_a_locator_offline(
    azov: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    html = export.page_html(export.Snapshot(azov, MapView(at=AT, labels=LabelLanguage.BOTH)))
    open_page(offline_page, tmp_path, html)
    page = offline_page.page
    # (a town inside the story frame: Donetsk sits at its edge since the legend is smaller)
    berdyansk = page.locator(".corridor-town", has_text=re.compile(r"^Berdyansk"))
    berdyansk.wait_for()
    assert berdyansk.locator('span[lang="uk"]').inner_text() == "Бердянськ"
    outlines = page.locator(".leaflet-corridor-base-pane path")
    assert outlines.count() >= 10  # countries and oblasts, not a blank page
    locator = page.locator(".corridor-locator")
    assert locator.get_attribute("aria-label") == "Locator map: the extent of this map"
    assert locator.locator("path").count() >= 3
    assert offline_page.blocked == []
    assert offline_page.errors == []


@pytest.mark.browser
def test_in_arabic_a_ukrainian_town_keeps_its_latin_name(
    azov: Scenario, offline_page: OfflinePage, tmp_path: Path
) -> None:
    open_page(offline_page, tmp_path, render(azov, LabelLanguage.ARABIC))
    donetsk = offline_page.page.locator(".corridor-town", has_text=DONETSK)
    donetsk.wait_for()
    assert donetsk.inner_text() == "Donetsk"  # Cyrillic is not Arabic: no local name


@pytest.mark.browser
def test_the_png_of_a_scenario_in_ukraine_has_land_sea_and_borders() -> None:
    azov = read_scenario(AZOV_DIR)
    snapshot = export.Snapshot(azov, MapView(at=AT), width=800, height=500)
    image = np.asarray(Image.open(io.BytesIO(export.render(snapshot, "png"))).convert("RGB"))
    body = image[60:440].astype(np.int16)  # below the header, above the footer
    share = {
        colour: float((np.abs(body - np.array(rgb)).max(axis=2) <= 3).mean())
        for colour, rgb in {"land": LAND, "sea": SEA}.items()
    }
    assert share["land"] > 0.4, share  # the oblasts around the route, not an empty sea
    assert share["sea"] > 0.03, share  # the Sea of Azov
    grey = (np.abs(body - 0x8C).max(axis=2) <= 20).mean()
    assert grey > 0.001  # country outlines
