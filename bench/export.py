"""Snapshot speed and size: PNG (cold and warm browser), HTML, PDF and data; prints a table.

`python bench/export.py [SCENARIO_FOLDER [MOMENT]]`: the shipped scenario at 13:00Z by default;
tests/data/scenarios/azov 2022-05-01T12:00Z measures a map on the world base.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo import export
from geo.mapview import MapView
from geo.scenario import read_scenario
from geo.settings import Settings

RUNS = 7
AT = datetime.fromisoformat("2016-12-15T13:00+00:00")


def timed(action: Callable[[], bytes]) -> tuple[float, int]:
    start = time.perf_counter()
    body = action()
    return time.perf_counter() - start, len(body)


def median(action: Callable[[], bytes]) -> tuple[float, int]:
    results = [timed(action) for _ in range(RUNS)]
    return statistics.median(seconds for seconds, _ in results), results[-1][1]


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else Settings.from_environment().default_scenario_dir
    at = datetime.fromisoformat(sys.argv[2]) if len(sys.argv) > 2 else AT
    scenario = read_scenario(folder)
    snapshot = export.Snapshot(scenario, MapView(at=at), width=1600, height=1000)
    cold, png_size = timed(lambda: export.render(snapshot, "png"))
    rows = [("PNG 1600×1000, cold browser (start Chromium)", cold, png_size)]
    for fmt, label in (
        ("png", "PNG 1600×1000, warm browser"),
        ("html", "HTML, self-contained"),
        ("pdf", "PDF, A4 landscape"),
        ("geojson", "GeoJSON of what is shown"),
        ("gpkg", "GeoPackage of what is shown"),
        ("csv", "CSV zip of convoys and figures"),
    ):
        seconds, size = median(lambda fmt=fmt: export.render(snapshot, fmt))
        rows.append((label, seconds, size))
    hi_dpi = export.Snapshot(scenario, MapView(at=at), width=1600, height=1000, scale=3.125)
    seconds, size = median(lambda: export.render(hi_dpi, "png"))
    rows.append(("PNG 1600×1000 at 300 dpi (scale 3.125), warm", seconds, size))
    width = max(len(label) for label, _, _ in rows)
    print(f"{scenario.id} at {at:%Y-%m-%d %H:%M}Z; median of {RUNS} runs (cold: one run)")
    print(f"{'snapshot':<{width}}  {'seconds':>8}  {'bytes':>11}")
    for label, seconds, size in rows:
        print(f"{label:<{width}}  {seconds:>8.2f}  {size:>11,}")
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {own:.0f} MB (this process; Chromium's own processes are not counted)")


if __name__ == "__main__":
    main()
