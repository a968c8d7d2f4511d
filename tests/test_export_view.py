"""Exports of the view or of the story frame (issue 43, item 6): the map's frame, the line
saying which it is, the file names, and the command line's --bbox, --center and --zoom."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from geo import export, extent, mapview, messages
from geo.cli import main
from geo.errors import ValidationError
from geo.export import Snapshot
from geo.mapview import MapView
from geo.mapview.viewport import ViewRequest
from geo.records import Scenario
from geo.scenario import read_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "data" / "scenarios" / "aleppo-2016-12"
AT = datetime(2016, 12, 15, 13, 0, tzinfo=UTC)
CREATED = datetime(2026, 1, 1, tzinfo=UTC)
ALEPPO = (36.2, 37.16)
KEEPER = re.compile(r"\}\)\(map_\w+, (\{\"token\".*?\}), (?:null|\"[^\"]*\"), (?:true|false)\);")
"""The view request the page's map applies (geo.mapview.viewport.ViewKeeper's call)."""


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return read_scenario(SCENARIO_DIR)


def snap(scenario: Scenario, frame: ViewRequest | None = None, **options: Any) -> Snapshot:
    return Snapshot(scenario, MapView(at=AT), created=CREATED, frame=frame, **options)


def zoomed() -> ViewRequest:
    """What the dashboard exports after a zoom to Aleppo at 13."""
    reported = {"center": ALEPPO, "zoom": 13.0, "bounds": [[36.17, 37.1], [36.23, 37.22]]}
    found = extent.on_screen(reported)
    assert found is not None
    return found


def asked_view(html: str) -> dict[str, Any]:
    found = KEEPER.findall(html)
    assert len(found) == 1, "expected one view request in the page"
    request: dict[str, Any] = json.loads(found[0])
    return request


def page(snapshot: Snapshot) -> str:
    return export.render(snapshot, "html").decode("utf-8")


# --- the map's frame --------------------------------------------------------------------


def test_a_view_export_opens_at_the_view_on_screen(scenario: Scenario) -> None:
    request = asked_view(page(snap(scenario, zoomed())))
    assert request["token"] == extent.VIEW_TOKEN
    assert request["center"] == list(ALEPPO)
    assert request["zoom"] == 13.0


def test_a_story_export_opens_on_the_story_frame(scenario: Scenario) -> None:
    request = asked_view(page(snap(scenario)))
    story = mapview.story_frame(scenario, MapView(at=AT))
    assert request["token"] == "story"
    assert "center" not in request
    assert "zoom" not in request
    assert request["bounds"] == [[round(v, 6) for v in corner] for corner in story.bounds or []]


def test_a_bbox_frames_the_map_and_centres_its_first_location(scenario: Scenario) -> None:
    frame = extent.asked(bbox="36.0,36.5,36.4,37.3", center=None, zoom=None, story=[])
    html = page(snap(scenario, frame, frame_note=extent.ASKED_NOTE))
    assert asked_view(html)["bounds"] == [[36.0, 36.5], [36.4, 37.3]]
    assert re.search(r"center: \[36\.2\d*, 36\.9\d*\]", html)


# --- what the export says it shows ------------------------------------------------------


def test_the_page_names_its_extent(scenario: Scenario) -> None:
    assert '<span class="sheet-extent">Extent: the view on screen</span>' in page(
        snap(scenario, zoomed())
    )
    assert '<span class="sheet-extent">Extent: the story frame</span>' in page(snap(scenario))


def test_the_extent_note_is_escaped(scenario: Scenario) -> None:
    html = page(snap(scenario, zoomed(), frame_note="Extent: <b>mine</b>"))
    assert "Extent: &lt;b&gt;mine&lt;/b&gt;" in html
    assert "<b>mine</b>" not in html


def test_a_view_map_is_named_view_and_the_story_keeps_its_name(scenario: Scenario) -> None:
    base = "corridor_aleppo-2016-12_20161215T1300Z_all"
    assert export.file_name(snap(scenario), "png") == f"{base}.png"
    assert export.file_name(snap(scenario, zoomed()), "png") == f"{base}_view.png"
    assert export.file_name(snap(scenario, zoomed()), "html") == f"{base}_view.html"
    assert export.download_name(snap(scenario, zoomed()), "pdf") == f"{base}_view_A4.pdf"
    assert export.file_name(snap(scenario, zoomed()), "csv") == f"{base}.csv.zip"


def test_the_data_shown_does_not_depend_on_the_frame(scenario: Scenario) -> None:
    assert export.render(snap(scenario, zoomed()), "geojson") == export.render(
        snap(scenario), "geojson"
    )


# --- the dashboard's first choice ---------------------------------------------------------


STORY = ViewRequest.fit([[36.0, 36.6], [36.3, 37.2]], token="story")
FITTED = {"center": (36.15, 36.9), "zoom": 10.0, "bounds": [[35.9, 36.4], [36.4, 37.4]]}


def test_before_the_map_reports_the_story_is_offered() -> None:
    assert extent.default_choice(STORY, STORY, None, None) == "story"


def test_the_map_as_fitted_offers_the_story() -> None:
    assert extent.default_choice(STORY, STORY, FITTED, FITTED) == "story"


def test_a_zoom_in_offers_the_view() -> None:
    closer = {"center": ALEPPO, "zoom": 13.0, "bounds": [[36.17, 37.1], [36.23, 37.22]]}
    assert extent.default_choice(STORY, STORY, closer, FITTED) == "view"


def test_a_zoom_out_offers_the_view() -> None:
    farther = {**FITTED, "zoom": 9.0, "bounds": [[35.6, 35.9], [36.7, 37.9]]}
    assert extent.default_choice(STORY, STORY, farther, FITTED) == "view"


def test_a_permalink_or_a_selected_convoy_offers_the_view() -> None:
    link = ViewRequest.at(STORY.bounds or [], ALEPPO, 12)
    assert extent.default_choice(link, STORY, FITTED, FITTED) == "view"


def test_the_choices_are_said_in_arabic() -> None:
    arabic = messages.catalogue("ar")
    assert {"Extent", *extent.CHOICES.values()} <= set(arabic)


# --- the command line ---------------------------------------------------------------------


def test_center_and_zoom_are_read_and_the_story_fills_in_the_bounds() -> None:
    frame = extent.asked(bbox=None, center="36.2, 37.16", zoom="12.5", story=STORY.bounds or [])
    assert frame == ViewRequest("view", bounds=STORY.bounds, center=ALEPPO, zoom=12.5)
    assert extent.asked(bbox=None, center=None, zoom=None, story=[]) is None


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"bbox": "36,37"}, r"--bbox: expected SOUTH,WEST,NORTH,EAST .*, got '36,37'"),
        ({"bbox": "36.4,37,36.0,37.3"}, r"--bbox: expected .*south < north.*, got '36.4,37,36"),
        ({"bbox": "a,b,c,d"}, r"--bbox: expected .*, got 'a,b,c,d'"),
        ({"center": "37.16"}, r"--center: expected LAT,LON in degrees .*, got '37.16'"),
        ({"center": "95,37"}, r"--center: expected LAT,LON .*latitude -90 to 90.*, got '95,37'"),
        ({"zoom": "twelve"}, r"--zoom: expected a zoom level from 4 to 18, got 'twelve'"),
        ({"zoom": "19"}, r"--zoom: expected a zoom level from 4 to 18, got '19'"),
        ({"zoom": "nan"}, r"--zoom: expected a zoom level from 4 to 18, got 'nan'"),
    ],
)
def test_a_malformed_extent_names_the_option_the_form_and_the_value(
    options: dict[str, str], error: str
) -> None:
    given = {"bbox": None, "center": None, "zoom": None, **options}
    with pytest.raises(ValidationError, match=error):
        extent.asked(**given, story=[])


def test_every_malformed_option_is_listed_at_once() -> None:
    with pytest.raises(ValidationError, match=r"3 problems") as raised:
        extent.asked(bbox="1", center="x", zoom="99", story=[])
    assert [p.file for p in raised.value.problems] == ["--bbox", "--center", "--zoom"]


def test_cli_exports_the_view_asked_for(tmp_path: Path) -> None:
    argv = ["export", str(SCENARIO_DIR), "--format", "html", "--center", "36.2,37.16"]
    assert main([*argv, "--zoom", "13", "--at", "2016-12-15T13:00Z", "--out", str(tmp_path)]) == 0
    (written,) = tmp_path.iterdir()
    assert written.name == "corridor_aleppo-2016-12_20161215T1300Z_all_view.html"
    html = written.read_text(encoding="utf-8")
    assert "Extent: the view asked for" in html
    assert asked_view(html)["zoom"] == 13.0


def test_cli_refuses_a_malformed_bbox(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["export", str(SCENARIO_DIR), "--format", "png", "--bbox", "36,37,x", "--out"]
    assert main([*argv, str(tmp_path)]) == 1
    assert "--bbox: expected SOUTH,WEST,NORTH,EAST" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_cli_refuses_an_extent_for_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["export", str(SCENARIO_DIR), "--format", "geojson", "--zoom", "12", "--out"]
    assert main([*argv, str(tmp_path)]) == 1
    assert "--zoom: an extent frames a map" in capsys.readouterr().err


# --- the dashboard's export panel ---------------------------------------------------------


def test_the_export_panel_exports_the_view_once_the_map_has_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import shipped_workspace_in
    from streamlit.testing.v1 import AppTest

    real, made = export.Snapshot, []

    def recorded(*args: Any, **kwargs: Any) -> Snapshot:
        made.append(real(*args, **kwargs))
        return made[-1]

    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace_in(tmp_path)))
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    app.run()
    app.run()
    assert app.radio(key="export_extent").value == "story"  # nothing reported: the story
    monkeypatch.setattr(export, "Snapshot", recorded)
    app.session_state["reported"] = {
        "center": ALEPPO, "zoom": 14.5, "bounds": [[36.18, 37.13], [36.22, 37.19]]
    }  # fmt: skip
    app.run()
    assert not app.exception
    assert app.radio(key="export_extent").value == "view"
    assert made[-1].frame == ViewRequest(
        "view", bounds=[[36.18, 37.13], [36.22, 37.19]], center=ALEPPO, zoom=14.5
    )
    app.radio(key="export_extent").set_value("story").run()
    assert made[-1].frame is None
    app.session_state["reported"] = {**app.session_state["reported"], "zoom": 15.0}
    app.run()
    assert app.radio(key="export_extent").value == "story"  # the user's choice holds
