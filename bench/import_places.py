"""Time importing a large CSV of places (issue 19: 300,000 places, 19 MB, in 30 s or less).

Writes CSVs of N invented places in Syria (ids, names, coordinates; with and without country
codes, and without ids), then times `importing.prepare` (read, check, fill in) and
`importing.commit_import` (one logged transaction into a workspace holding the shipped
scenario) separately, each in a fresh process (`bench/_peak.py`) with its peak RSS (MB):
`prepare` alone is what `geo import --dry-run` does. Prints a table; `--rows 20000,300000`
picks the sizes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._peak import measured
from geo import importing
from geo.scenario import read_scenario
from geo.settings import Settings
from geo.store import open_workspace

GOVERNORATES = ("Aleppo", "Idlib", "Hama", "Homs", "Latakia", "Tartus", "Rif Dimashq", "Daraa")


def write_csv(path: Path, rows: int, *, ids: bool, country: bool) -> None:
    """Places as a gazetteer export has them (about 19 MB for 300,000 with ids and country
    codes, the size of the file issue 19 timed): a governorate, and other spellings of every
    fourth name."""
    header = [*(["id"] if ids else []), "name", "aliases", "latitude", "longitude", "kind"]
    header += ["admin1", *(["country_code"] if country else [])]
    with path.open("w", encoding="utf-8") as out:
        out.write(",".join(header) + "\n")
        for i in range(rows):
            name = f"Village {i % 5000}"
            aliases = f"Qaryat {i % 5000};Karyat {i % 5000}" if i % 4 == 0 else ""
            cells = [*([f"p{i}"] if ids else []), name, aliases]
            cells += [f"{32.5 + (i * 7919 % 50_000) / 10_000:.5f}"]
            cells += [f"{35.8 + (i * 104_729 % 60_000) / 10_000:.5f}", "village"]
            cells += [GOVERNORATES[i % len(GOVERNORATES)], *(["SY"] if country else [])]
            out.write(",".join(cells) + "\n")


def dry_run(path: Path, scenario_dir: Path) -> tuple[int, str]:
    """What `geo import --dry-run` does: the file read and checked, nothing written."""
    options = importing.Options(max_bytes=2**31, check_only=True)  # (as `geo import` would)
    prepared = importing.prepare(path, read_scenario(scenario_dir), options=options)
    return prepared.accepted, prepared.summary()


def prepare_and_commit(path: Path, scenario_dir: Path, workspace_path: Path) -> float:
    """The import: read and check, then one logged transaction (the commit's seconds)."""
    scenario = read_scenario(scenario_dir)
    prepared = importing.prepare(path, scenario, options=importing.Options(max_bytes=2**31))
    started = time.perf_counter()
    importing.commit_import(open_workspace(workspace_path), scenario.id, prepared, who="bench")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="5000,20000,300000")
    parser.add_argument("--only", help="one kind of file: ids, no-country or no-ids")
    parser.add_argument("--dry-run", action="store_true", help="time the dry run alone")
    args = parser.parse_args()
    folder = Settings.from_environment().default_scenario_dir
    scenario = read_scenario(folder)
    print(
        f"{'rows':>8} {'file':<28} {'MB':>6} {'dry run s':>10} {'MB RSS':>7} "
        f"{'commit s':>9} {'total s':>8} {'MB RSS':>7}"
    )
    for rows in (int(n) for n in args.rows.split(",")):
        for key, label, ids, country in (
            ("ids", "ids, country codes", True, True),
            ("no-country", "ids, no country code", True, False),
            ("no-ids", "no ids, country codes", False, True),
        ):
            if args.only and key != args.only:
                continue
            with tempfile.TemporaryDirectory() as scratch:
                path = Path(scratch) / "places.csv"
                write_csv(path, rows, ids=ids, country=country)
                megabytes = path.stat().st_size / 2**20
                target = Path(scratch) / "workspace.gpkg"
                open_workspace(target).save(scenario)
                (accepted, summary), dry, dry_peak = measured(dry_run, path, folder)
                assert accepted == rows, summary
                committing, total, peak = (
                    (float("nan"),) * 3
                    if args.dry_run
                    else measured(prepare_and_commit, path, folder, target)
                )
                print(
                    f"{rows:>8} {label:<28} {megabytes:>6.1f} {dry:>10.1f} {dry_peak:>7.0f} "
                    f"{committing:>9.1f} {total:>8.1f} {peak:>7.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
