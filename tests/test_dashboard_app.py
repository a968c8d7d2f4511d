"""The dashboard through Streamlit's AppTest: it runs, shows the scenario, survives errors."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from geo import changes, importing, mapview, tables
from geo.errors import AssetsMissingError
from geo.mapview import ALL_LAYERS, DEFAULT_LAYERS, LAYER_LABELS, event_points
from geo.scenario import read_scenario
from geo.settings import Settings
from geo.store import open_workspace

APP = str(Path(__file__).resolve().parent.parent / "dashboard.py")


def run_app(workspace: Path | str, monkeypatch: pytest.MonkeyPatch, *, runs: int = 2) -> AppTest:
    """The app after its first two runs, as a browser sees it once the map has drawn."""
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(workspace))
    app = AppTest.from_file(APP, default_timeout=60)
    for _ in range(runs):
        app.run()
    return app


def test_app_shows_the_shipped_scenario_from_the_workspace(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    assert not app.exception
    captions = [caption.value for caption in app.sidebar.caption]
    assert f"Workspace: `{open_workspace(shipped_workspace).label}`" in captions
    assert app.title[0].value == "East Aleppo evacuation, 15 December 2016"
    assert app.selectbox(key="scenario").value == "aleppo-2016-12"
    convoys = app.dataframe[0].value
    first = convoys.set_index("id").loc["convoy-1"]
    assert first["departs"] == "2016-12-15 14:30 EET"
    assert first["departs (UTC)"] == "2016-12-15 12:30 UTC"
    assert first["fighters"] == "about 200"


def test_the_first_run_shows_the_map_and_leaves_the_rest_for_the_next(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch, runs=1)
    assert not app.exception
    assert map_script(app)
    assert len(app.metric) == 5
    assert len(app.dataframe) == 0
    assert not app.main.expander  # (the sidebar may hold the sign-in form)
    app.run()  # what the map's first report of its centre and zoom does in a browser
    assert len(app.dataframe) == 6
    assert app.dataframe(key="convoy_table")
    assert any(c.value.startswith("Disclaimer:") for c in app.caption)


def test_without_a_map_the_rest_of_the_page_comes_at_once(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def missing(*args: object, **kwargs: object) -> None:
        raise AssetsMissingError("assets/node_modules: Leaflet is not installed (run make)")

    monkeypatch.setattr(mapview, "build_live_map", missing)
    app = run_app(shipped_workspace, monkeypatch, runs=1)
    assert not app.exception
    assert "Leaflet is not installed" in app.error[0].value
    assert app.dataframe(key="convoy_table")  # no map will report back to rerun the script


def test_app_falls_back_to_the_shipped_folder_without_a_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(tmp_path / "absent.gpkg", monkeypatch)
    assert not app.exception
    assert "No workspace" in app.sidebar.info[0].value
    assert len(app.dataframe) == 6  # convoys, route risk, sources, figures, places, zones


def test_app_reports_a_broken_workspace_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.gpkg"
    broken.write_bytes(b"this is not a GeoPackage")
    app = run_app(broken, monkeypatch)
    assert not app.exception
    assert "could not load" in app.error[0].value
    assert "broken.gpkg" in app.error[0].value


# --- the map, the moment, the filters and the URL -------------------------------------------

OVERLAYS = re.compile(r"overlays\s*:\s*\{(.*?)\}", re.DOTALL)
OVERLAY_ENTRY = re.compile(r'("(?:[^"\\]|\\.)*")\s*:\s*(\w+)')
EVENTS = re.compile(r"^\s*\}\)\(map_\w+, (\w+), (\{.*\})\);\s*$", re.MULTILINE)
ITEMS = re.compile(r"^\s*\}\)\((\w+), (\[.*\])\);\s*$", re.MULTILINE)
SHIPPED_LABELS = {
    "convoy-1": "First convoy: ambulances and buses",
    "convoy-2": "Second convoy (followed the first)",
    "convoy-3": "Third convoy (followed the first)",
    "onward-to-idlib": "Onward movement of evacuees to Idlib (planned)",
}


def utc(hour: int, minute: int = 0) -> datetime:
    return datetime(2016, 12, 15, hour, minute, tzinfo=UTC)


def map_script(app: AppTest) -> str:
    """The Leaflet script the app handed to streamlit-folium on its last run: the standing
    map's, then its moment's (geo.mapview.moment)."""
    (component,) = app.get("component_instance")
    assert component.proto.component_name == "streamlit_folium.st_folium"
    args = json.loads(component.proto.json_args)
    return str(args["script"]) + "\n" + str(args["feature_group"] or "")


def shown_layers(script: str) -> set[str]:
    """The overlays that start switched on (added to the map, not only to the layer control)."""
    block = OVERLAYS.search(script)
    assert block, "no layer control in the map"
    keys = {label: key for key, label in LAYER_LABELS.items()}
    entries = {keys[json.loads(label)]: name for label, name in OVERLAY_ENTRY.findall(block[1])}
    assert set(entries) == set(ALL_LAYERS)
    return {
        key for key, name in entries.items() if re.search(rf"\b{name}\.addTo\(map_\w+\)", script)
    }


def route_labels(script: str) -> set[str]:
    """The convoys whose routes the map draws (from the routes overlay's tooltips; not a convoy
    drawn at its destination alone, an icon)."""
    block = OVERLAYS.search(script)
    assert block
    routes = dict(OVERLAY_ENTRY.findall(block[1]))[json.dumps(LAYER_LABELS["routes"])]
    items = {name: json.loads(data) for name, data in ITEMS.findall(script)}[routes]
    lines = [item for item in items if item["t"] != "icon"]
    return {item["tip"].split(" — ")[0] for item in lines if " — " in item.get("tip", "")}


def metrics(app: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in app.metric}


def test_unticking_a_layer_hides_it_in_the_map_and_the_url(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    assert shown_layers(map_script(app)) == set(DEFAULT_LAYERS)
    assert "zones-government" in app.query_params["layers"]
    app.checkbox(key="layer:zones-government").uncheck().run()
    assert not app.exception
    assert shown_layers(map_script(app)) == set(DEFAULT_LAYERS) - {"zones-government"}
    wanted = ",".join(k for k in DEFAULT_LAYERS if k != "zones-government")
    assert app.query_params["layers"] == wanted
    app.checkbox(key="layer:zones-government").check().run()
    assert shown_layers(map_script(app)) == set(DEFAULT_LAYERS)


def test_as_of_moves_the_headline_and_the_table(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    scenario = read_scenario(Settings.from_environment().default_scenario_dir)
    assert app.select_slider(key="at").value == utc(13)  # halfway through the first convoy
    evacuated = tables.headline_metrics(scenario, utc(13))[0].label
    for moment, before_gasser in ((utc(14, 45), True), (utc(15), False), (utc(18), False)):
        app.select_slider(key="at").set_value(moment).run()
        assert not app.exception
        assert app.query_params["at"] == moment.strftime("%Y-%m-%dT%H:%MZ")
        shown = metrics(app)
        expected = {m.label: m.value for m in tables.headline_metrics(scenario, moment)}
        assert shown == expected
        if before_gasser:
            assert shown[evacuated] == "none reported yet"
        else:
            assert shown[evacuated].startswith("about 3,000 civilians")
    app.select_slider(key="at").set_value(utc(13)).run()
    table = app.dataframe(key="convoy_table").value.set_index("id")
    assert table.loc["convoy-1", "state at this moment"] == "under way"
    app.select_slider(key="at").set_value(utc(14)).run()
    table = app.dataframe(key="convoy_table").value.set_index("id")
    assert table.loc["convoy-1", "state at this moment"] == "arrived"


def test_filters_change_the_routes_on_the_map(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    assert route_labels(map_script(app)) == set(SHIPPED_LABELS.values())
    status, _organisation, confidence = app.sidebar.multiselect
    status.set_value(["arrived"]).run()
    assert not app.exception
    assert route_labels(map_script(app)) == {SHIPPED_LABELS["convoy-1"], SHIPPED_LABELS["convoy-2"]}
    confidence.set_value(["low"]).run()
    assert route_labels(map_script(app)) == {SHIPPED_LABELS["convoy-2"]}


def test_filters_change_the_convoy_table(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    assert len(app.dataframe(key="convoy_table").value) == 6
    app.sidebar.multiselect[0].set_value(["arrived"]).run()
    assert not app.exception
    assert set(app.dataframe(key="convoy_table").value["id"]) == {"convoy-1", "convoy-2"}


def test_query_params_restore_a_view(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    app = AppTest.from_file(APP, default_timeout=60)
    layers = [key for key in ALL_LAYERS if key != "zones-government"]
    app.query_params["at"] = "2016-12-15T16:05Z"  # between steps: the nearest one is taken
    app.query_params["layers"] = ",".join(layers)
    app.query_params["base"] = "osm"
    app.query_params["convoy"] = "convoy-1"
    app.run().run()
    assert not app.exception
    assert app.select_slider(key="at").value == utc(16)
    assert app.checkbox(key="layer:zones-government").value is False
    assert all(app.checkbox(key=f"layer:{key}").value for key in layers)
    assert app.radio(key="base").value == "osm"
    table = app.dataframe(key="convoy_table").value.set_index("id")
    assert table["selected"].to_dict() == {
        cid: ("●" if cid == "convoy-1" else "") for cid in table.index
    }
    assert any(m.value.startswith("**Selected:** First convoy") for m in app.markdown)
    assert shown_layers(map_script(app)) == set(layers)
    assert "tile.openstreetmap.org" in map_script(app)
    params = dict(app.query_params)
    assert params["at"] == "2016-12-15T16:00Z"
    assert (params["layers"], params["base"], params["convoy"]) == (
        ",".join(layers),
        "osm",
        "convoy-1",
    )


def test_unknown_query_params_fall_back_to_the_defaults(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params.update(at="yesterday", layers="nonsense", base="satellite", convoy="nope")
    app.run().run()
    assert not app.exception
    assert app.select_slider(key="at").value == utc(13)
    assert not any(app.checkbox(key=f"layer:{key}").value for key in ALL_LAYERS)
    assert app.radio(key="base").value == "offline"
    assert set(app.dataframe(key="convoy_table").value["selected"]) == {""}
    assert "convoy" not in app.query_params


def test_no_stray_text_on_the_page(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    assert [m.value for m in app.main.markdown if "Leaflet" in m.value] == []


# --- a broken workspace, imported events -----------------------------------------------------


def test_a_broken_workspace_can_be_opened_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken.gpkg"
    broken.write_bytes(b"this is not a GeoPackage")
    app = run_app(broken, monkeypatch)
    app.button(key="open_read_only").click().run()
    assert not app.exception
    assert app.title[0].value == "East Aleppo evacuation, 15 December 2016"
    assert "Read-only" in app.sidebar.warning[0].value
    assert broken.read_bytes() == b"this is not a GeoPackage"


@pytest.mark.geopackage_only
def test_a_broken_workspace_is_rebuilt_from_its_last_dump(
    shipped_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(shipped_workspace, Path)
    workspace = open_workspace(shipped_workspace)
    edit = changes.Edit("update", "convoys", "convoy-2", {"vehicles": "about 20"})
    changes.commit(workspace, "aleppo-2016-12", [edit], who="test")
    shipped_workspace.write_bytes(b"\x00 corrupt")
    app = run_app(shipped_workspace, monkeypatch)
    assert "could not load" in app.error[0].value
    app.button(key="rebuild_workspace").click().run()
    assert not app.exception
    assert "Rebuilt" in app.success[0].value
    convoy = next(c for c in workspace.load().convoys if c.id == "convoy-2")
    assert str(convoy.vehicles) == "about 20"  # the edit survived in the dump
    assert len(list(shipped_workspace.parent.glob("workspace.gpkg.broken-*"))) == 1


def test_imported_events_are_drawn_and_filtered_by_type_and_date(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = open_workspace(shipped_workspace)
    acled = Path(__file__).parent / "data" / "import" / "acled.csv"
    prepared = importing.prepare(acled, workspace.load())
    importing.commit_import(workspace, "aleppo-2016-12", prepared, who="test")
    app = run_app(shipped_workspace, monkeypatch)
    assert not app.exception
    at = app.select_slider(key="at").value.date()

    def events_drawn() -> list[str]:
        """The type of each event the map's events layer was given."""
        [(group, data)] = EVENTS.findall(map_script(app))
        block = OVERLAYS.search(map_script(app))
        assert block
        assert dict(OVERLAY_ENTRY.findall(block[1]))[json.dumps(LAYER_LABELS["events"])] == group
        columns = json.loads(data)
        kinds = event_points.inflated(columns["kind"], "<u2")
        assert len(kinds) == columns["n"]
        return [columns["kinds"][kind] for kind in kinds]

    in_week = [e for e in prepared.records["events"] if 0 <= (at - e.date).days < 7]
    assert len(events_drawn()) == len(in_week) > 0
    app.select_slider(key="event_days").set_value(0).run()
    earlier = [e for e in prepared.records["events"] if e.date <= at]
    assert len(events_drawn()) == len(earlier)
    app.multiselect(key="event_types").set_value(["Battles"]).run()
    assert set(events_drawn()) == {"Battles"}
    assert len(events_drawn()) == sum(e.event_type == "Battles" for e in earlier)


def test_route_risk_is_in_the_table_and_its_panel(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    table = app.dataframe[0].value.set_index("id")
    assert table.loc["convoy-1", "risk"] == "high"
    assert table.loc["convoy-1", "alert"] == "⚠ ALERT"  # under way through besieged ground
    risk = app.dataframe[1].value.set_index("convoy")
    assert risk.loc["convoy-1", "front lines"] == 2
    assert "runs 2.0 km through besieged ground" in risk.loc["convoy-1", "because"]
    app.number_input(key="risk_km").set_value(1.0).run()
    assert not app.exception


def test_live_tracking_reads_a_watched_file_into_the_workspace(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    track = (Path(__file__).parent / "data" / "tracking" / "convoy-1.csv").read_text()
    header, *lines = track.splitlines()
    watched = tmp_path / "live.csv"
    watched.write_text("\n".join([header, *lines[:5]]) + "\n")
    app = run_app(shipped_workspace, monkeypatch)
    app.text_input(key="track_file").input(str(watched)).run()
    assert not app.exception
    assert len(workspace_positions(shipped_workspace)) == 5
    live = app.dataframe[0].value.set_index("convoy")  # under the map, before the convoys
    assert live.loc["convoy-1", "state"] == "moving"
    with watched.open("a") as handle:
        handle.write("\n".join(lines[5:12]) + "\n")
    app.run()  # what the fragment's timer does
    assert len(workspace_positions(shipped_workspace)) == 12
    live = app.dataframe[0].value.set_index("convoy")  # under the map, before the convoys
    assert live.loc["convoy-1", "state"] == "stopped"


def workspace_positions(path: Path | str) -> list[object]:
    from geo.store import positions

    return positions(open_workspace(path), "aleppo-2016-12")


# --- the map's view: asked for once, then the browser's -------------------------------------

KEEPER = re.compile(
    r"\}\)\(map_\w+, (\{[^{}]*\"token\"[^{}]*\}), (\"[^\"]*\"|null), (?:true|false)\);"
)


def view_request(app: AppTest) -> dict[str, object]:
    """The view the map was asked to open on (its ViewKeeper's request)."""
    found = KEEPER.search(map_script(app))
    assert found, "no view keeper in the map"
    assert json.loads(found[2]) == "corridor-view:aleppo-2016-12"
    return dict(json.loads(found[1]))


def component_args(app: AppTest) -> dict[str, object]:
    (component,) = app.get("component_instance")
    return dict(json.loads(component.proto.json_args))


def test_the_map_is_never_handed_a_view_back(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    first = map_script(app)
    assert (component_args(app)["center"], component_args(app)["zoom"]) == (None, None)
    request = view_request(app)
    (_south, west), (_north, east) = request["bounds"]  # type: ignore[misc]
    assert west < 36.7 < 37.1 < east  # the story: Aleppo's pocket and the Fuaa-Kafraya enclave
    app.run()
    assert map_script(app) == first  # the same map: streamlit-folium keeps its frame
    app.select_slider(key="at").set_value(utc(14)).run()
    assert view_request(app) == request  # a new moment keeps the user's view


def test_a_time_step_swaps_the_moment_and_keeps_the_standing_map(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = run_app(shipped_workspace, monkeypatch)
    standing, moment = component_args(app)["script"], component_args(app)["feature_group"]
    assert "As of 15 Dec 2016" in str(moment)
    assert "As of" not in str(standing)
    app.select_slider(key="at").set_value(utc(9)).run()
    # streamlit-folium keys the component on the standing script: the same one is not mounted
    # again (a blank map for a moment during Play), and the new moment is drawn into it
    assert component_args(app)["script"] == standing
    assert component_args(app)["feature_group"] != moment
    assert "15 Dec 2016 11:00" in str(component_args(app)["feature_group"])


def test_a_permalink_asks_for_its_view(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params.update(center="36.17,37.02", zoom="11")
    app.run().run()
    request = view_request(app)
    assert (request["center"], request["zoom"]) == ([36.17, 37.02], 11.0)
    assert (app.query_params["center"], app.query_params["zoom"]) == ("36.17000,37.02000", "11")
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    other = AppTest.from_file(APP, default_timeout=60)
    other.query_params.update(center="36.17,37.02", zoom="60")  # out of range: only the centre
    other.run().run()
    assert "zoom" not in view_request(other)


def test_a_link_to_a_convoy_opens_on_it_and_reset_frames_the_story(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params["convoy"] = "convoy-1"
    app.run().run()
    on_convoy = view_request(app)
    (_, west), (_, east) = on_convoy["bounds"]  # type: ignore[misc]
    assert (west, east) == pytest.approx((37.03, 37.14953))
    assert on_convoy["maxZoom"] == 13
    app.button(key="reset_view").click().run()
    story = view_request(app)
    assert story["token"] != on_convoy["token"]
    (_, west), (_, east) = story["bounds"]  # type: ignore[misc]
    assert west < 36.7
    app.run()
    assert view_request(app) == story  # asked once: the next run does not ask again


def test_a_picture_that_cannot_be_made_says_why_and_the_page_stays(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from geo import export
    from geo.errors import ExportError

    def no_playwright(snapshot: object, fmt: str) -> bytes:
        raise ExportError("PNG and PDF snapshots need the Python package playwright")

    app = run_app(shipped_workspace, monkeypatch)
    monkeypatch.setattr(export, "render", no_playwright)
    app.button(key="make_png").click().run()
    assert not app.exception
    assert any("need the Python package playwright" in e.value for e in app.error)
    assert app.dataframe(key="convoy_table")  # what comes below the export is still there


def test_the_hxl_choice_of_the_export_panel_goes_into_the_snapshot(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from geo import export

    real, made = export.Snapshot, []

    def recorded(*args: object, **kwargs: object) -> object:
        snapshot = real(*args, **kwargs)  # type: ignore[arg-type]
        made.append(snapshot.hxl)
        return snapshot

    app = run_app(shipped_workspace, monkeypatch)
    assert app.checkbox(key="csv_hxl").value is False
    monkeypatch.setattr(export, "Snapshot", recorded)
    app.checkbox(key="csv_hxl").check().run()
    assert not app.exception
    assert made == [True]


# --- languages -------------------------------------------------------------------------------


def place_symbol(script: str, tip: str) -> str:
    """The HTML of the place whose tooltip is `tip` (its symbol and its printed name)."""
    items = [item for _, data in ITEMS.findall(script) for item in json.loads(data)]
    return next(str(item["i"]["html"]) for item in items if item.get("tip") == tip)


def opened_with(workspace: Path | str, monkeypatch: pytest.MonkeyPatch, **params: str) -> AppTest:
    """The app opened from a link with these query parameters, after its first two runs."""
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(workspace))
    app = AppTest.from_file(APP, default_timeout=60)
    app.query_params.update(params)
    return app.run().run()


def test_an_arabic_link_opens_the_arabic_interface_with_both_names_on_the_map(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = opened_with(shipped_workspace, monkeypatch, lang="ar", labels="both")
    assert not app.exception
    assert (app.radio(key="language").value, app.radio(key="labels").value) == ("ar", "both")
    assert [s.value for s in app.sidebar.subheader][:2] == ["الطبقات", "عوامل التصفية"]
    assert app.checkbox(key="layer:routes").label == "مسارات القوافل"
    table = json.loads(app.dataframe(key="convoy_table").proto.columns)
    assert (table["convoy"]["label"], table["to"]["label"]) == ("القافلة", "إلى")
    assert "من أُجلي حتى الآن (وفق التقارير)" in metrics(app)
    label = 'Aleppo<br><span lang="ar" dir="rtl">حلب</span>'
    assert label in place_symbol(map_script(app), "Aleppo · حلب (مدينة)")
    assert any("direction: rtl" in m.value for m in app.markdown)
    params = dict(app.query_params)
    assert (params["lang"], params["labels"]) == ("ar", "both")


def test_switching_back_to_english_keeps_the_arabic_names_on_the_map(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = opened_with(shipped_workspace, monkeypatch, lang="ar", labels="ar")
    app.radio(key="language").set_value("en").run()
    assert not app.exception
    assert [s.value for s in app.sidebar.subheader][:2] == ["Layers", "Filters"]
    assert not any("direction: rtl" in m.value for m in app.markdown)
    assert ">حلب</span>" in place_symbol(map_script(app), "حلب (city)")
    params = dict(app.query_params)
    assert "lang" not in params
    assert params["labels"] == "ar"


def test_an_unknown_language_in_a_link_falls_back_to_english(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = opened_with(shipped_workspace, monkeypatch, lang="klingon", labels="runes")
    assert not app.exception
    assert (app.radio(key="language").value, app.radio(key="labels").value) == ("en", "en")
    assert "lang" not in app.query_params
    assert "labels" not in app.query_params


def test_switching_language_keeps_the_filters_the_layers_and_the_moment(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = opened_with(shipped_workspace, monkeypatch)
    app.multiselect(key="statuses").set_value(["arrived"]).run()
    app.checkbox(key="layer:routes").uncheck().run()
    app.select_slider(key="at").set_value(utc(16)).run()
    app.radio(key="language").set_value("ar").run()
    app.radio(key="labels").set_value("both").run()
    assert not app.exception
    assert app.multiselect(key="statuses").value == ["arrived"]
    assert app.checkbox(key="layer:routes").value is False
    assert app.select_slider(key="at").value == utc(16)


def test_another_page_and_back_keeps_the_moment_layers_view_and_language(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = opened_with(shipped_workspace, monkeypatch)
    app.checkbox(key="layer:routes").uncheck().run()
    app.select_slider(key="at").set_value(utc(16)).run()
    app.radio(key="labels").set_value("both").run()
    app.radio(key="language").set_value("ar").run()
    view = app.session_state["view_request"]
    for page in ("pages/new_scenario.py", "pages/import_and_edit.py", "pages/from_a_report.py"):
        app.switch_page(page).run()
        assert not app.exception, page
        if page != "pages/from_a_report.py":  # (that page has no choice of language yet)
            assert app.radio(key="language").value == "ar", page
            assert any("direction: rtl" in m.value for m in app.markdown), page
    app.switch_page("pages/map.py").run()
    assert not app.exception
    assert app.radio(key="language").value == "ar"
    assert app.radio(key="labels").value == "both"
    assert app.select_slider(key="at").value == utc(16)
    assert app.checkbox(key="layer:routes").value is False
    assert app.session_state["view_request"] == view  # the same request: the map keeps its view
    params = dict(app.query_params)
    assert (params["lang"], params["labels"], params["at"]) == ("ar", "both", "2016-12-15T16:00Z")
    assert "routes" not in params["layers"].split(",")


def test_each_page_opens_in_the_language_its_link_asks_for(
    shipped_workspace: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(shipped_workspace))
    app = AppTest.from_file(str(Path(APP).parent / "pages" / "new_scenario.py"), default_timeout=60)
    app.query_params["lang"] = "ar"
    app.run()
    assert not app.exception
    assert app.radio(key="language").value == "ar"
    app.radio(key="language").set_value("en").run()
    assert not any("direction: rtl" in m.value for m in app.markdown)
