"""Where a million events should live (issue 20): the workspace GeoPackage (R-tree and a date
index) against GeoParquet read by DuckDB, for what the map asks: one time window in one area.

Writes N invented events over five years of Syria in both stores (the GeoPackage is a
workspace holding them as one scenario, written by `Workspace.save`), then times the queries
the dashboard and exports make (`geo.store.windows.rows_in` for the workspace): a week over the
whole country, a month around Aleppo, a day at the zoom of a city,
each returning the columns the map draws. Prints write times, file sizes and query medians
(of `--repeat` runs; PostGIS on a connection kept between them, as the dashboard's);
`--rows 1000000` sets N.

DuckDB is not a Corridor requirement: this script says so and skips it when it is missing
(`pip install duckdb` to compare).

Then the same scenario in a PostGIS workspace (issue 22: `--postgis URL`, a database with
PostGIS; by default the tests' `postgresql://postgres@127.0.0.1:5432/corridor_test`), in a
schema of its own dropped after: written by `open_workspace(url).save`, and the same queries
through `geo.store.windows.rows_in` (GiST index on the points, (scenario, date) index).
"""

from __future__ import annotations

import argparse
import functools
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo import synthetic
from geo.event_table import EventTable
from geo.records import Source
from geo.store import open_workspace, windows
from geo.store.windows import Extent

FIRST_DAY = date(2012, 1, 1)
DAYS = 5 * 365
TYPES = ("Battles", "Explosions/Remote violence", "Violence against civilians", "Protests")
TOWNS = ((36.20, 37.16), (35.93, 36.63), (34.73, 36.71), (33.51, 36.29), (35.13, 36.75))
"""Aleppo, Idlib, Homs, Damascus, Hama: where events cluster."""
SHOWN = ["id", "date", "event_type", "fatalities", "latitude", "longitude"]
QUERIES = {
    "week, whole country": ((date(2016, 12, 8), date(2016, 12, 15)), (35.7, 32.3, 42.4, 37.4)),
    "month, Aleppo area": ((date(2016, 11, 15), date(2016, 12, 15)), (36.9, 36.0, 37.4, 36.4)),
    "day, a city's view": ((date(2016, 12, 15), date(2016, 12, 15)), (37.10, 36.15, 37.22, 36.25)),
}


def events(rows: int, seed: int = 20) -> EventTable:
    """Events around five towns (about 15 km), every day of five years, in date order (as an
    export lists them), in all of ACLED's columns that Corridor keeps."""
    rng = np.random.default_rng(seed)
    town = rng.integers(0, len(TOWNS), rows)
    lat = np.array(TOWNS)[town, 0] + rng.normal(0, 0.14, rows)
    lon = np.array(TOWNS)[town, 1] + rng.normal(0, 0.14, rows)
    day = np.datetime64(FIRST_DAY, "D") + np.sort(rng.integers(0, DAYS, rows))
    actors = np.array(["Government forces", "Opposition groups", "Civilians"], dtype=object)
    return EventTable.from_columns({
        "id": [f"SYR{i}" for i in range(rows)], "date": day,
        "event_type": np.array(TYPES, dtype=object)[rng.integers(0, len(TYPES), rows)],
        "latitude": lat.round(5), "longitude": lon.round(5), "source": [("acled",)] * rows,
        "actor1": actors[rng.integers(0, 3, rows)], "actor2": actors[rng.integers(0, 3, rows)],
        "location": np.array(["Aleppo", "Idlib", "Homs", "Damascus", "Hama"], dtype=object)[town],
        "country": ["Syria"] * rows, "fatalities": rng.geometric(0.4, rows) - 1,
        "notes": [f"Invented event {i}." for i in range(rows)],
    })  # fmt: skip


def write_workspace(table: EventTable, path: Path | str) -> None:
    """A workspace holding a scenario of these events (as `geo import` of a folder leaves it)."""
    base = synthetic.generate(events=0, convoys=1, zones=1)
    sources = (
        *base.sources,
        Source("acled", "ACLED export (invented here)", "ACLED", date(2016, 12, 31)),
    )
    scenario = replace(base, id="syria", sources=sources, events=table)
    open_workspace(path).save(scenario)


def query_workspace(path: Path | str, days: tuple[date, date], box: Extent) -> pd.DataFrame:
    """What the map asks: `geo.store.windows.rows_in`, the columns it draws."""
    return windows.rows_in(open_workspace(path), "events", "syria", start=days[0], end=days[1],
                           extent=box, columns=SHOWN)  # fmt: skip


def query_geopackage_sql(path: Path, days: tuple[date, date], box: tuple[float, ...]) -> Any:
    """The same through SQLite: the R-tree and the date index, whichever SQLite prefers."""
    sql = (
        f"SELECT {', '.join('e.' + c for c in SHOWN)} FROM events e "
        "JOIN rtree_events_geom r ON r.id = e.fid "
        f"WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ? "
        "AND e.scenario_id = 'syria' AND e.date BETWEEN ? AND ?"
    )
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute(sql, (box[2], box[0], box[3], box[1], str(days[0]), str(days[1])))
        return pd.DataFrame(rows.fetchall(), columns=SHOWN)


def write_parquet(table: EventTable, path: Path) -> None:
    """GeoParquet of the same events in date order (rows of a day together), as a frame."""
    frame = table.table.drop_columns(["source"]).to_pandas()
    points = shapely.points(frame["longitude"], frame["latitude"])
    gpd.GeoDataFrame(frame, geometry=points, crs="EPSG:4326").to_parquet(
        path, row_group_size=100_000
    )


def query_parquet(path: Path, days: tuple[date, date], box: tuple[float, ...]) -> Any:
    import duckdb

    with duckdb.connect() as db:
        sql = (
            f"SELECT {', '.join(SHOWN)} FROM read_parquet(?) WHERE date BETWEEN ? AND ? "
            "AND longitude BETWEEN ? AND ? AND latitude BETWEEN ? AND ?"
        )
        parameters = [str(path), days[0], days[1], box[0], box[2], box[1], box[3]]
        return db.execute(sql, parameters).fetch_df()


def timed(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--postgis", default="postgresql://postgres@127.0.0.1:5432/corridor_test",
        help="a PostGIS database to compare with ('' to skip)",
    )  # fmt: skip
    args = parser.parse_args()
    try:
        import duckdb
    except ImportError:
        duckdb = None
        print("duckdb is not installed: GeoParquet is skipped (pip install duckdb)")
    stores = {
        "workspace GeoPackage (geo.store.windows)": (write_workspace, query_workspace, "gpkg")
    }
    stores["the same file through SQLite alone"] = (None, query_geopackage_sql, "gpkg")
    if duckdb is not None:
        stores[f"GeoParquet (DuckDB {duckdb.__version__})"] = (
            write_parquet,
            query_parquet,
            "parquet",
        )
    table = events(args.rows)
    print(f"{args.rows:,} events; GDAL {pyogrio.__gdal_version_string__}")
    with tempfile.TemporaryDirectory() as scratch:
        for name, (write, query, suffix) in stores.items():
            path = Path(scratch) / f"events.{suffix}"
            if write is not None:
                started = time.perf_counter()
                write(table, path)
                written = time.perf_counter() - started
                megabytes = path.stat().st_size / 2**20
                print(f"\n{name}: written in {written:.1f} s, {megabytes:.0f} MB")
            else:
                print(f"\n{name}: the same file")
            for label, (days, box) in QUERIES.items():
                seconds, found = timed(args.repeat, functools.partial(query, path, days, box))
                print(f"  {label:<22} {len(found):>8,} events  {seconds * 1000:>8.1f} ms")
    if args.postgis:
        in_postgis(table, args.postgis, args.repeat)


def in_postgis(table: EventTable, database: str, repeat: int) -> None:
    """The same scenario written to a PostGIS workspace, and the same queries."""
    import uuid
    from urllib.parse import quote

    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(database, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {schema}")
    url = f"{database}?options={quote(f'-csearch_path={schema},public')}"
    try:
        started = time.perf_counter()
        write_workspace(table, url)  # type: ignore[arg-type]
        written = time.perf_counter() - started
        with psycopg.connect(url) as connection:
            row = connection.execute("SELECT pg_total_relation_size('events')").fetchone()
        megabytes = (row[0] if row else 0) / 2**20
        print(f"\nPostGIS workspace (geo.store.windows): written in {written:.1f} s, events table "
              f"with its indexes {megabytes:.0f} MB")  # fmt: skip
        for label, (days, box) in QUERIES.items():
            seconds, found = timed(repeat, functools.partial(query_workspace, url, days, box))
            print(f"  {label:<22} {len(found):>8,} events  {seconds * 1000:>8.1f} ms")
    finally:
        with psycopg.connect(database, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {schema} CASCADE")


if __name__ == "__main__":
    main()
