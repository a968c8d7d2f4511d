"""Where a PNG's time goes, small scenario against large; prints a table.

Each picture is split into its phases: Python builds the page (`export.page_html`), Chromium
loads it (the page's own scripts draw the map while it loads), the map reports ready (two
frames after load), and the screenshot is taken. The large scenario is also drawn with its
routes, events or convoy dots switched off, which shows what each of those layers costs.

    .venv/bin/python bench/png_phases.py            # 9 runs of each picture, interleaved
    .venv/bin/python bench/png_phases.py --runs 21
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import Page, sync_playwright

from geo import export, mapview, synthetic
from geo.chromium import LAUNCH_ARGS, find_chromium
from geo.records import Scenario

READY = "window.corridorReady === true"
PHASES = ("Python page", "load", "ready", "capture", "total")


def snapshot(scenario: Scenario, *, without: str | None = None) -> export.Snapshot:
    view = mapview.MapView(at=scenario.start + timedelta(days=15), event_days=None)
    if without is not None:
        view = replace(view, layers=view.layers - {without})
    return export.Snapshot(scenario, view)


def seconds(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def browser_phases(page: Page, address: str) -> tuple[float, float, float]:
    """Seconds to load the page, then until it reports ready, then to take the PNG."""
    load = seconds(lambda: page.goto(address, wait_until="load"))
    ready = seconds(lambda: page.wait_for_function(READY))
    capture = seconds(lambda: page.screenshot(type="png"))  # as geo.pictures.Browser takes PNGs
    page.goto("about:blank")
    return load, ready, capture


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=9, help="pictures of each kind (median)")
    args = parser.parse_args()
    small = synthetic.generate(events=1_000, convoys=100)
    large = synthetic.generate(events=100_000, convoys=10_000)
    pictures = {
        "1,000 events, 100 routes": snapshot(small),
        "100,000 events, 10,000 routes": snapshot(large),
        "  the same, routes off": snapshot(large, without="routes"),
        "  the same, events off": snapshot(large, without="events"),
        "  the same, convoy dots off": snapshot(large, without="convoys"),
    }
    for shot in pictures.values():
        export.page_html(shot, still=True)  # per-scenario columns and packed legs made once
    gc.collect()
    gc.freeze()  # as the dashboard does with a loaded scenario (dashboard.settled)
    found: dict[str, list[tuple[float, ...]]] = {label: [] for label in pictures}
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as scratch:
        chromium = playwright.chromium.launch(
            executable_path=find_chromium(), headless=True, args=list(LAUNCH_ARGS)
        )
        page = chromium.new_context().new_page()
        page.set_viewport_size({"width": 1600, "height": 1000})
        for run in range(args.runs + 2):  # the first two rounds warm the browser up
            for number, (label, shot) in enumerate(pictures.items()):
                start = time.perf_counter()
                html = export.page_html(shot, still=True)
                built = time.perf_counter() - start
                page_file = Path(scratch) / f"picture-{number}.html"
                page_file.write_text(html, encoding="utf-8")
                load, ready, capture = browser_phases(page, page_file.as_uri())
                if run >= 2:
                    found[label].append(
                        (built, load, ready, capture, built + load + ready + capture)
                    )
        chromium.close()
    print(f"PNG 1600×1000 at scale 1, warm browser: median of {args.runs} runs, in ms")
    print("| picture | " + " | ".join(PHASES) + " |")
    print("|---|" + "---:|" * len(PHASES))
    for label, rows in found.items():
        medians = [statistics.median(column) * 1000 for column in zip(*rows, strict=True)]
        print(f"| {label} | " + " | ".join(f"{value:.0f}" for value in medians) + " |")
    small_total = statistics.median(row[-1] for row in found["1,000 events, 100 routes"])
    large_total = statistics.median(row[-1] for row in found["100,000 events, 10,000 routes"])
    print(f"\nlarge ÷ small: {large_total / small_total:.2f}")


if __name__ == "__main__":
    main()
