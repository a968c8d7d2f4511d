"""The dashboard as a person sees it: `streamlit run` on localhost, in the system Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, Route, sync_playwright

from geo.chromium import LAUNCH_ARGS, find_chromium
from geo.scenario import read_scenario
from geo.settings import Settings
from geo.workspace import Workspace

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "artifacts"
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", ""}


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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workspace = tmp_path_factory.mktemp("browser") / "workspace.gpkg"
    Workspace(workspace).save(read_scenario(Settings.from_environment().default_scenario_dir))
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(ROOT / "dashboard.py"),
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
    ]
    environment = {**os.environ, "CORRIDOR_WORKSPACE": str(workspace)}
    process = subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=find_chromium(), headless=True, args=list(LAUNCH_ARGS)
        )
        yield chromium
        chromium.close()


@pytest.fixture
def blocked() -> list[str]:
    """The requests the page tried to send off this machine."""
    return []


@pytest.fixture
def page(browser: Browser, blocked: list[str]) -> Iterator[Page]:
    """A page that may only reach this machine: every other request is aborted and recorded."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})

    def only_local(route: Route) -> None:
        if urlparse(route.request.url).hostname in LOCAL_HOSTS or route.request.url.startswith(
            ("data:", "blob:")
        ):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    yield context.new_page()
    context.close()


def test_dashboard_renders_the_scenario_offline(
    server: str, page: Page, blocked: list[str]
) -> None:
    page.goto(server, wait_until="domcontentloaded")
    heading = page.get_by_role("heading", name="East Aleppo evacuation, 15 December 2016")
    heading.wait_for(timeout=30_000)
    page.get_by_text("Disclaimer:").wait_for(timeout=30_000)
    first_convoy = page.locator("td[role='gridcell']", has_text="First convoy: ambulances")
    first_convoy.first.wait_for(state="attached", timeout=30_000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard.png"), full_page=True)
    assert page.get_by_role("tab", name="Convoys").is_visible()
    assert page.locator("[data-testid='stException']").count() == 0
    assert blocked == []
