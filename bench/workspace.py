"""Time the scenario folder and workspace paths on the shipped scenario; prints a table."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo.scenario import read_scenario, write_scenario
from geo.settings import Settings
from geo.workspace import Workspace

RUNS = 15


def measure(action: Callable[[], object]) -> tuple[float, float]:
    """Median and worst wall time in milliseconds over RUNS runs, after one warm-up run."""
    action()
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    folder = Settings.from_environment().default_scenario_dir
    scenario = read_scenario(folder)
    with tempfile.TemporaryDirectory() as scratch:
        workspace = Workspace(Path(scratch) / "workspace.gpkg")
        workspace.save(scenario)
        steps: dict[str, Callable[[], object]] = {
            "read + validate folder": lambda: read_scenario(folder),
            "save to workspace": lambda: workspace.save(scenario),
            "load from workspace": lambda: workspace.load(scenario.id),
            "write folder": lambda: write_scenario(scenario, Path(scratch) / "dump"),
        }
        print(
            f"shipped scenario {scenario.id}: {len(scenario.places)} places, "
            f"{len(scenario.convoys)} convoys, {len(scenario.routes)} routes, "
            f"{len(scenario.zones)} zones; {RUNS} runs each"
        )
        print(f"{'step':<24} {'median ms':>10} {'max ms':>10}")
        for name, action in steps.items():
            median, worst = measure(action)
            print(f"{name:<24} {median:>10.1f} {worst:>10.1f}")
        tracemalloc.start()
        workspace.load(scenario.id)
        peak = tracemalloc.get_traced_memory()[1]
        print(f"peak Python memory of one load: {peak / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
