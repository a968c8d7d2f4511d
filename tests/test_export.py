"""Snapshot export: file names, the standalone HTML page, PNG and PDF through Chromium, the data.

Reference images live in tests/data/reference; after a deliberate change to how snapshots look,
regenerate them all with `.venv/bin/python scripts/update_reference_images.py`, look at them,
and commit them with the change.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import importlib.util
import io
import json
import re
import subprocess
import sys
import zipfile
from collections import Counter
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyogrio
import pytest
from PIL import Image, ImageChops, ImageStat
from playwright.sync_api import Browser, Route

from geo import export, pictures, timeline
from geo.cli import main
from geo.errors import ChromiumNotFoundError, ExportError
from geo.export import Snapshot, file_name
from geo.mapview import ALL_LAYERS, ZONE_LAYERS, MapView, shown
from geo.mapview.basemap import ATTRIBUTION
from geo.mapview.place_labels import LabelLanguage
from geo.records import ConvoyStatus, Scenario
from geo.scenario import read_scenario
from geo.store import Workspace

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "data" / "scenarios" / "aleppo-2016-12"
CREATED = datetime(2026, 1, 1, tzinfo=UTC)
AT = datetime(2016, 12, 15, 13, 0, tzinfo=UTC)
LATER = datetime(2016, 12, 15, 16, 0, tzinfo=UTC)
EVACUATED = {"evacuated-civilians-first-two-convoys", "evacuated-wounded-first-two-convoys"}
MAX_MEAN_DIFFERENCE = 1.0
"""Mean absolute difference per channel (of 255) allowed between a PNG and its reference.

Two renders in this environment differ by 0 to 0.05 (sub-pixel antialiasing of a few lines),
so 1.0 leaves a 20-fold margin for noise, while real regressions exceed it: at 800x500,
dropping the zones overlay gives 2.1 and dropping the places 3.1, a missing map far more.
The often-used 4/255 would let both overlays vanish unnoticed. Changes of a few glyphs (the
time in the header: about 0.1) stay below; the HTML test checks the text itself.
"""


def _load_reference_script() -> Any:
    path = ROOT / "scripts" / "update_reference_images.py"
    spec = importlib.util.spec_from_file_location("update_reference_images", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REFERENCES = _load_reference_script()


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return read_scenario(SCENARIO_DIR)


def snap(scenario: Scenario, at: datetime = AT, **view: Any) -> Snapshot:
    size = {key: view.pop(key) for key in ("width", "height", "scale", "paper") if key in view}
    return Snapshot(scenario, MapView(at=at, **view), created=CREATED, **size)


def layer_counts(snapshot: Snapshot) -> Counter[str]:
    document = json.loads(export.render(snapshot, "geojson"))
    assert document["type"] == "FeatureCollection"
    return Counter(feature["properties"]["layer"] for feature in document["features"])


def expected_counts(scenario: Scenario, view: MapView) -> Counter[str]:
    """What the map draws, per overlay switched on (read from mapview.shown)."""
    records = shown(scenario, view)
    counts: Counter[str] = Counter(ZONE_LAYERS[zone.control] for zone in records.zones)
    counts["routes"] = sum(len(timeline.legs_of(scenario, c.convoy.id)) for c in records.convoys)
    counts["convoys"] = len(records.moving)
    counts["places"] = len(records.places)
    counts["figures"] = len(records.figures)
    return Counter({key: n for key, n in counts.items() if key in view.layers and n})


def png_image(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image.convert("RGB")


def pdf_title(pdf: bytes) -> str:
    """The document title Chromium wrote (a UTF-16 hex string or a literal one)."""
    found = re.search(rb"/Title\s*(<FEFF[0-9A-Fa-f]*>|\((?:[^()\\]|\\.)*\))", pdf)
    assert found, "the PDF has no Title"
    value = found[1]
    if value.startswith(b"<"):
        return bytes.fromhex(value[1:-1].decode()).decode("utf-16-be").lstrip("\ufeff")
    return value[1:-1].decode("latin-1")


def csv_rows(archive: zipfile.ZipFile, name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(archive.read(name).decode("utf-8"))))


# --- file names -------------------------------------------------------------------------


def test_file_name_says_all_when_every_layer_is_on(scenario: Scenario) -> None:
    local = datetime.fromisoformat("2016-12-15T15:00+02:00")  # the same moment as AT
    assert (
        file_name(snap(scenario, local), "png") == "corridor_aleppo-2016-12_20161215T1300Z_all.png"
    )


def test_file_name_joins_a_subset_of_layers_in_layer_order(scenario: Scenario) -> None:
    snapshot = snap(scenario, layers=frozenset({"routes", "zones-government"}))
    name = "corridor_aleppo-2016-12_20161215T1300Z_zones-government+routes.geojson"
    assert file_name(snapshot, "geojson") == name


def test_csv_file_name_ends_in_csv_zip(scenario: Scenario) -> None:
    assert file_name(snap(scenario), "csv").endswith("_all.csv.zip")


def test_a_downloaded_pdf_is_named_with_its_paper(scenario: Scenario) -> None:
    snapshot = dataclasses.replace(snap(scenario), paper="A3")
    assert export.download_name(snapshot, "pdf").endswith("_all_A3.pdf")
    assert export.download_name(snapshot, "png") == file_name(snapshot, "png")


def test_export_into_a_folder_uses_the_standard_name(scenario: Scenario, tmp_path: Path) -> None:
    snapshot = snap(scenario)
    path = export.export(snapshot, "geojson", tmp_path)
    assert path == tmp_path / file_name(snapshot, "geojson")
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


# --- the standalone HTML page -----------------------------------------------------------


@pytest.fixture(scope="module")
def page_html(scenario: Scenario) -> str:
    return export.render(snap(scenario), "html").decode("utf-8")


def test_html_loads_nothing_from_the_network(page_html: str) -> None:
    assert not re.search(r"<script[^>]*\ssrc\s*=\s*[\"']?https?:", page_html, re.I)
    assert not re.search(r"<link[^>]*\shref\s*=\s*[\"']?https?:", page_html, re.I)
    assert "cdn" not in page_html.lower()
    scripts = re.findall(r"<script[^>]*\ssrc\s*=\s*[\"']([^\"']*)", page_html, re.I)
    styles = re.findall(r"<link[^>]*\shref\s*=\s*[\"']([^\"']*)", page_html, re.I)
    assert scripts
    assert all(src.startswith("data:text/javascript") for src in scripts)
    assert styles
    assert all(href.startswith("data:text/css") for href in styles)


def test_html_has_title_moment_note_sources_and_credits(scenario: Scenario, page_html: str) -> None:
    assert scenario.title in page_html
    assert "as of 15 Dec 2016 15:00 EET (13:00 UTC)" in page_html
    assert "do not imply endorsement" in page_html
    for source in scenario.sources:
        cited = f"{html.escape(source.publisher)}, {source.published.isoformat()})"
        assert html.escape(source.title) in page_html
        assert cited in page_html
    assert "GeoNames, CC BY 4.0" in page_html
    assert "Natural Earth" in page_html
    assert html.escape(ATTRIBUTION) in page_html
    assert "Made with Corridor on 2026-01-01 00:00 UTC" in page_html


def test_the_footer_says_each_caveat_once(scenario: Scenario, page_html: str) -> None:
    footer = page_html[page_html.index('<footer class="sheet-foot">') :]
    assert footer.count("endorsement") == 1  # the scenario's disclaimer says it already
    assert html.escape(scenario.disclaimer) in footer
    assert export.disclaimer("Drawn from one report.") == (
        f"Drawn from one report. {export.APPROXIMATE_NOTE} {export.ENDORSEMENT_NOTE}"
    )


def test_the_page_has_a_title_naming_the_map_and_its_moment(page_html: str) -> None:
    [title] = re.findall(r"<title>(.*?)</title>", page_html)
    assert title == (
        "East Aleppo evacuation, 15 December 2016 — as of 15 Dec 2016 15:00 EET (13:00 UTC)"
    )


def test_a_moment_given_in_another_zone_is_printed_right_in_utc(scenario: Scenario) -> None:
    at = datetime.fromisoformat("2016-12-15T20:00+02:00")
    page = export.render(snap(scenario, at), "html").decode("utf-8")
    assert "as of 15 Dec 2016 20:00 EET (18:00 UTC)" in page
    assert file_name(snap(scenario, at), "png").endswith("_20161215T1800Z_all.png")


@pytest.mark.browser
def test_html_renders_offline_from_disk_in_chromium(
    page_html: str, tmp_path: Path, browser: Browser
) -> None:
    path = tmp_path / "snapshot.html"
    path.write_text(page_html, encoding="utf-8")
    blocked: list[str] = []
    errors: list[str] = []

    def only_local(route: Route) -> None:
        if route.request.url.startswith(("file:", "data:")):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.route("**/*", only_local)
        page.goto(path.as_uri(), wait_until="load")
        page.locator(".folium-map").wait_for(timeout=15_000)
        assert page.locator(".leaflet-control-layers").is_visible()
        page.locator("path.leaflet-interactive").first.wait_for(timeout=15_000)
        assert page.locator("path.leaflet-interactive").count() > 0
    finally:
        page.close()
    assert errors == []
    assert blocked == []


# --- PNG --------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize(("scale", "size"), [(1, (480, 300)), (2, (960, 600))])
def test_png_has_the_asked_size_and_is_not_blank(
    scenario: Scenario, scale: int, size: tuple[int, int]
) -> None:
    image = png_image(export.render(snap(scenario, width=480, height=300, scale=scale), "png"))
    assert image.size == size
    assert len(image.getcolors(maxcolors=1 << 24) or []) > 50
    assert min(ImageStat.Stat(image).stddev) > 20


@pytest.mark.browser
@pytest.mark.parametrize(("width", "height"), REFERENCES.SIZES)
def test_png_matches_the_reference_image(scenario: Scenario, width: int, height: int) -> None:
    reference_file = REFERENCES.reference_path(width, height)
    assert reference_file.stat().st_size < 150_000
    snapshot = REFERENCES.reference_snapshot(scenario, width, height)
    image = np.asarray(png_image(export.render(snapshot, "png")), dtype=np.int16)
    reference = np.asarray(png_image(reference_file.read_bytes()), dtype=np.int16)
    assert image.shape == reference.shape
    assert np.abs(image - reference).mean() < MAX_MEAN_DIFFERENCE


@pytest.mark.browser
def test_a_picture_never_pans_into_place(scenario: Scenario) -> None:
    # At 1600 × 1000 the shipped scenario fits at the map's first zoom, and Leaflet then pans
    # there over 0.25 s unless told not to: pictures caught the map a few pixels short of it.
    # Leaflet's pan animator (1.9) keeps the duration of the last pan it animated.
    snapshot = snap(scenario, width=1600, height=1000)
    panned = """() => Object.keys(window).filter(key => key.startsWith('map_'))
        .some(key => (window[key]._panAnim || {})._duration !== undefined)"""

    def animated(page: Any) -> bool:
        return bool(page.evaluate(panned))

    html = export.page_html(snapshot, still=True)
    assert not export.browser()._call(html, {"width": 1600, "height": 1000}, 1.0, animated)


@pytest.mark.browser
def test_png_renders_reuse_one_warm_chromium(scenario: Scenario) -> None:
    snapshot = snap(scenario, width=320, height=200)
    export.render(snapshot, "png")
    warm = export.browser()
    chromium = warm._chromium
    export.render(snapshot, "png")
    assert export.browser() is warm
    assert warm._chromium is chromium
    assert warm._worker.submit(chromium.is_connected).result(timeout=10)
    addresses = warm._worker.submit(lambda: {page.url for page in warm._pages.values()})
    assert addresses.result(timeout=10) == {"about:blank"}, "a snapshot's map stayed in memory"


# --- PDF --------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize(("paper", "size"), [("A4", (841.9, 595.3)), ("A3", (1190.6, 841.9))])
def test_pdf_is_one_landscape_page_of_the_paper(
    scenario: Scenario, paper: str, size: tuple[float, float]
) -> None:
    pdf = export.render(snap(scenario, paper=paper), "pdf")
    assert pdf.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page(?!s)", pdf)) == 1
    assert b"snapshot.html" not in pdf  # its Title was once the name of the temporary page
    assert pdf_title(pdf).startswith("East Aleppo evacuation, 15 December 2016 — as of")
    boxes = re.findall(rb"/MediaBox\s*\[\s*([\d.\s]+)\]", pdf)
    assert len(boxes) == 1
    _, _, width, height = (float(value) for value in boxes[0].split())
    assert width == pytest.approx(size[0], abs=2)
    assert height == pytest.approx(size[1], abs=2)


# --- data -------------------------------------------------------------------------------


def test_geojson_features_are_what_the_map_shows(scenario: Scenario) -> None:
    snapshot = snap(scenario)
    counts = layer_counts(snapshot)
    assert counts == expected_counts(scenario, snapshot.view)
    shipped = {"zones-besieged": 2, "zones-government": 1, "zones-opposition": 1,
               "routes": 7, "convoys": 1, "places": 11}  # fmt: skip
    assert counts == Counter(shipped)


def test_geojson_with_routes_only_has_only_routes(scenario: Scenario) -> None:
    assert layer_counts(snap(scenario, layers=frozenset({"routes"}))) == Counter(routes=7)


def test_geojson_status_filter_keeps_only_those_convoys_legs(scenario: Scenario) -> None:
    snapshot = snap(scenario, statuses=frozenset({ConvoyStatus.ARRIVED}))
    features = json.loads(export.render(snapshot, "geojson"))["features"]
    convoys = {f["properties"]["convoy"] for f in features if f["properties"]["layer"] == "routes"}
    assert convoys == {"convoy-1", "convoy-2"}
    assert layer_counts(snapshot) == expected_counts(scenario, snapshot.view)


@pytest.mark.parametrize(
    ("at", "present"),
    [(AT, set()), (datetime(2016, 12, 15, 15, 0, tzinfo=UTC), EVACUATED), (LATER, EVACUATED)],
)
def test_geojson_figures_appear_once_reported(
    scenario: Scenario, at: datetime, present: set[str]
) -> None:
    snapshot = snap(scenario, at)
    features = json.loads(export.render(snapshot, "geojson"))["features"]
    figures = {f["properties"]["id"] for f in features if f["properties"]["layer"] == "figures"}
    assert present <= figures
    assert len(figures) == len(timeline.figures_at(scenario, at))
    assert bool(figures) == bool(present)


def test_gpkg_has_one_layer_per_kind_with_the_same_counts(
    scenario: Scenario, tmp_path: Path
) -> None:
    snapshot = snap(scenario, LATER)
    path = export.export(snapshot, "gpkg", tmp_path)
    counts: Counter[str] = Counter()
    for layer, n in layer_counts(snapshot).items():
        counts["zones" if layer.startswith("zones-") else layer] += n
    layers = [str(name) for name, _ in pyogrio.list_layers(path)]
    assert sorted(layers) == sorted(counts)
    assert {name: len(pyogrio.read_dataframe(path, layer=name)) for name in layers} == counts


def test_gpkg_of_nothing_shown_is_an_error(scenario: Scenario, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="nothing is shown"):
        export.export(snap(scenario, layers=frozenset()), "gpkg", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_csv_zip_has_the_visible_convoys_and_reported_figures(scenario: Scenario) -> None:
    view = MapView(at=LATER)
    archive = zipfile.ZipFile(io.BytesIO(export.render(snap(scenario, LATER), "csv")))
    assert archive.namelist() == [
        "convoys.csv", "figures.csv", "places.csv", "sources.csv", "README.txt"
    ]  # fmt: skip
    convoy_ids = [row["id"] for row in csv_rows(archive, "convoys.csv")]
    assert sorted(convoy_ids) == sorted(c.convoy.id for c in shown(scenario, view).convoys)
    assert len(csv_rows(archive, "figures.csv")) == len(shown(scenario, view).figures) == 10


def test_csv_zip_figures_before_any_report_is_a_header_only(scenario: Scenario) -> None:
    archive = zipfile.ZipFile(io.BytesIO(export.render(snap(scenario), "csv")))
    header = archive.read("figures.csv").decode("utf-8").splitlines()
    assert header == [
        "id,kind,what,count,low,high,qualifier,place,reported,attribution,source,quote"
    ]


def test_csv_zip_has_no_figures_when_that_layer_is_off(scenario: Scenario) -> None:
    layers = frozenset(ALL_LAYERS) - {"figures"}
    archive = zipfile.ZipFile(
        io.BytesIO(export.render(snap(scenario, LATER, layers=layers), "csv"))
    )
    assert archive.namelist() == ["convoys.csv", "places.csv", "sources.csv", "README.txt"]


def test_csv_zip_of_routes_only_cites_only_the_convoys_sources(scenario: Scenario) -> None:
    snapshot = snap(scenario, LATER, layers=frozenset({"routes"}))
    archive = zipfile.ZipFile(io.BytesIO(export.render(snapshot, "csv")))
    assert archive.namelist() == ["convoys.csv", "sources.csv", "README.txt"]
    cited = {s for row in csv_rows(archive, "convoys.csv") for s in row["source"].split(";")}
    assert {row["id"] for row in csv_rows(archive, "sources.csv")} == cited


# --- failures leave nothing behind ------------------------------------------------------


def test_export_into_a_missing_folder_names_it(scenario: Scenario, tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(ExportError, match=re.escape(f"folder {missing} does not exist")):
        export.export(snap(scenario), "geojson", missing / "snapshot.geojson")
    assert list(tmp_path.iterdir()) == []


def test_unknown_format_lists_the_formats(scenario: Scenario, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="html, png, pdf, geojson, gpkg, csv") as caught:
        export.export(snap(scenario), "svg", tmp_path)
    assert "'svg'" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_png_without_chromium_says_how_to_install_it(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_chromium = tmp_path / "not-chromium"
    not_chromium.write_text("not a program\n")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("CORRIDOR_CHROMIUM", str(not_chromium))
    monkeypatch.setattr(pictures, "_BROWSER", None)
    with pytest.raises(ChromiumNotFoundError, match="apt-get install chromium") as caught:
        export.export(snap(scenario, width=320, height=200), "png", out)
    assert "CORRIDOR_CHROMIUM" in str(caught.value)
    assert list(out.iterdir()) == []


def test_png_without_playwright_says_how_to_install_it(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "playwright.sync_api", None)  # import fails, as if missing
    monkeypatch.setattr(pictures, "_BROWSER", None)
    with pytest.raises(ExportError, match=r"need the Python package playwright.*make install"):
        export.export(snap(scenario, width=320, height=200), "png", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_failing_render_leaves_no_file(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(snapshot: Snapshot, fmt: str) -> bytes:
        raise ExportError("render failed")

    monkeypatch.setattr(export, "render", broken)
    with pytest.raises(ExportError, match="render failed"):
        export.export(snap(scenario), "geojson", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_failing_write_leaves_no_temporary_file(
    scenario: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(path: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("geo._atomic._fsync", full_disk)
    with pytest.raises(ExportError, match="cannot write \\(No space left on device\\)"):
        export.export(snap(scenario), "geojson", tmp_path)
    assert list(tmp_path.iterdir()) == []


# --- the command line -------------------------------------------------------------------


def test_cli_exports_geojson_under_the_standard_name(tmp_path: Path) -> None:
    argv = ["export", str(SCENARIO_DIR), "--format", "geojson", "--at", "2016-12-15T13:00Z"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    name = "corridor_aleppo-2016-12_20161215T1300Z_all.geojson"
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_cli_exports_html_with_arabic_place_names(tmp_path: Path) -> None:
    out = tmp_path / "map.html"
    argv = ["export", str(SCENARIO_DIR), "--format", "html", "--labels", "ar", "--out", str(out)]
    assert main(argv) == 0
    page = out.read_text(encoding="utf-8")
    assert '"tip":"حلب (city)"' in page
    assert 'null, ["SYR"], "ar", ' in page  # the base map's towns too (OfflineBase)


def test_cli_rejects_unknown_layers_listing_the_valid_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["export", str(SCENARIO_DIR), "--format", "geojson", "--layers", "routes,roads"]
    assert main([*argv, "--out", str(tmp_path)]) == 1
    message = capsys.readouterr().err
    assert "roads" in message
    assert all(key in message for key in ALL_LAYERS)
    assert list(tmp_path.iterdir()) == []


def test_cli_rejects_a_moment_without_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["export", str(SCENARIO_DIR), "--format", "geojson", "--at", "2016-12-15T13:00"]
    assert main([*argv, "--out", str(tmp_path)]) == 1
    assert "--at: expected an ISO 8601 time with an offset" in capsys.readouterr().err


def test_cli_exports_from_a_workspace(
    scenario: Scenario, new_workspace: Workspace, tmp_path: Path
) -> None:
    new_workspace.save(scenario)
    out = tmp_path / "out"
    out.mkdir()
    source = str(new_workspace.location)
    argv = ["export", source, "--format", "geojson", "--at", "2016-12-15T13:00Z"]
    assert main([*argv, "--out", str(out)]) == 0
    (path,) = out.iterdir()
    features = json.loads(path.read_text(encoding="utf-8"))["features"]
    assert Counter(f["properties"]["layer"] for f in features) == layer_counts(snap(scenario))
    page = tmp_path / "snapshot.html"
    assert main(["export", source, "--format", "html", "--out", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "<title>East Aleppo evacuation, 15 December 2016" in html
    assert '<script src="http' not in html


# --- imported events ----------------------------------------------------------------------


def test_events_shown_are_in_every_data_export(scenario: Scenario, tmp_path: Path) -> None:
    from dataclasses import replace

    from geo.records import Event

    events = (
        Event("e-old", date(2016, 12, 1), "Battles", 36.2, 37.1, ("seed-report",)),
        Event("e-week", date(2016, 12, 14), "Protests", 36.21, 37.12, ("seed-report",)),
        Event("e-later", date(2016, 12, 16), "Riots", 36.22, 37.13, ("seed-report",)),
    )  # fmt: skip
    with_events = replace(scenario, events=events)
    snapshot = snap(with_events, AT, event_days=7)
    assert layer_counts(snapshot)["events"] == 1
    with zipfile.ZipFile(io.BytesIO(export.render(snapshot, "csv"))) as archive:
        [row] = csv_rows(archive, "events.csv")
    assert (row["id"], row["date"], row["event_type"]) == ("e-week", "2016-12-14", "Protests")
    path = export.export(snapshot, "gpkg", tmp_path)
    assert len(pyogrio.read_dataframe(path, layer="events")) == 1
    assert layer_counts(snap(with_events, AT, event_days=None))["events"] == 2


# --- Arabic names --------------------------------------------------------------------------


ARABIC_LABEL = (
    "[...document.querySelectorAll('.corridor-label span[lang=ar]')]"
    ".find(s => s.textContent === 'حلب')"
)


@pytest.mark.browser
def test_arabic_place_names_are_drawn_joined_with_a_font_that_has_them(
    scenario: Scenario, browser: Browser, tmp_path: Path
) -> None:
    """Chromium shapes Arabic only with a font that has its letters (make installs one): the
    letters of حلب join (narrower than the same letters kept apart by a zero-width non-joiner),
    and the font that draws them is a real one on this machine, not a fallback box."""
    path = tmp_path / "arabic.html"
    path.write_bytes(export.render(snap(scenario, labels=LabelLanguage.ARABIC), "html"))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_function(f"() => !!({ARABIC_LABEL})", timeout=15_000)
        joined, apart = page.evaluate(
            f"""() => {{
                const label = {ARABIC_LABEL};
                const probe = label.cloneNode(true);
                probe.textContent = 'ح\\u200cل\\u200cب';
                label.parentNode.appendChild(probe);
                const widths = [label.getBoundingClientRect().width,
                                probe.getBoundingClientRect().width];
                probe.remove();
                return widths;
            }}"""
        )
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp.send(
            "DOM.querySelector", {"nodeId": root, "selector": ".corridor-label span[lang=ar]"}
        )
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
    finally:
        page.close()
    assert apart - joined >= 2, (
        f"the letters did not join: {joined:.1f} px joined, {apart:.1f} px apart"
    )
    installed = subprocess.run(
        ["fc-list", ":lang=ar", "family"], capture_output=True, text=True, check=True
    ).stdout
    drawn = [f["familyName"] for f in fonts if f["glyphCount"] > 0]
    assert drawn, fonts
    assert all(family in installed for family in drawn), (drawn, installed)


@pytest.mark.browser
def test_a_png_with_arabic_names_differs_from_the_english_one_only_by_its_labels(
    scenario: Scenario,
) -> None:
    english = png_image(export.render(snap(scenario, width=800, height=500), "png"))
    arabic = png_image(
        export.render(snap(scenario, width=800, height=500, labels=LabelLanguage.ARABIC), "png")
    )
    difference = ImageChops.difference(english, arabic).getbbox()
    assert difference is not None  # the names changed
    assert difference[1] > 60  # the sheet's title and time are the same
