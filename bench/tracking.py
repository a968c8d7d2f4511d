"""Time live tracking: 10,000 position reports (100 convoys × 100) turned into states.

The routes are the synthetic scenario's (geo.synthetic, 100 convoys); each convoy sends 100
reports from its departure, evenly spaced in time and along its route with about 20 m of GPS
noise, covering 20-100 % of the route. Prints the time of `track_states` at a moment after the
last report (every report seen): the first call, which also projects the routes to metres, and
later calls (median and worst of RUNS); then the same with windows wide enough that every
report is measured against its route; then the peak Python memory (tracemalloc) of a first
call, and the time to read the same reports from a CSV file.

Then a live feed at scale (MILLION reports, 1,000 convoys × 1,000): the memory the reports take
held as `Position` records and as a `PositionTable` (tracemalloc, what is still allocated),
`track_states` over all of them, a feed's `poll` that adds 1,000 new lines to a million held
reports, and the workspace's positions layer read back as a table.

    .venv/bin/python bench/tracking.py
"""

from __future__ import annotations

import csv
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
import shapely

from geo import synthetic, timeline
from geo.errors import ProblemLog
from geo.position_table import PositionTable
from geo.positions import Feed, read_positions
from geo.records import Scenario
from geo.store import add_positions, open_workspace, positions
from geo.tracking import Position, Rules, track_states

CONVOYS, REPORTS, RUNS = 100, 100, 7
NOISE_DEGREES = 0.0002  # about 20 m
EVERYTHING = Rules(stopped_minutes=1e6, speed_window_minutes=1e6)


def reports(scenario: Scenario, seed: int = 15) -> list[Position]:
    """REPORTS invented reports per convoy along its route, from its departure on."""
    rng = np.random.default_rng(seed)
    found = []
    for convoy in scenario.convoys:
        line = timeline.route_of(scenario, convoy.id)
        assert line is not None
        assert convoy.depart is not None
        assert convoy.arrive is not None
        reach = rng.uniform(0.2, 1.0)
        shares = np.linspace(0.0, reach, REPORTS)
        xy = shapely.get_coordinates(shapely.line_interpolate_point(line, shares, normalized=True))
        xy += rng.normal(0, NOISE_DEGREES, xy.shape)
        step = (convoy.arrive - convoy.depart) / (REPORTS - 1)
        found += [
            Position(convoy.id, convoy.depart + step * i, float(lat), float(lon))
            for i, (lon, lat) in enumerate(xy)
        ]
    return found


def timed(scenario: Scenario, positions: list[Position], rules: Rules) -> tuple[float, ...]:
    """Seconds of a first call, then the median and worst of RUNS more."""
    at = scenario.end + timedelta(days=1)
    start = time.perf_counter()
    track_states(scenario, positions, at, rules=rules)
    first = time.perf_counter() - start
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        track_states(scenario, positions, at, rules=rules)
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), max(times)


def main() -> None:
    scenario = synthetic.generate(events=0, convoys=CONVOYS)
    positions = reports(scenario)
    at = scenario.end + timedelta(days=1)
    states = track_states(scenario, positions, at)
    counts = Counter(state.state for state in states.values())
    print(f"{len(positions):,} reports from {len(scenario.convoys)} convoys; states: "
          + ", ".join(f"{count} {name}" for name, count in counts.most_common()))  # fmt: skip
    print(f"{'rules':<44} {'first call':>11} {'median':>9} {'worst':>9}")
    for label, rules in (("default (windows of 20 and 30 min)", Rules()),
                         ("every report measured against its route", EVERYTHING)):  # fmt: skip
        fresh = synthetic.generate(events=0, convoys=CONVOYS)  # routes not yet in metres
        first, median, worst = timed(fresh, positions, rules)
        print(
            f"{label:<44} {first * 1000:>8.0f} ms {median * 1000:>6.0f} ms {worst * 1000:>6.0f} ms"
        )
    fresh = synthetic.generate(events=0, convoys=CONVOYS)
    tracemalloc.start()
    track_states(fresh, positions, at, rules=EVERYTHING)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    print(f"peak Python memory of a first call (every report measured): {peak:.1f} MB")
    print(f"reading the {len(positions):,} reports from a CSV file: {read_csv(positions):.0f} ms")
    at_scale()


MILLION = 1_000_000


def at_scale() -> None:
    """A million reports: held as records and as columns; states, a poll, a workspace read."""
    scenario = synthetic.generate(events=0, convoys=1_000)
    per_convoy = MILLION // len(scenario.convoys)
    tracemalloc.start()
    records = many_reports(scenario, per_convoy)
    as_records = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    tracemalloc.start()
    table = PositionTable.of(records)
    del records
    as_table = tracemalloc.get_traced_memory()[0] / 1e6
    tracemalloc.stop()
    print(f"{len(table):,} reports held as records: {as_records:.0f} MB; "
          f"as a PositionTable: {as_table:.0f} MB")  # fmt: skip
    at = scenario.end + timedelta(days=1)
    start = time.perf_counter()
    track_states(scenario, table, at)
    first = time.perf_counter() - start
    start = time.perf_counter()
    track_states(scenario, table, at)
    again = time.perf_counter() - start
    print(f"track_states over them: first call {first:.2f} s (routes made metric), "
          f"next {again:.2f} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "live.csv"
        path.write_text("convoy,time,latitude,longitude\n", encoding="utf-8")
        start = time.perf_counter()
        feed = Feed(path, scenario.id, table)
        made = time.perf_counter() - start
        last = table[len(table) - 1]
        with path.open("a", encoding="utf-8") as handle:
            for i in range(1_000):
                moment = (last.time + timedelta(seconds=i + 1)).isoformat()
                handle.write(f"{last.convoy},{moment},{last.latitude},{last.longitude}\n")
        start = time.perf_counter()
        fresh = feed.poll(ProblemLog())
        polled = time.perf_counter() - start
        assert len(fresh) == 1_000
        assert len(feed.reports) == len(table) + 1_000
        print(f"a feed made on them: {made:.2f} s; a poll adding 1,000 new lines: "
              f"{polled * 1000:.0f} ms")  # fmt: skip
        workspace = open_workspace(Path(scratch) / "workspace.gpkg")
        workspace.save(scenario)
        start = time.perf_counter()
        add_positions(workspace, scenario.id, table)
        written = time.perf_counter() - start
        start = time.perf_counter()
        back = positions(workspace, scenario.id)
        read = time.perf_counter() - start
        assert len(back) == len(table)
        print(f"the workspace's positions layer: {written:.1f} s to write them, "
              f"{read:.1f} s to read them back as a table")  # fmt: skip


def many_reports(scenario: Scenario, per_convoy: int) -> list[Position]:
    """`per_convoy` reports of each convoy along its route, a minute apart, no noise."""
    found = []
    for convoy in scenario.convoys:
        line = timeline.route_of(scenario, convoy.id)
        assert line is not None
        assert convoy.depart is not None
        shares = np.linspace(0.0, 1.0, per_convoy)
        xy = shapely.get_coordinates(shapely.line_interpolate_point(line, shares, normalized=True))
        found += [
            Position(convoy.id, convoy.depart + timedelta(minutes=i), float(lat), float(lon))
            for i, (lon, lat) in enumerate(xy.tolist())
        ]
    return found


def read_csv(positions: list[Position]) -> float:
    """Milliseconds to read the reports back from a CSV file with read_positions."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "reports.csv"
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["convoy", "time", "latitude", "longitude"])
            writer.writerows(
                (p.convoy, p.time.isoformat(), f"{p.latitude:.6f}", f"{p.longitude:.6f}")
                for p in positions
            )
        log = ProblemLog()
        start = time.perf_counter()
        found = read_positions(path, log=log)
        seconds = time.perf_counter() - start
    assert len(found) == len(positions)
    assert not list(log)
    return seconds * 1000


if __name__ == "__main__":
    main()
