"""Where a million events should live (issue 20): the workspace GeoPackage (R-tree and a date
index) against GeoParquet read by DuckDB, for what the map asks: one time window in one area.

Writes N invented events over five years of Syria in both stores (the GeoPackage laid out as
the workspace lays out its events layer), then times the queries the dashboard and exports
make: a week over the whole country, a month around Aleppo, a day at the zoom of a city,
each returning the columns the map draws. Prints write times, file sizes and query medians
(of `--repeat` runs, each from a fresh connection); `--rows 1000000` sets N.

DuckDB is not a Corridor requirement: this script says so and skips it when it is missing
(`pip install duckdb` to compare).
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
from datetime import date
from pathlib import Path
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import pyogrio
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from geo import workspace as w

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


def events(rows: int, seed: int = 20) -> gpd.GeoDataFrame:
    """Events around five towns (about 15 km), every day of five years."""
    rng = np.random.default_rng(seed)
    town = rng.integers(0, len(TOWNS), rows)
    lat = np.array(TOWNS)[town, 0] + rng.normal(0, 0.14, rows)
    lon = np.array(TOWNS)[town, 1] + rng.normal(0, 0.14, rows)
    day = np.sort(rng.integers(0, DAYS, rows))  # (an export lists events by date)
    dates = pd.to_datetime(FIRST_DAY) + pd.to_timedelta(day, unit="D")
    frame = pd.DataFrame(
        {
            w.SCENARIO_ID: "syria",
            "id": [f"SYR{i}" for i in range(rows)],
            "date": dates.date,
            "event_type": np.array(TYPES, dtype=object)[rng.integers(0, len(TYPES), rows)],
            "fatalities": rng.geometric(0.4, rows) - 1,
            "latitude": lat.round(5),
            "longitude": lon.round(5),
            "notes": [f"Invented event {i}." for i in range(rows)],
        }
    )
    points = shapely.points(frame["longitude"], frame["latitude"])
    return gpd.GeoDataFrame(frame, geometry=points, crs=w.CRS)


def write_geopackage(frame: gpd.GeoDataFrame, path: Path) -> None:
    pyogrio.write_dataframe(frame, path, layer="events", driver="GPKG", geometry_type="Point")
    with sqlite3.connect(path) as db:  # (GDAL writes dates as text: 'YYYY-MM-DD' sorts)
        db.execute(f"CREATE INDEX events_date ON events ({w.SCENARIO_ID}, date)")


def query_geopackage(path: Path, days: tuple[date, date], box: tuple[float, ...]) -> pd.DataFrame:
    where = f"{w.SCENARIO_ID} = 'syria' AND date BETWEEN '{days[0]}' AND '{days[1]}'"
    return pyogrio.read_dataframe(
        path, layer="events", columns=SHOWN, where=where, bbox=box, use_arrow=True
    )


def query_geopackage_sql(path: Path, days: tuple[date, date], box: tuple[float, ...]) -> Any:
    """The same through SQLite: the R-tree and the date index, whichever SQLite prefers."""
    sql = (
        f"SELECT {', '.join('e.' + c for c in SHOWN)} FROM events e "
        "JOIN rtree_events_geom r ON r.id = e.fid "
        f"WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ? "
        f"AND e.{w.SCENARIO_ID} = 'syria' AND e.date BETWEEN ? AND ?"
    )
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute(sql, (box[2], box[0], box[3], box[1], str(days[0]), str(days[1])))
        return pd.DataFrame(rows.fetchall(), columns=SHOWN)


def write_parquet(frame: gpd.GeoDataFrame, path: Path) -> None:
    frame.to_parquet(path, row_group_size=100_000)  # GeoParquet: rows in date order


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
    args = parser.parse_args()
    try:
        import duckdb
    except ImportError:
        duckdb = None
        print("duckdb is not installed: GeoParquet is skipped (pip install duckdb)")
    stores = {"GeoPackage (pyogrio)": (write_geopackage, query_geopackage, "gpkg")}
    stores["GeoPackage (SQLite)"] = (None, query_geopackage_sql, "gpkg")
    if duckdb is not None:
        stores[f"GeoParquet (DuckDB {duckdb.__version__})"] = (
            write_parquet,
            query_parquet,
            "parquet",
        )
    frame = events(args.rows)
    print(f"{args.rows:,} events; GDAL {pyogrio.__gdal_version_string__}")
    with tempfile.TemporaryDirectory() as scratch:
        for name, (write, query, suffix) in stores.items():
            path = Path(scratch) / f"events.{suffix}"
            if write is not None:
                started = time.perf_counter()
                write(frame, path)
                written = time.perf_counter() - started
                megabytes = path.stat().st_size / 2**20
                print(f"\n{name}: written in {written:.1f} s, {megabytes:.0f} MB")
            else:
                print(f"\n{name}: the same file")
            for label, (days, box) in QUERIES.items():
                seconds, found = timed(args.repeat, functools.partial(query, path, days, box))
                print(f"  {label:<22} {len(found):>8,} events  {seconds * 1000:>8.1f} ms")


if __name__ == "__main__":
    main()
