"""Shared fixtures: the tiny scenario, an editable copy of it, and small editors for its files."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from geo.chromium import LAUNCH_ARGS, find_chromium
from geo.records import Scenario
from geo.scenario import read_scenario
from geo.store import Workspace, open_workspace

TESTS_DIR = Path(__file__).parent
TINY_DIR = TESTS_DIR / "data" / "scenarios" / "tiny"
SHIPPED_DIR = TESTS_DIR.parent / "data" / "scenarios" / "aleppo-2016-12"
ROOT = TESTS_DIR.parent
ARTIFACTS = TESTS_DIR / "artifacts"


@pytest.fixture
def tiny_dir() -> Path:
    """The tiny scenario fixture (read only)."""
    return TINY_DIR


@pytest.fixture
def shipped_dir() -> Path:
    """The shipped Aleppo scenario (read only)."""
    return SHIPPED_DIR


@pytest.fixture
def tiny(tiny_dir: Path) -> Scenario:
    """The tiny scenario, read and checked."""
    return read_scenario(tiny_dir)


POSTGIS = os.environ.get(
    "CORRIDOR_TEST_POSTGIS", "postgresql://postgres@127.0.0.1:5432/corridor_test"
)
"""The PostGIS database the tests make workspaces in (`make postgis` makes it), a schema each."""


STORES = ["geopackage", "postgis"]
"""The workspace stores every test that reads or writes a workspace runs against."""


@pytest.fixture(params=STORES)
def new_workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Workspace]:
    """An empty workspace in each store: a GeoPackage file, and a schema of its own in the
    PostGIS test database (dropped after). A test marked `geopackage_only` (it opens the file
    itself) runs on the first alone."""
    if request.param == "geopackage":
        yield open_workspace(tmp_path / "workspace.gpkg")
        return
    if request.node.get_closest_marker("geopackage_only"):
        pytest.skip("opens the GeoPackage file itself")
    with postgis_schema() as url:
        found = open_workspace(url)
        found.path = tmp_path / "workspace.gpkg"  # (where its scenario dumps go: not .cache/)
        yield found


@contextlib.contextmanager
def postgis_schema() -> Iterator[str]:
    """A new schema in the PostGIS test database, as a workspace URL; dropped after."""
    import uuid
    from urllib.parse import quote

    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(POSTGIS, autocommit=True, connect_timeout=5) as connection:
            connection.execute(f"CREATE SCHEMA {name}")
    except psycopg.Error as error:
        pytest.fail(f"{POSTGIS}: no PostGIS database to test in; run `make postgis` ({error})")
    url = f"{POSTGIS}?options={quote(f'-csearch_path={name},public')}"
    try:
        yield url
    finally:
        with psycopg.connect(POSTGIS, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {name} CASCADE")
        dumps = open_workspace(url).path  # (where a workspace opened from the URL alone dumps)
        shutil.rmtree(dumps.with_name(f"{dumps.stem}.dumps"), ignore_errors=True)


@pytest.fixture(scope="module")
def checked_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL server of its own that checks passwords (scram-sha-256), unlike the test
    database (trust): its superuser's URL, password included, on a database with PostGIS.
    Made with the machine's `initdb` (as the `postgres` user when the tests run as root)."""
    import tempfile

    import psycopg

    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        pytest.fail("no initdb in /usr/lib/postgresql/*/bin: run `make postgis`")
    bin_dir = found[-1].parent
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    folder = Path(tempfile.mkdtemp(prefix="corridor-checked-"))
    password = "owner-" + os.urandom(6).hex()
    (folder / "password").write_text(password)
    if as_postgres:
        shutil.chown(folder, "postgres")
        shutil.chown(folder / "password", "postgres")
    data = folder / "data"
    try:  # (stopped and removed however far it got: initdb or a start may fail)
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A",
                  "scram-sha-256", f"--pwfile={folder / 'password'}", "-E", "UTF8", "--no-sync",
                  "--no-instructions"]  # fmt: skip
        subprocess.run([*as_postgres, *initdb], check=True, capture_output=True)
        for _attempt in range(5):  # (another process may take the port first)
            port = free_port()
            options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
            started = subprocess.run([*as_postgres, str(bin_dir / "pg_ctl"), "-D", str(data),
                                      "-o", options, "-l", str(folder / "log"), "-w", "start"],
                                     capture_output=True)  # fmt: skip
            if started.returncode == 0:
                break
        else:
            pytest.fail(f"the checked PostgreSQL did not start: {(folder / 'log').read_text()}")
        owner = f"postgresql://postgres:{password}@127.0.0.1:{port}"
        with psycopg.connect(f"{owner}/postgres", autocommit=True) as connection:
            connection.execute("CREATE DATABASE corridor")
        with psycopg.connect(f"{owner}/corridor", autocommit=True) as connection:
            connection.execute("CREATE EXTENSION postgis")
        yield f"{owner}/corridor"
    finally:
        if data.exists():  # (a start that timed out may still have a server running)
            subprocess.run([*as_postgres, str(bin_dir / "pg_ctl"), "-D", str(data), "-m",
                            "immediate", "stop"], capture_output=True)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=STORES)
def shipped_workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | str]:
    """The shipped scenario in a workspace of each store, as `CORRIDOR_WORKSPACE` names it: a
    GeoPackage's path, or a PostGIS URL (a schema of its own). A test marked `geopackage_only`
    runs on the first alone."""
    if request.param == "postgis" and request.node.get_closest_marker("geopackage_only"):
        pytest.skip("opens the GeoPackage file itself")
    with workspace_in(request.param, tmp_path, read_scenario(SHIPPED_DIR)) as location:
        yield location


@contextlib.contextmanager
def workspace_in(store: str, folder: Path, scenario: Scenario) -> Iterator[Path | str]:
    """`scenario` saved in a workspace of `store` ("geopackage": `folder`/workspace.gpkg;
    "postgis": a schema of its own, dropped after), as `CORRIDOR_WORKSPACE` names it."""
    if store == "geopackage":
        path = folder / "workspace.gpkg"
        open_workspace(path).save(scenario)
        yield path
        return
    with postgis_schema() as url:
        open_workspace(url).save(scenario)
        yield url


@contextlib.contextmanager
def shipped_served(request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
    """The dashboard served on the shipped scenario in the store `request.param` names (for
    a module's browser tests: `@pytest.fixture(scope="module", params=STORES)`)."""
    scenario = read_scenario(SHIPPED_DIR)
    with workspace_in(request.param, folder, scenario) as location, streamlit_app(location) as url:
        yield url


@pytest.fixture
def tiny_workspace(new_workspace: Workspace, tiny: Scenario) -> Workspace:
    """A workspace holding the tiny scenario, in each store."""
    new_workspace.save(tiny)
    return new_workspace


@pytest.fixture
def tiny_copy(tmp_path: Path) -> Path:
    """A copy of the tiny scenario that a test may edit; its folder is named after its id."""
    return Path(shutil.copytree(TINY_DIR, tmp_path / "tiny"))


@pytest.fixture
def edit_csv(tiny_copy: Path) -> Callable[..., None]:
    """edit_csv("convoys.csv", "c1", depart="..."): set cells of the row with that id.

    A column that is not there yet is added (empty in the other rows).
    """

    def edit(file: str, row_id: str, /, **cells: str) -> None:
        path = tiny_copy / file
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            columns, rows = list(reader.fieldnames or []), list(reader)
        columns += [column for column in cells if column not in columns]
        matching = [row for row in rows if row["id"] == row_id]
        assert matching, f"no row {row_id!r} in {file}"
        matching[0].update(cells)
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)

    return edit


@pytest.fixture
def edit_feature(tiny_copy: Path) -> Callable[..., None]:
    """edit_feature("zones.geojson", "z1", geometry={...}, control="..."): change one feature."""

    def edit(name: str, feature_id: str, geometry: Any = None, **props: Any) -> None:
        path = tiny_copy / name
        document = json.loads(path.read_text(encoding="utf-8"))
        matching = [f for f in document["features"] if f["properties"]["id"] == feature_id]
        assert matching, f"no feature {feature_id!r} in {name}"
        matching[0]["properties"].update(props)
        if geometry is not None:
            matching[0]["geometry"] = geometry
        path.write_text(json.dumps(document), encoding="utf-8")

    return edit


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """The system Chromium, headless, for one test module (Playwright's sync API allows one
    running instance per thread, so modules take turns)."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=find_chromium(), headless=True, args=list(LAUNCH_ARGS)
        )
        yield chromium
        chromium.close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A `store_free` test's PostGIS copy is skipped before its fixtures start a server."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.get_closest_marker("store_free") and "postgis" in params.values():
            reason = "the store plays no part in this: run on the GeoPackage alone"
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Each phase's report kept on the test, so fixtures can tell whether it failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


def show_page_if_failed(request: pytest.FixtureRequest, page: Page) -> None:
    """After a failed browser test: its screenshot into tests/artifacts/, its text printed."""
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        show_page(request, page)


def show_page(request: pytest.FixtureRequest, page: Page) -> None:
    """The page's screenshot into tests/artifacts/failed/, its text printed."""
    name = request.node.name.replace("/", "_")
    shot = ARTIFACTS / "failed" / f"{name}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(Exception):  # the page may be gone: keep what can be had
        page.screenshot(path=shot, full_page=True)
        print(f"screenshot: {shot}")
        for frame in page.frames:
            print(f"--- {frame.url[:120]}\n{frame.locator('body').inner_text(timeout=2_000)}")


@dataclass
class OfflinePage:
    """A browser page that may load only local files, and what it tried or got wrong."""

    page: Page
    blocked: list[str] = field(default_factory=list)
    """Requests that would have left the machine (aborted)."""
    errors: list[str] = field(default_factory=list)
    """Uncaught page errors and console errors."""
    dialogs: list[str] = field(default_factory=list)
    """alert/confirm/prompt messages (dismissed)."""


@pytest.fixture
def offline_page(browser: Browser) -> Iterator[OfflinePage]:
    """A fresh page for file: and data: URLs; every other request is aborted and recorded."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    found = OfflinePage(context.new_page())

    def only_local(route: Route) -> None:
        if route.request.url.startswith(("file:", "data:", "blob:")):
            route.continue_()
        else:
            found.blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    found.page.on("console", lambda m: found.errors.append(m.text) if m.type == "error" else None)
    found.page.on("pageerror", lambda error: found.errors.append(str(error)))
    found.page.on("dialog", lambda dialog: (found.dialogs.append(dialog.message), dialog.dismiss()))
    yield found
    context.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_health(url: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"streamlit did not answer at {url} within {seconds} s")


@contextlib.contextmanager
def streamlit_app(workspace: Path | str) -> Iterator[str]:
    """`streamlit run dashboard.py` on a free local port with this workspace; yields its URL
    (on another port when another process took the first before Streamlit could)."""
    import tempfile

    environment = {**os.environ, "CORRIDOR_WORKSPACE": str(workspace)}
    for attempt in range(3):
        port = free_port()
        command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard.py"),
                   "--server.port", str(port), "--server.headless", "true",
                   "--server.address", "127.0.0.1",
                   "--browser.gatherUsageStats", "false"]  # fmt: skip
        with tempfile.TemporaryFile() as said:
            process = subprocess.Popen(
                command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=said
            )
            try:
                wait_for_health(f"http://127.0.0.1:{port}", process)
                break
            except RuntimeError:  # (it exited early)
                said.seek(0)
                told = said.read().decode(errors="replace")
            except BaseException:  # (too slow: not left running)
                process.terminate()
                process.wait(timeout=20)
                raise
            taken = "is not available" in told or "already in use" in told
            if not taken or attempt == 2:
                raise RuntimeError(f"streamlit exited early: {told[-2000:]}")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)


LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", ""}


@contextlib.contextmanager
def dashboard_page(
    browser: Browser,
    request: pytest.FixtureRequest,
    *,
    width: int = 1400,
    height: int = 900,
    blocked: list[str] | None = None,
) -> Iterator[Page]:
    """A page for the dashboard that may reach only this machine (other requests are aborted
    and listed in `blocked`); after a failed test its screenshot and text are kept."""
    context = browser.new_context(viewport={"width": width, "height": height})

    def only_local(route: Route) -> None:
        url = route.request.url
        if urlparse(url).hostname in LOCAL_HOSTS or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            if blocked is not None:
                blocked.append(url)
            route.abort()

    context.route("**/*", only_local)
    opened = context.new_page()
    try:
        yield opened
    except BaseException:  # (the test's own report comes later: this failure is known now)
        show_page(request, opened)
        raise
    finally:
        show_page_if_failed(request, opened)
        context.close()


def click_until(target: Locator, ready: Locator, *, tries: int = 3) -> None:
    """Click `target` (a tab, a page link) until `ready` shows: a click made while the page is
    redrawn by a rerun (the one for a name just typed, the one after signing in) is lost when
    the cores are busy. Fails as `ready.wait_for` does after the last try."""
    for _ in range(tries):
        target.click()
        try:
            ready.wait_for(timeout=12_000)
            return
        except PlaywrightTimeout:
            continue
    ready.wait_for(timeout=30_000)


def settled(page: Page) -> None:
    """Wait until no script run is under way: a run that replaces a widget (the file input,
    a tab, a button) while it is used loses what was done to it (seen with the cores busy)."""
    running = page.locator("[data-testid='stStatusWidget']")
    page.wait_for_timeout(300)  # (the run the last action started shows its status first)
    running.wait_for(state="hidden", timeout=60_000)


def made_picture(page: Page, fmt: str) -> Locator:
    """Press "Make PNG" (or PDF) as a hand does, once no run is under way, and the "Download"
    button once Chromium has drawn the picture. The press is made again (twice at most) if the
    page shows neither the spinner nor the button: a press during a rerun's redraw is lost
    when the cores are busy (CI, stop 51). An error the panel shows fails at once, with it."""
    make = page.get_by_role("button", name=f"Make {fmt}")
    download = page.get_by_role("button", name=f"Download {fmt}")
    drawing = page.get_by_text("Chromium is drawing the map")
    panel = page.locator("[data-testid='stExpander']").filter(has=make)
    failed = panel.locator("[data-testid='stAlertContentError'], [data-testid='stException']")
    for _ in range(3):
        settled(page)
        make.scroll_into_view_if_needed(timeout=30_000)
        make.click()
        try:
            drawing.or_(download).or_(failed).first.wait_for(timeout=10_000)
        except PlaywrightTimeout:
            continue  # the press was lost: nothing started
        break
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if failed.count():
            raise AssertionError(f"the {fmt} was not made: {failed.first.inner_text()}")
        if download.is_visible():
            return download
        page.wait_for_timeout(250)
    raise AssertionError(f"no Download {fmt} button within 120 s of pressing Make {fmt}")


def workspace_of(folder: Path, scenario: Scenario) -> Workspace:
    """A workspace in `folder` holding `scenario`."""
    found = open_workspace(folder / "w.gpkg")
    found.save(scenario)
    return found


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A dashboard page of the default size (modules that need another size or the blocked
    requests define their own)."""
    with dashboard_page(browser, request) as opened:
        yield opened


def shipped_workspace_in(folder: Path) -> Path:
    """A workspace holding the shipped scenario, in `folder`."""
    from geo.settings import Settings

    path = folder / "workspace.gpkg"
    open_workspace(path).save(read_scenario(Settings.from_environment().default_scenario_dir))
    return path
