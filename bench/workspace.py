"""Time the scenario folder and workspace paths on the shipped scenario; prints a table.

.venv/bin/python bench/workspace.py                  # the GeoPackage workspace
.venv/bin/python bench/workspace.py --postgis URL    # also a PostGIS one (a schema made and
                                                     # dropped in URL's database), its reads with
                                                     # connections kept and with a login each
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo.scenario import read_scenario, write_scenario
from geo.settings import Settings
from geo.store import Workspace, _idle_connections, open_workspace
from geo.store import base as loaded

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
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--postgis", help="a PostgreSQL URL whose database has PostGIS")
    args = parser.parse_args()
    folder = Settings.from_environment().default_scenario_dir
    scenario = read_scenario(folder)
    print(
        f"shipped scenario {scenario.id}: {len(scenario.places)} places, "
        f"{len(scenario.convoys)} convoys, {len(scenario.routes)} routes, "
        f"{len(scenario.zones)} zones; {RUNS} runs each"
    )
    with tempfile.TemporaryDirectory() as scratch:
        workspace = open_workspace(Path(scratch) / "workspace.gpkg")
        workspace.save(scenario)
        steps: dict[str, Callable[[], object]] = {
            "read + validate folder": lambda: read_scenario(folder),
            "save to workspace": lambda: workspace.save(scenario),
            "load (remembered)": lambda: workspace.load(scenario.id),
            "load (read again)": lambda: forgotten(workspace, scenario.id),
            "write folder": lambda: write_scenario(scenario, Path(scratch) / "dump"),
        }
        print(f"{'GeoPackage step':<28} {'median ms':>10} {'max ms':>10}")
        for name, action in steps.items():
            median, worst = measure(action)
            print(f"{name:<28} {median:>10.1f} {worst:>10.1f}")
        tracemalloc.start()
        forgotten(workspace, scenario.id)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"peak Python memory of one load: {peak / 1e6:.1f} MB")
    if args.postgis:
        with postgis_schema(args.postgis) as url:
            measure_postgis(open_workspace(url), scenario.id)


def measure_postgis(workspace: Workspace, scenario_id: str) -> None:
    """The reads a dashboard rerun makes, with connections kept and with a new login each."""
    workspace.save(read_scenario(Settings.from_environment().default_scenario_dir))
    steps: dict[str, Callable[[], object]] = {
        "version (each rerun)": workspace.version,
        "scenario ids": workspace.scenario_ids,
        "load (remembered)": lambda: workspace.load(scenario_id),
        "load (read again)": lambda: forgotten(workspace, scenario_id),
    }
    print(f"{'PostGIS step':<28} {'kept ms':>10} {'new login ms':>13} (medians)")
    kept = _idle_connections.MOST_KEPT
    for name, action in steps.items():
        with_kept = measure(action)[0]
        _idle_connections.MOST_KEPT = 0
        _idle_connections.forget()
        each_new = measure(action)[0]
        _idle_connections.MOST_KEPT = kept
        print(f"{name:<28} {with_kept:>10.2f} {each_new:>13.2f}")


def forgotten(workspace: Workspace, scenario_id: str) -> object:
    """A load that reads the database (as after another analyst's write), not the scenario
    remembered for the workspace's version."""
    loaded._LOADED.clear()
    return workspace.load(scenario_id)


@contextlib.contextmanager
def postgis_schema(database: str) -> Iterator[str]:
    """A schema of its own in `database`, as a workspace URL; dropped after."""
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(database, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {name}")
    separator = "&" if "?" in database else "?"
    try:
        yield f"{database}{separator}options=-csearch_path%3D{name},public"
    finally:
        _idle_connections.forget()
        with psycopg.connect(database, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {name} CASCADE")


if __name__ == "__main__":
    main()
