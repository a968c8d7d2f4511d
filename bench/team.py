"""A team writing at once (issue 22): WRITERS separate processes × EDITS edits each against one
workspace, PostGIS and then the GeoPackage, on this one machine.

Each writer updates its own convoy's `people` EDITS times (1, 2, … EDITS), each edit committed
with the read mark taken just before it (`geo.changes.read_mark`); every CLASH-th edit of each
writer goes to one convoy that all writers share, with a read mark taken before the writer's
previous edit, so that edits by others in between are conflicts. Prints, per store: the wall
time, edits per second, conflicts refused, and checks that every edit not refused is in the
change log and that each writer's convoy ends at EDITS — none lost, none half-written.

    .venv/bin/python bench/team.py [--writers 16] [--edits 50] [--postgis URL]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo import changes, synthetic
from geo.changes import Edit
from geo.errors import ConflictError
from geo.store import open_workspace

CLASH = 10
SHARED = 0
"""The convoy every writer edits now and then (the others' own convoys follow it)."""


def writer(location: str, number: int, edits: int, start: float, results: object) -> None:
    """One analyst: EDITS edits to its own convoy, every CLASH-th to the shared one instead."""
    workspace = open_workspace(location, lock_seconds=300)
    scenario_id = workspace.scenario_ids()[0]
    convoys = [c.id for c in workspace.load(scenario_id).convoys]
    mine, shared = convoys[number + 1], convoys[SHARED]
    while time.time() < start:
        time.sleep(0.005)
    done = refused = 0
    stale = changes.read_mark(workspace)
    for value in range(1, edits + 1):
        fresh = changes.read_mark(workspace)
        clash = value % CLASH == 0
        target, read = (shared, stale) if clash else (mine, fresh)
        people = f"{value}{number:02d}" if clash else str(value)  # (never a change to nothing)
        edit = Edit("update", "convoys", target, {"people": people})
        try:
            made = changes.commit(workspace, scenario_id, [edit], who=f"writer-{number}", read=read)
            done += len(made)
        except ConflictError:
            refused += 1
        stale = fresh
    results.put((number, done, refused))  # type: ignore[attr-defined]


def run(location: str, writers: int, edits: int) -> None:
    workspace = open_workspace(location)
    scenario = synthetic.generate(events=0, convoys=writers + 1, zones=1)
    workspace.save(scenario)
    spawn = multiprocessing.get_context("spawn")  # (a fork copies GDAL's and Arrow's threads
    results = spawn.Queue()  # in mid-lock: its children hung)
    start = time.time() + 8.0  # (every writer started and ready)
    processes = [
        spawn.Process(target=writer, args=(location, n, edits, start, results))
        for n in range(writers)
    ]
    for process in processes:
        process.start()
    counts = [results.get(timeout=1800) for _ in processes]
    for process in processes:
        process.join()
    seconds = time.time() - start
    done = sum(c[1] for c in counts)
    refused = sum(c[2] for c in counts)
    log = changes.history(workspace, scenario.id)
    final = {c.id: c for c in open_workspace(workspace.location).load(scenario.id).convoys}
    own = [final[scenario.convoys[n + 1].id].people for n in range(writers)]
    last = max(v for v in range(1, edits + 1) if v % CLASH)
    ends = sum(1 for count in own if count is not None and count.low == last)
    lost = done - len(log)
    rate = done / seconds
    print(f"  {writers} writers × {edits} edits in {seconds:.1f} s ({rate:.1f} edits/s); "
          f"{done} committed, {refused} refused as conflicts, {done + refused} in all")  # fmt: skip
    print(f"  change log: {len(log)} rows (lost: {lost}); own convoys at their last value: "
          f"{ends} of {writers}")  # fmt: skip
    assert done + refused == writers * edits
    assert lost == 0
    assert ends == writers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=16)
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--postgis", default="postgresql://postgres@127.0.0.1:5432/corridor_test")
    args = parser.parse_args()
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(args.postgis, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    try:
        print("PostGIS:")
        run(f"{args.postgis}?options={quote(f'-csearch_path={schema},public')}", args.writers,
            args.edits)  # fmt: skip
    finally:
        with psycopg.connect(args.postgis, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")
    with tempfile.TemporaryDirectory() as scratch:
        print("GeoPackage:")
        run(str(Path(scratch) / "workspace.gpkg"), args.writers, args.edits)


if __name__ == "__main__":
    main()
