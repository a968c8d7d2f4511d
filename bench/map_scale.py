"""Map scale: Corridor against plain folium for many events and routes; prints a table.

For each size: Python build + render time and peak Python memory, HTML size, and time until
the page is drawn in headless Chromium (load, the map's own ready mark, two frames) with the
page's JavaScript heap. Plain folium gets one Marker per event and one PolyLine per route,
with Leaflet inlined too (no CDN here) and no tiles, like Corridor's offline map.

    .venv/bin/python bench/map_scale.py            # every size, plain folium capped at 120 s
    .venv/bin/python bench/map_scale.py --quick    # no plain folium above 10,000 events
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import folium
from playwright.sync_api import Browser, sync_playwright

from geo import export, mapview, synthetic
from geo.chromium import LAUNCH_ARGS, find_chromium
from geo.mapview import assets
from geo.records import Scenario

SIZES = [(1_000, 1_000), (10_000, 1_000), (100_000, 1_000), (1_000, 10_000), (10_000, 10_000),
         (100_000, 10_000)]  # fmt: skip
BROWSER_CAP_S = 120.0
TWO_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
CORRIDOR_READY = "document.querySelector('.leaflet-container[data-corridor-events]') !== null"


def corridor_html(scenario: Scenario) -> str:
    view = mapview.MapView(at=scenario.start + timedelta(days=15), event_days=None)
    return str(mapview.build_map(scenario, view).get_root().render())


def folium_html(scenario: Scenario) -> str:
    m = folium.Map(location=[35.0, 38.5], zoom_start=7, tiles=None)
    for event in scenario.events:
        folium.Marker([event.latitude, event.longitude], tooltip=event.event_type).add_to(m)
    for route in scenario.routes:
        points = [(lat, lon) for lon, lat in route.geometry.coords]
        folium.PolyLine(points, tooltip=route.convoy).add_to(m)
    assets.make_tree_offline(m)  # Leaflet inlined: the machine has no CDN
    return str(m.get_root().render())


def built(make: Any, scenario: Scenario, runs: int) -> tuple[str, float, float]:
    """The page, the median build + render time of `runs`, and the peak Python memory.

    Memory is traced in a run of its own: tracemalloc slows every allocation it watches.
    """
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        html = make(scenario)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    make(scenario)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return html, statistics.median(times), peak


def drawn(browser: Browser, html: str, ready: str, folder: Path) -> tuple[str, str]:
    """Seconds from navigation to a drawn page, and the JS heap, or a note when capped."""
    path = folder / "page.html"
    path.write_text(html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(("file:", "data:"))
               else r.abort())  # fmt: skip
    try:
        start = time.perf_counter()
        page.goto(path.as_uri(), wait_until="load", timeout=BROWSER_CAP_S * 1000)
        page.wait_for_function(ready, timeout=BROWSER_CAP_S * 1000)
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
        )
        seconds = time.perf_counter() - start
        heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0") / 1e6
        return f"{seconds:.2f} s", f"{heap:.0f} MB"
    except Exception:  # noqa: BLE001 - a timeout of any kind is the finding
        return f"> {BROWSER_CAP_S:.0f} s (not drawn)", "-"
    finally:
        page.close()


def png_seconds(scenario: Scenario, runs: int = 7) -> list[float]:
    """Seconds for each of `runs` PNGs of the scenario, after one that warms the browser up."""
    view = mapview.MapView(at=scenario.start + timedelta(days=15), event_days=None)
    snapshot = export.Snapshot(scenario, view)
    export.render(snapshot, "png")  # a warm browser, as in the dashboard
    found = []
    for _ in range(runs):
        start = time.perf_counter()
        export.render(snapshot, "png")
        found.append(time.perf_counter() - start)
    return found


def png_line(label: str, seconds: list[float]) -> str:
    low, high = min(seconds), max(seconds)
    return f"{label}: median {statistics.median(seconds):.2f} s ({low:.2f}–{high:.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="no plain folium above 10,000")
    args = parser.parse_args()
    rows = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as scratch:
        browser = playwright.chromium.launch(
            executable_path=find_chromium(), headless=True, args=list(LAUNCH_ARGS)
        )
        for events, routes in SIZES:
            scenario = synthetic.generate(events=events, convoys=routes)
            start = time.perf_counter()
            corridor_html(scenario)  # columns and simplified lines made once per scenario
            first = time.perf_counter() - start
            html, seconds, peak = built(corridor_html, scenario, runs=3)
            shown, heap = drawn(browser, html, CORRIDOR_READY, Path(scratch))
            corridor = (seconds, len(html) / 1e6, shown, peak, heap, first)
            if args.quick and events > 10_000:
                plain: tuple[Any, ...] = ("skipped",) * 6
            else:
                html, seconds, peak = built(folium_html, scenario, runs=1)
                shown, heap = drawn(browser, html, "true", Path(scratch))
                plain = (seconds, len(html) / 1e6, shown, peak, heap, seconds)
            rows.append((events, routes, corridor, plain))
            print(f"done {events:,} events, {routes:,} routes", file=sys.stderr, flush=True)
        browser.close()
    print("| events | routes | who | first build | build+render | HTML | drawn in Chromium |"
          " Python peak | JS heap |")  # fmt: skip
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for events, routes, corridor, plain in rows:
        for who, figures in (("Corridor", corridor), ("folium", plain)):
            seconds, size, shown, peak, heap, first = figures
            if seconds == "skipped":
                print(f"| {events:,} | {routes:,} | {who} | skipped | | | | | |")
                continue
            print(f"| {events:,} | {routes:,} | {who} | {first:.2f} s | {seconds:.2f} s | "
                  f"{size:.1f} MB | {shown} | {peak:.0f} MB | {heap} |")  # fmt: skip
    small = synthetic.generate(events=1_000, convoys=100)
    large = synthetic.generate(events=100_000, convoys=10_000)
    gc.collect()
    gc.freeze()  # as the dashboard does with a loaded scenario (dashboard.settled)
    print("\nPNG 1600×1000, warm browser, 7 runs each:")
    print(png_line("- 1,000 events and 100 routes", png_seconds(small)))
    print(png_line("- 100,000 events and 10,000 routes", png_seconds(large)))
    export.browser().close()


if __name__ == "__main__":
    main()
