"""Dashboard speed: server-side rerun for a layer toggle and a time step, and page load to map.

.venv/bin/python bench/dashboard.py                                   # the shipped scenario
.venv/bin/python bench/dashboard.py --events 100000 --convoys 10000   # a synthetic one
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import streamlit.testing.v1.app_test as app_test_module  # noqa: E402
import streamlit.testing.v1.local_script_runner as script_runner_module  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from streamlit.runtime.scriptrunner.script_cache import ScriptCache  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

from geo.chromium import LAUNCH_ARGS, find_chromium  # noqa: E402
from geo.mapview import MapView, build_map  # noqa: E402
from geo.records import Scenario  # noqa: E402
from geo.scenario import read_scenario  # noqa: E402
from geo.settings import Settings  # noqa: E402
from geo.store import open_workspace  # noqa: E402
from geo.synthetic import generate  # noqa: E402
from geo.timeline import opening_step  # noqa: E402

RUNS = 15
PAGE_LOADS = 11


def median_ms(action: Callable[[], object], runs: int = RUNS) -> float:
    action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def server_side(workspace: Path, scenario: Scenario) -> list[tuple[str, str]]:
    os.environ["CORRIDOR_WORKSPACE"] = str(workspace)
    start = time.perf_counter()
    app = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=600).run()
    first = time.perf_counter() - start
    box = "layer:zones-government"
    toggles = iter([False, True] * (RUNS + 1))

    def toggle() -> None:
        app.checkbox(key=box).set_value(next(toggles)).run()

    moment = opening_step(scenario)
    moments = iter(moment + timedelta(minutes=15 * i) for i in range(1, 10_000))

    def step() -> None:
        app.select_slider(key="at").set_value(next(moments)).run()

    view = MapView(at=moment)
    later = MapView(at=moment + timedelta(minutes=15))
    rows = [
        ("first run (loads the workspace)", f"{first:.2f} s"),
        ("build + render the map (engine)", f"{median_ms(lambda: _render(scenario, view)):.0f} ms"),
        ("  the same, 15 minutes later", f"{median_ms(lambda: _render(scenario, later)):.0f} ms"),
        ("script rerun: layer toggle (AppTest)", f"{median_ms(toggle):.0f} ms"),
        ("script rerun: time step (AppTest)", f"{median_ms(step):.0f} ms"),
    ]  # fmt: skip
    compile_once()
    rows.append(
        ("  layer toggle, script compiled once (as the server)", f"{median_ms(toggle):.0f} ms")
    )
    rows.append(("  time step, script compiled once (as the server)", f"{median_ms(step):.0f} ms"))
    return rows


def compile_once() -> None:
    """AppTest compiles the script afresh on every run, twice (two new ScriptCaches a run:
    23 ms each for dashboard.py); the server keeps one cache, so it compiles the script once.
    From here on AppTest shares one cache too, so a rerun costs what it costs the server."""
    shared = ScriptCache()
    app_test_module.ScriptCache = lambda: shared  # type: ignore[attr-defined,assignment]
    script_runner_module.ScriptCache = lambda: shared  # type: ignore[attr-defined,assignment]


def _render(scenario: object, view: MapView) -> str:
    return str(build_map(scenario, view).get_root().render())  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def page_load(workspace: Path) -> list[tuple[str, str]]:
    port = free_port()
    environment = {**os.environ, "CORRIDOR_WORKSPACE": str(workspace)}
    command = [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboard.py"),
               "--server.port", str(port), "--server.headless", "true"]  # fmt: skip
    server = subprocess.Popen(command, cwd=ROOT, env=environment,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(url)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=find_chromium(), args=list(LAUNCH_ARGS)
            )
            first = [_load_once(browser, url) for _ in range(PAGE_LOADS + 1)][1:]
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.add_init_script(DRAWN_CLOCK)
            returning = [_load_in(context, url) for _ in range(PAGE_LOADS + 1)][1:]
            context.close()
            browser.close()
        server_peak = _peak_megabytes(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=20)
    drawn, seen = zip(*first, strict=True)
    return [
        (f"page load to a drawn map (page's clock), median of {PAGE_LOADS}",
         f"{statistics.median(drawn):.2f} s (slowest {max(drawn):.2f} s)"),
        ("  the same, as Playwright sees it", f"{statistics.median(seen):.2f} s"),
        ("  returning visitor (browser cache warm), page's clock",
         f"{statistics.median(d for d, _ in returning):.2f} s"),
        ("dashboard server's peak memory (RSS), after those page loads",
         f"{server_peak:.0f} MB"),
    ]  # fmt: skip


def _peak_megabytes(pid: int) -> float:
    """A process's peak resident memory (Linux: VmHWM in /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


DRAWN_CLOCK = """
(function() {
    var selector = '.leaflet-container[data-corridor-view] path.leaflet-interactive, '
        + '.leaflet-container[data-corridor-view][data-corridor-events]';
    var timer = setInterval(function() {
        if (!document.querySelector(selector)) { return; }
        clearInterval(timer);
        requestAnimationFrame(function() {  // this frame paints the map; the next one
            requestAnimationFrame(function() {  // starts only once it has been painted
                window.corridorDrawnAt = performance.timeOrigin + performance.now();
            });
        });
    }, 10);
})();
"""
"""Run in every frame: when the map's shapes are in the page and it has taken its first view
(data-corridor-view: the story framed, or the view kept), the frame after the one that
painted them.

Playwright's own look at the page waits for the page's main thread, which is busy with the
rest of the dashboard by then; the page's clock says when the map itself was drawn.
"""


def _load_once(browser: object, url: str) -> tuple[float, float]:
    """A first visit: a fresh browser context, nothing cached."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    context.add_init_script(DRAWN_CLOCK)
    times = _load_in(context, url)
    context.close()
    return times


def _load_in(context: object, url: str) -> tuple[float, float]:
    """Seconds from navigation to the map drawn, by the page's clock and as Playwright saw it."""
    page = context.new_page()  # type: ignore[attr-defined]
    start = time.perf_counter()
    page.goto(url)
    locator = page.frame_locator("iframe[title='streamlit_folium.st_folium']")
    locator.locator(
        ".leaflet-container[data-corridor-view] path.leaflet-interactive, "
        ".leaflet-container[data-corridor-view][data-corridor-events]"
    ).first.wait_for(timeout=120_000)
    seen = time.perf_counter() - start
    frame = next(frame for frame in page.frames if "st_folium" in frame.url)
    frame.wait_for_function("window.corridorDrawnAt !== undefined", timeout=120_000)
    drawn_at = frame.evaluate("window.corridorDrawnAt") - page.evaluate("performance.timeOrigin")
    page.close()
    return drawn_at / 1000, seen


def _wait(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.25)
    raise TimeoutError(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, help="a synthetic scenario of this many events")
    parser.add_argument("--convoys", type=int, default=10_000, help="…and convoys (routes)")
    args = parser.parse_args()
    if args.events is None:
        scenario = read_scenario(Settings.from_environment().default_scenario_dir)
        label = "shipped scenario"
    else:
        scenario = generate(events=args.events, convoys=args.convoys)
        label = f"synthetic scenario, {args.events:,} events and {args.convoys:,} convoys"
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Path(scratch) / "workspace.gpkg"
        open_workspace(workspace).save(scenario)
        rows = server_side(workspace, scenario) + page_load(workspace)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rows.append(("peak memory of this benchmark's process (RSS; it made the scenario)",
                 f"{peak:.0f} MB"))  # fmt: skip
    width = max(len(label) for label, _ in rows)
    print(f"{label}, {RUNS} runs per server-side figure (median)")
    for label, value in rows:
        print(f"{label:<{width}}  {value}")


if __name__ == "__main__":
    main()
