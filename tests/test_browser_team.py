"""A team on one PostGIS workspace: another analyst's committed change is drawn in an open
dashboard without reloading it; the dashboard says who is signed in; a viewer gets no edit
controls (and the database refuses a viewer's writes: tests/test_postgis.py)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from conftest import POSTGIS, SHIPPED_DIR, dashboard_page, postgis_schema, streamlit_app
from playwright.sync_api import Browser
from streamlit.testing.v1 import AppTest

from geo import changes, team
from geo.changes import Edit
from geo.records import Position
from geo.scenario import read_scenario
from geo.workspace import GeocodeCache, Workspace, add_positions, positions

ROOT = Path(__file__).parent.parent


@pytest.fixture
def team_workspace(tmp_path: Path) -> Iterator[Workspace]:
    """The shipped scenario in a PostGIS schema of its own."""
    with postgis_schema() as url:
        workspace = Workspace(url)
        workspace.path = tmp_path / "workspace.gpkg"  # (its dumps)
        workspace.save(read_scenario(SHIPPED_DIR))
        yield workspace


@pytest.mark.browser
def test_another_analyst_s_change_is_drawn_without_reloading_the_page(
    browser: Browser, request: pytest.FixtureRequest, team_workspace: Workspace
) -> None:
    scenario = team_workspace.load()
    convoy = scenario.convoys[0]
    renamed = f"{convoy.label} (renamed by the desk)"
    with streamlit_app(team_workspace.location) as server, dashboard_page(
        browser, request
    ) as page:  # fmt: skip
        page.goto(server, wait_until="domcontentloaded")
        page.get_by_text("Signed in as postgres (owner)").wait_for(timeout=60_000)
        cell = page.locator("td[role='gridcell']")
        cell.filter(has_text=convoy.label).first.wait_for(state="attached", timeout=60_000)
        page.wait_for_timeout(2_000)  # the page settles
        page.evaluate("window.__corridorKeep = 'same page'")
        started = time.monotonic()
        changes.commit(  # another analyst, on another machine
            Workspace(team_workspace.location), scenario.id,
            [Edit("update", "convoys", convoy.id, {"label": renamed})], who="desk",
        )  # fmt: skip
        cell.filter(has_text=renamed).first.wait_for(state="attached", timeout=15_000)
        seconds = time.monotonic() - started
        assert page.evaluate("window.__corridorKeep") == "same page"  # not reloaded
        print(f"another analyst's change drawn after {seconds:.2f} s")
        page.wait_for_timeout(3_000)  # and it stays
        assert cell.filter(has_text=renamed).count() > 0


@pytest.fixture
def viewer_url(team_workspace: Workspace) -> Iterator[str]:
    """The team workspace as a viewer of its own (a login role dropped after) connects to it."""
    name = f"viewer_{uuid.uuid4().hex[:8]}"
    location = str(team_workspace.location)
    team.init(location, team.Members(viewers=[name]))
    yield location.replace("://postgres@", f"://{name}@", 1)
    with psycopg.connect(POSTGIS, autocommit=True) as connection:
        connection.execute(f"DROP OWNED BY {name}")
        connection.execute(f"DROP ROLE {name}")


def test_a_viewer_sees_no_edit_controls(viewer_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", viewer_url)
    page = AppTest.from_file(str(ROOT / "pages" / "import_and_edit.py"), default_timeout=60)
    page.run()
    assert not page.exception
    said = [info.value for info in page.info]
    assert any("a viewer: editing is for editors" in text for text in said), said
    assert not page.tabs  # no import, edit, draw or undo
    main = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    main.run()
    assert not main.exception
    captions = [caption.value for caption in main.sidebar.caption]
    assert any(text.startswith("Signed in as viewer_") and "(viewer)" in text for text in captions)


def test_an_editor_s_changes_are_logged_under_its_database_role(
    team_workspace: Workspace,
) -> None:
    name = f"editor_{uuid.uuid4().hex[:8]}"
    location = str(team_workspace.location)
    team.init(location, team.Members(editors=[name]))
    try:
        editor = Workspace(location.replace("://postgres@", f"://{name}@", 1))
        scenario_id = editor.scenario_ids()[0]
        convoy = editor.load(scenario_id).convoys[0].id
        edit = Edit("update", "convoys", convoy, {"status": "halted"})
        changes.commit(editor, scenario_id, [edit], who="typed name")
        assert [c.who for c in changes.history(editor)] == [name]
        changes.undo(editor, scenario_id, who="typed name")
        assert [c.who for c in changes.history(editor)] == [name, name]
        # what an editor's session also writes: deletions, live positions, geocoder answers
        figure = editor.load(scenario_id).figures[0].id
        changes.commit(editor, scenario_id, [Edit("delete", "figures", figure)], who="x")
        assert figure not in {f.id for f in Workspace(editor.location).load(scenario_id).figures}
        start = datetime(2016, 12, 15, 12, 0, tzinfo=UTC)
        assert add_positions(editor, scenario_id, [Position(convoy, start, 36.2, 37.1)]) == 1
        assert len(positions(editor, scenario_id)) == 1
        GeocodeCache(editor)["nominatim:fuaa"] = {"lat": "35.9"}
        assert GeocodeCache(editor)["nominatim:fuaa"] == {"lat": "35.9"}
    finally:
        with psycopg.connect(POSTGIS, autocommit=True) as connection:
            connection.execute(f"DROP OWNED BY {name}")
            connection.execute(f"DROP ROLE {name}")
