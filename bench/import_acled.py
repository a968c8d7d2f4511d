"""Time importing ACLED-format CSVs, beside plain geopandas on the same file (issue 20).

Writes a CSV of N invented events in ACLED's column layout (not ACLED data), then times:
plain geopandas (pandas.read_csv -> points_from_xy -> to_file GeoPackage with pyogrio), the
same file through `importing.prepare` + `importing.commit_import` into a workspace holding the
shipped scenario, and a re-import of a newer export (the same rows, `--revised` of them with
other fatalities and `--new` more). Prints a table; `--rows 8000,100000` picks the sizes.
Each step runs in a fresh process (`bench/_peak.py`), so its peak RSS (MB) is its own.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import geopandas as gpd
import pandas as pd

from bench._peak import measured
from geo import importing
from geo.scenario import read_scenario
from geo.settings import Settings
from geo.store import open_workspace

COLUMNS = [
    "event_id_cnty", "event_date", "year", "time_precision", "disorder_type", "event_type",
    "sub_event_type", "actor1", "assoc_actor_1", "inter1", "actor2", "assoc_actor_2", "inter2",
    "interaction", "civilian_targeting", "iso", "region", "country", "admin1", "admin2", "admin3",
    "location", "latitude", "longitude", "geo_precision", "source", "source_scale", "notes",
    "fatalities", "tags", "timestamp",
]  # fmt: skip
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip
KINDS = [
    ("Battles", "Armed clash"),
    ("Explosions/Remote violence", "Shelling/artillery/missile attack"),
    ("Violence against civilians", "Attack"),
    ("Protests", "Peaceful protest"),
]


def write_acled(path: Path, rows: int, *, first: int = 0, revised: int = 0) -> None:
    """N invented events; `revised` of them carry one more fatality than the first export."""
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        for i in range(first, first + rows):
            day, month, year = 1 + i % 28, MONTHS[i // 28 % 12], 2012 + i // 336 % 12
            kind, sub = KINDS[i % len(KINDS)]
            fatalities = i % 7 + (1 if i - first < revised else 0)
            cells = {
                "event_id_cnty": f"SYR{i + 1:07d}", "event_date": f"{day} {month} {year}",
                "year": year, "time_precision": 1 + i % 3, "disorder_type": "Political violence",
                "event_type": kind, "sub_event_type": sub, "actor1": f"Actor {i % 40}",
                "inter1": 1, "actor2": f"Actor {i % 23}" if i % 3 else "", "inter2": 2,
                "interaction": 12, "iso": 760, "region": "Middle East", "country": "Syria",
                "admin1": f"Governorate {i % 14}", "location": f"Village {i % 5000}",
                "latitude": f"{32.5 + (i * 7919 % 50_000) / 10_000:.4f}",
                "longitude": f"{35.8 + (i * 104_729 % 60_000) / 10_000:.4f}",
                "geo_precision": 1 + i % 3, "source": "Invented Agency",
                "source_scale": "National", "notes": f"Invented event number {i}.",
                "fatalities": fatalities, "timestamp": 1_700_000_000 + i,
            }  # fmt: skip
            writer.writerow([cells.get(column, "") for column in COLUMNS])


def plain_geopandas(path: Path, target: Path) -> None:
    frame = pd.read_csv(path)
    points = gpd.points_from_xy(frame["longitude"], frame["latitude"], crs="EPSG:4326")
    gpd.GeoDataFrame(frame, geometry=points).to_file(target, engine="pyogrio", layer="events")


def corridor(path: Path, workspace_path: Path, scenario_id: str) -> str:
    workspace = open_workspace(workspace_path)
    options = importing.Options(layer="events", max_bytes=2**31)
    prepared = importing.prepare(path, workspace.load(scenario_id), options=options)
    importing.commit_import(workspace, scenario_id, prepared, who="bench")
    return prepared.done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="8000,100000")
    parser.add_argument("--revised", type=int, default=1000)
    parser.add_argument("--new", type=int, default=1000)
    args = parser.parse_args()
    scenario = read_scenario(Settings.from_environment().default_scenario_dir)
    print(f"{'rows':>8} {'MB':>5} {'geopandas s':>11} {'MB RSS':>7} {'import s':>9} "
          f"{'MB RSS':>7} {'ratio':>6} {'re-import s':>11} {'MB RSS':>7}  "
          "re-import did")  # fmt: skip
    for rows in (int(n) for n in args.rows.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            first, newer = Path(scratch) / "acled.csv", Path(scratch) / "acled-newer.csv"
            write_acled(first, rows)
            write_acled(newer, rows + args.new, revised=args.revised)
            _, plain, plain_peak = measured(plain_geopandas, first, Path(scratch) / "plain.gpkg")
            target = Path(scratch) / "workspace.gpkg"
            open_workspace(target).save(scenario)
            _, took, peak = measured(corridor, first, target, scenario.id)
            did, again, again_peak = measured(corridor, newer, target, scenario.id)
            print(f"{rows:>8} {first.stat().st_size / 2**20:>5.1f} {plain:>11.1f} "
                  f"{plain_peak:>7.0f} {took:>9.1f} {peak:>7.0f} {took / plain:>6.1f} "
                  f"{again:>11.1f} {again_peak:>7.0f}  {did}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
