#!/usr/bin/env python3
"""Make the README's pictures: the dashboard as a new user first sees it (in English and in
Arabic), and a PNG export.

    .venv/bin/python scripts/readme_images.py

Both show the shipped scenario at the moment the dashboard opens on (15 December 2016,
13:00 UTC): the dashboard in a 1440x900 window of the system Chromium, a laptop's screen (a
`streamlit run` of this tree on a free local port, with a workspace made from the shipped
scenario), its whole map above the fold, and the export at 1600x1000 as `python -m geo export
--format png` makes it. Run it after a change to what the dashboard or an export looks like,
look at the images, and commit them.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from geo import export, timeline  # noqa: E402
from geo.chromium import LAUNCH_ARGS, find_chromium  # noqa: E402
from geo.mapview import MapView  # noqa: E402
from geo.scenario import read_scenario  # noqa: E402
from geo.settings import Settings  # noqa: E402
from geo.store import open_workspace  # noqa: E402

IMAGES = ROOT / "docs" / "images"
WINDOW = {"width": 1440, "height": 900}
MAP_FRAME = "iframe[title='streamlit_folium.st_folium']"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(f"streamlit did not answer at {url}")


def dashboard(target: Path, language: str = "en") -> None:
    """The dashboard's first screen once its map has framed the story and reported back; the
    whole map must be inside the window."""
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch) / "workspace.gpkg"
        open_workspace(workspace).save(
            read_scenario(Settings.from_environment().default_scenario_dir)
        )
        port = free_port()
        command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard.py"),
                   "--server.port", str(port), "--server.headless", "true",
                   "--browser.gatherUsageStats", "false"]  # fmt: skip
        environment = {**os.environ, "CORRIDOR_WORKSPACE": str(workspace)}
        server = subprocess.Popen(command, cwd=ROOT, env=environment,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(url)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=find_chromium(), args=list(LAUNCH_ARGS)
                )
                page = browser.new_page(viewport=WINDOW)
                page.goto(f"{url}/?lang={language}")
                frame = page.frame_locator(MAP_FRAME)
                frame.locator(".leaflet-container[data-corridor-view]").wait_for(timeout=60_000)
                page.wait_for_function("new URL(location).searchParams.has('center')")
                page.wait_for_timeout(1_000)  # the under-way route's dashes are animated
                box = page.locator(MAP_FRAME).bounding_box()
                if box is None or box["y"] + box["height"] > WINDOW["height"]:
                    raise AssertionError(f"the map is not whole above the fold: {box}")
                page.screenshot(path=str(target))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)


def exported(target: Path) -> None:
    """The PNG `python -m geo export` makes of the opening moment, at its default size."""
    scenario = read_scenario(Settings.from_environment().default_scenario_dir)
    snapshot = export.Snapshot(scenario, MapView(at=timeline.opening_step(scenario)))
    export.export(snapshot, "png", target)


def main() -> int:
    IMAGES.mkdir(parents=True, exist_ok=True)

    def arabic(target: Path) -> None:
        dashboard(target, "ar")

    for name, make in (("dashboard.png", dashboard), ("dashboard-ar.png", arabic),
                       ("export.png", exported)):  # fmt: skip
        target = IMAGES / name
        make(target)
        print(f"{target.relative_to(ROOT)}: {target.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
