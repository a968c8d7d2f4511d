"""The New scenario page in the system Chromium: a pasted report becomes a scenario on the map."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import click_until, dashboard_page, made_picture, settled, streamlit_app
from PIL import Image
from playwright.sync_api import Browser, FrameLocator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_browser import MAP_FRAME, corridor_layers, wait_until
from test_browser_edit import ROW_PX, upload

from geo.mapview import ZONE_COLOURS
from geo.records import Control, Scenario
from geo.scenario import read_scenario
from geo.settings import Settings
from geo.store import Workspace, open_workspace

pytestmark = pytest.mark.browser
REPORT = (
    "ADRE, Chad (Reuters) - Thousands of people fled El Geneina in Sudan's West Darfur state "
    "into Chad this week, crossing at Adre, aid workers said."
)
DRAFTED = "Buses carrying 300 people left El Geneina for Adre on Monday, aid workers said."
TITLE = "El Geneina to Adre, June 2023"
SCENARIO_ID = "el-geneina-to-adre-june-2023"
ZONE_PATH = f"path.leaflet-interactive[stroke='{ZONE_COLOURS[Control.OPPOSITION]}']"


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    found = open_workspace(tmp_path / "workspace.gpkg")
    found.save(read_scenario(Settings.from_environment().default_scenario_dir))
    return found


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    with dashboard_page(browser, request, height=1000) as opened:
        yield opened


def test_a_report_about_sudan_becomes_a_scenario_on_the_dashboard(
    workspace: Workspace, page: Page, tmp_path: Path
) -> None:
    with streamlit_app(workspace.location) as server:
        page.goto(f"{server}/new_scenario", wait_until="domcontentloaded")
        page.get_by_role("heading", name="New scenario").wait_for(timeout=60_000)
        settled(page)
        page.get_by_role("textbox", name="A report to start from (optional)").fill(REPORT)
        page.keyboard.press("Control+Enter")  # (as a hand commits a text area)
        expect(page.get_by_role("textbox", name="Country (ISO code)")).to_have_value(
            "TD", timeout=60_000
        )
        expect(page.get_by_role("textbox", name="Time zone (IANA)")).to_have_value(
            "Africa/Ndjamena"
        )
        settled(page)
        page.get_by_role("textbox", name="Title", exact=True).fill(TITLE)
        page.keyboard.press("Enter")
        settled(page)
        create = page.get_by_role("button", name="Create the scenario")
        expect(create).to_be_enabled(timeout=30_000)
        create.click()
        page.get_by_text("Created El Geneina to Adre").wait_for(timeout=60_000)
        assert "el-geneina-to-adre-june-2023" in workspace.scenario_ids()

        click_until(
            page.get_by_role("link", name="From a report"),
            page.get_by_role("heading", name="From a report"),
        )  # (a link, as a hand goes: the session keeps the scenario just made)
        chosen = page.get_by_role("combobox", name="Add the drafts to the scenario")
        expect(chosen).to_have_value("el-geneina-to-adre-june-2023", timeout=30_000)
        page.get_by_label("…or paste it here").fill(DRAFTED)
        page.keyboard.press("Control+Enter")
        add = page.get_by_role("button", name="Add to workspace")
        add.wait_for(timeout=60_000)
        today = date.today()
        for part, value in (("year", today.year), ("month", today.month), ("day", today.day)):
            page.get_by_role("spinbutton", name=f"{part}, Published").click()
            page.keyboard.type(str(value))
        page.keyboard.press("Tab")
        # (a typed date is sent when focus leaves the field: leaving it by the grid's click, as
        # the tick below does, sent the day before, which now falls outside the scenario's span)
        page.get_by_role("heading", name="From a report").click()
        settled(page)
        tick_first_draft(page)
        add.click()
        page.get_by_text("Added 1 convoy(s) to el-geneina-to-adre-june-2023").wait_for(
            timeout=60_000
        )
        [convoy] = workspace.load("el-geneina-to-adre-june-2023").convoys
        assert convoy.people is not None
        import_zone(page, zone_file(tmp_path, workspace.load(SCENARIO_ID)))
        assert [z.id for z in workspace.load(SCENARIO_ID).zones] == ["geneina-held"]

        click_until(
            page.get_by_role("link", name="Map"),
            page.get_by_text("Disclaimer:").first,
        )
        settled(page)
        page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(
            has_text="Scenario"
        ).first.click()
        page.get_by_role("option", name="el-geneina-to-adre-june-2023").click()
        page.get_by_role("heading", name=TITLE).wait_for(timeout=60_000)
        frame = page.frame_locator(MAP_FRAME).last
        frame.locator("path.leaflet-interactive").first.wait_for(timeout=60_000)
        page.wait_for_timeout(3_000)  # (and it stays drawn: no error comes after)
        expect(page.get_by_role("heading", name=TITLE)).to_be_visible()
        assert frame.locator("path.leaflet-interactive").count() > 0
        assert page.locator("[data-testid='stException']").count() == 0
        # the world's base map around Darfur and eastern Chad, not a blank page
        assert frame.locator(".leaflet-corridor-base-pane path").count() >= 4
        assert frame.locator(".corridor-town").count() >= 5
        switch_the_zone_off(page, frame)

        export_png(page)
        assert page.locator("[data-testid='stException']").count() == 0


def zone_file(folder: Path, scenario: Scenario) -> Path:
    """A GeoJSON of one opposition-held zone around El Geneina, valid from the scenario's
    start, as a user traces one in QGIS."""
    start = scenario.start.astimezone(ZoneInfo(scenario.timezone)).isoformat()
    ring = [[22.38, 13.40], [22.52, 13.40], [22.52, 13.50], [22.38, 13.50], [22.38, 13.40]]
    feature = {
        "type": "Feature",
        "properties": {"id": "geneina-held", "name": "El Geneina (test outline)",
                       "control": "opposition", "holder": "Rapid Support Forces",
                       "valid_from": start, "precision": "approximate"},
        "geometry": {"type": "Polygon", "coordinates": [ring]},
    }  # fmt: skip
    path = folder / "geneina-zone.geojson"
    path.write_text(json.dumps({"type": "FeatureCollection", "features": [feature]}))
    return path


def import_zone(page: Page, path: Path) -> None:
    """On Import and edit, choose the new scenario, upload the zone and add it."""
    click_until(
        page.get_by_role("link", name="Import and edit"),
        page.get_by_role("heading", name="Import and edit"),
    )
    settled(page)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").filter(
        has_text="Scenario"
    ).first.click()
    page.get_by_role("option", name=SCENARIO_ID).click()
    settled(page)
    upload(page, path)
    add = page.get_by_role("button", name=f"Add 1 valid record(s) to {SCENARIO_ID}")
    add.click()
    page.get_by_text("Added 1 record(s) from geneina-zone.geojson").wait_for(timeout=60_000)


def switch_the_zone_off(page: Page, frame: FrameLocator) -> None:
    """Untick the zone's layer in the map's own layer control, as a hand does, and watch the
    map settle without it for seconds (the sidebar box follows)."""
    wait_until(page, lambda: "zones-opposition" in (corridor_layers(frame) or ()), "the zone on")
    frame.locator(ZONE_PATH).first.wait_for(timeout=30_000)
    sidebar_box = page.get_by_role("checkbox", name="Opposition-held")
    assert sidebar_box.is_checked()
    frame.locator(".leaflet-control-layers").hover()  # a folded layer control opens under it
    frame.get_by_role("checkbox", name="Opposition-held").uncheck()
    wait_until(page, lambda: not sidebar_box.is_checked(), "the sidebar box to follow the map")
    wait_until(
        page,
        lambda: (layers := corridor_layers(frame)) is not None and "zones-opposition" not in layers,
        "the map redrawn without the zone",
    )
    wait_until(page, lambda: frame.locator(ZONE_PATH).count() == 0, "the zone's outline gone")
    page.wait_for_timeout(3_000)  # (and it stays off: no rerun brings it back)
    assert frame.locator(ZONE_PATH).count() == 0
    assert "zones-opposition" not in (corridor_layers(frame) or {"zones-opposition"})
    assert frame.locator("path.leaflet-interactive").count() > 0  # the convoy is still drawn


def export_png(page: Page) -> None:
    """Open the export panel, make a PNG and download it, as a hand does: a drawn picture of
    the scenario's map comes down, named after the scenario."""
    page.get_by_text("Export snapshot").click()
    download_button = made_picture(page, "PNG")
    with page.expect_download(timeout=60_000) as started:
        download_button.click()
    path = started.value.path()
    image = Image.open(path)
    assert image.format == "PNG"
    assert image.size == (1600, 1000)
    colours = image.convert("RGB").getcolors(maxcolors=1 << 24) or []
    assert len(colours) > 50  # a drawn map, not a blank page
    assert started.value.suggested_filename.startswith("corridor_el-geneina-to-adre-june-2023")


def tick_first_draft(page: Page) -> None:
    """Tick the first draft's "Add" box until the button takes it (a rerun may redraw the grid
    just as it is clicked)."""
    grid = page.locator("[data-testid='stDataFrame']").first
    for _ in range(5):
        grid.scroll_into_view_if_needed(timeout=30_000)
        box = grid.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + 34, box["y"] + ROW_PX * 1.5)
        try:
            page.wait_for_function(
                "() => [...document.querySelectorAll('button')].some(b => "
                "b.textContent.includes('Add to workspace') && !b.disabled)",
                timeout=5_000,
            )
            return
        except PlaywrightTimeout:
            continue
