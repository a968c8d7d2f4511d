"""A team on one PostGIS workspace: another analyst's committed change is drawn in an open
dashboard without reloading it; the dashboard says who is signed in; a viewer gets no edit
controls (and the database refuses a viewer's writes: tests/test_postgis.py)."""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from conftest import (
    POSTGIS,
    SHIPPED_DIR,
    click_until,
    dashboard_page,
    postgis_schema,
    streamlit_app,
)
from playwright.sync_api import Browser, expect
from psycopg import sql
from streamlit.testing.v1 import AppTest

from geo import changes
from geo.changes import Edit
from geo.records import Position
from geo.scenario import read_scenario
from geo.store import GeocodeCache, Workspace, add_positions, open_workspace, positions, team

ROOT = Path(__file__).parent.parent


@pytest.fixture
def team_workspace(tmp_path: Path) -> Iterator[Workspace]:
    """The shipped scenario in a PostGIS schema of its own."""
    with postgis_schema() as url:
        workspace = open_workspace(url)
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
            open_workspace(team_workspace.location), scenario.id,
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


@dataclass(frozen=True)
class CheckedTeam:
    """The shipped scenario on a server that checks passwords, and a viewer with one."""

    url: str  # (its owner's, password included)
    viewer: str
    password: str


@pytest.fixture(scope="module")
def checked_team(checked_postgres: str) -> Iterator[CheckedTeam]:
    viewer, password = "viewer_amal", "s3cret:/@pass"
    workspace = open_workspace(checked_postgres)
    workspace.save(read_scenario(SHIPPED_DIR))
    team.init(checked_postgres, team.Members(viewers=[viewer]))
    with psycopg.connect(checked_postgres, autocommit=True) as connection:
        statement = sql.SQL("ALTER ROLE {} PASSWORD {}")
        connection.execute(statement.format(sql.Identifier(viewer), password))
    yield CheckedTeam(checked_postgres, viewer, password)
    shutil.rmtree(workspace.path.with_name(f"{workspace.path.stem}.dumps"), ignore_errors=True)


@pytest.mark.browser
def test_a_viewer_signed_in_in_the_browser_gets_no_edit_controls(
    browser: Browser, request: pytest.FixtureRequest, checked_team: CheckedTeam
) -> None:
    with streamlit_app(checked_team.url) as server, dashboard_page(browser, request) as page:
        page.goto(server, wait_until="domcontentloaded")
        page.get_by_text("Signed in as postgres (owner)").wait_for(timeout=60_000)
        page.get_by_text("Disclaimer:").wait_for(timeout=60_000)  # (the page drawn, as one waits)
        page.get_by_text("Sign in with your database role").click()
        role = page.get_by_label("Database role", exact=True)
        password = page.get_by_label("Password", exact=True)
        role.fill(checked_team.viewer)
        password.fill(checked_team.password)
        page.wait_for_timeout(1_000)  # what was typed stays typed
        expect(role).to_have_value(checked_team.viewer)
        expect(password).to_have_value(checked_team.password)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text(f"Signed in as {checked_team.viewer} (viewer)").wait_for(timeout=60_000)
        click_until(
            page.get_by_role("link", name="Import and edit"),
            page.get_by_text("a viewer: editing is for editors"),
        )
        page.wait_for_timeout(3_000)  # and nothing to edit comes after
        assert page.get_by_role("tab").count() == 0
        assert page.get_by_role("button", name="Undo").count() == 0
        assert page.locator("input[type='file']").count() == 0
        assert checked_team.password not in page.content()
        click_until(
            page.get_by_role("link", name="From a report"),
            page.get_by_role("heading", name="From a report"),
        )
        page.wait_for_timeout(2_000)
        assert page.get_by_role("button", name="Add to workspace").count() == 0


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
        editor = open_workspace(location.replace("://postgres@", f"://{name}@", 1))
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
        reread = open_workspace(editor.location).load(scenario_id)
        assert figure not in {f.id for f in reread.figures}
        start = datetime(2016, 12, 15, 12, 0, tzinfo=UTC)
        assert add_positions(editor, scenario_id, [Position(convoy, start, 36.2, 37.1)]) == 1
        assert len(positions(editor, scenario_id)) == 1
        GeocodeCache(editor)["nominatim:fuaa"] = {"lat": "35.9"}
        assert GeocodeCache(editor)["nominatim:fuaa"] == {"lat": "35.9"}
    finally:
        with psycopg.connect(POSTGIS, autocommit=True) as connection:
            connection.execute(f"DROP OWNED BY {name}")
            connection.execute(f"DROP ROLE {name}")


def shown_text(app: AppTest) -> str:
    """Every message, caption and text the page shows, main area and sidebar."""
    kinds = ("caption", "error", "info", "warning", "success", "markdown", "title", "text")
    return "\n".join(str(element.value) for kind in kinds for element in getattr(app, kind))


def sign_in(app: AppTest, role: str, password: str) -> str:
    """Type a role and password in the sidebar's form, press Sign in; what the page then shows."""
    app.sidebar.text_input(key="sign_in_role").input(role)
    app.sidebar.text_input(key="sign_in_password").input(password)
    next(b for b in app.sidebar.button if b.label == "Sign in").click().run()
    assert not app.exception
    return shown_text(app)


def test_a_session_signs_in_with_its_own_database_role_and_out_again(
    checked_team: CheckedTeam, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORRIDOR_WORKSPACE", checked_team.url)  # the server's own
    monkeypatch.delenv("CORRIDOR_SIGN_IN_UNCHECKED", raising=False)
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60).run()
    assert "Signed in as postgres (owner)" in shown_text(app)

    said = sign_in(app, "nobody_here", checked_team.password)
    assert "Not signed in as nobody_here:" in said
    assert 'password authentication failed for user "nobody_here"' in said
    said = sign_in(app, checked_team.viewer, "a guess")
    assert f"Not signed in as {checked_team.viewer}:" in said
    assert "password authentication failed" in said
    said = sign_in(app, "postgres", "")  # (no password: not even tried)
    assert "takes a database role and its password" in said
    assert "Signed in as postgres (owner)" in said

    said = sign_in(app, checked_team.viewer, checked_team.password)
    assert f"Signed in as {checked_team.viewer} (viewer)" in said
    assert app.sidebar.text_input(key="sign_in_password").value == ""  # not kept in the form
    assert "s3cret" not in said

    app.switch_page("pages/import_and_edit.py").run()
    assert not app.exception
    assert "a viewer: editing is for editors" in shown_text(app)
    assert not app.tabs
    app.switch_page("pages/map.py").run()
    from geo.store import _idle_connections

    def kept_for_the_viewer() -> int:
        return sum(f"{checked_team.viewer}:" in k.url for k in _idle_connections._kept)

    assert kept_for_the_viewer() > 0
    app.button(key="sign_out").click().run()
    assert "Signed in as postgres (owner)" in shown_text(app)
    assert kept_for_the_viewer() == 0  # (its login, password and all, kept no longer)


def test_a_database_that_does_not_check_passwords_signs_no_one_in(
    viewer_url: str, team_workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    viewer = viewer_url.split("://", 1)[1].split("@", 1)[0]
    monkeypatch.setenv("CORRIDOR_WORKSPACE", str(team_workspace.location))  # (trust auth)
    monkeypatch.delenv("CORRIDOR_SIGN_IN_UNCHECKED", raising=False)
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60).run()
    said = sign_in(app, viewer, "any password at all")
    assert f"Not signed in as {viewer}:" in said
    assert "without checking its password" in said
    assert "Signed in as postgres (owner)" in said
    # where that is meant (a test machine), the setting lets it through
    monkeypatch.setenv("CORRIDOR_SIGN_IN_UNCHECKED", "1")
    assert f"Signed in as {viewer} (viewer)" in sign_in(app, viewer, "any password at all")


def test_the_sign_in_form_is_drawn_once_when_the_workspace_cannot_be_read(
    checked_team: CheckedTeam, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A workspace the server's own URL cannot open: the page says so and offers the form."""
    wrong = checked_team.url.replace("postgres:", "postgres:wrong", 1)
    monkeypatch.setenv("CORRIDOR_WORKSPACE", wrong)
    monkeypatch.delenv("CORRIDOR_SIGN_IN_UNCHECKED", raising=False)
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60).run()
    assert not app.exception
    assert "password authentication failed" in shown_text(app)
    said = sign_in(app, checked_team.viewer, checked_team.password)
    assert f"Signed in as {checked_team.viewer} (viewer)" in said
