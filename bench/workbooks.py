"""Reading an ACLED-style .xlsx: python-calamine against openpyxl, and Corridor's import read.

`python bench/workbooks.py [ROWS]` (100,000 by default) writes the workbook with openpyxl, then
reads it in a fresh process each way and prints seconds and peak RSS: the raw cells with
calamine, with openpyxl (read-only, values only), and `readers.read_file` (calamine, then the
rows checked as any table's), and `prepare` (every row built into an event).
"""

from __future__ import annotations

import datetime as dt
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEADER = ["event_id_cnty", "event_date", "year", "event_type", "sub_event_type", "actor1",
          "location", "admin1", "country", "latitude", "longitude", "fatalities", "notes",
          "source"]  # fmt: skip


def write(path: Path, rows: int) -> None:
    import openpyxl

    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet("Events")
    sheet.append(HEADER)
    chance = random.Random(1)
    for number in range(rows):
        day = dt.date(2024, 1, 1) + dt.timedelta(days=number % 365)
        sheet.append([f"SDN{number}", day, 2024, "Battles", "Armed clash", "RSF", "El Fasher",
                      "North Darfur", "Sudan", 13.6 + chance.random(), 25.3 + chance.random(),
                      number % 7, "Clashes reported near the market", "Radio Dabanga"])  # fmt: skip
    workbook.save(path)


def read(way: str, path: Path) -> int:
    if way == "calamine":
        from python_calamine import CalamineWorkbook

        workbook = CalamineWorkbook.from_path(str(path))
        return sum(len(workbook.get_sheet_by_name(n).to_python()) for n in workbook.sheet_names)
    if way == "openpyxl":
        import openpyxl

        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
        return sum(1 for sheet in workbook.worksheets for _ in sheet.iter_rows(values_only=True))
    from geo import importing, readers
    from geo.errors import ProblemLog
    from geo.scenario import read_scenario
    from geo.settings import Settings

    if way == "read_file":
        return sum(len(t.rows) for t in readers.read_file(path, log=ProblemLog()))
    scenario = read_scenario(Settings.from_environment().default_scenario_dir)
    options = importing.Options(max_bytes=2**31)
    return len(importing.prepare(path, scenario, options=options).records["events"])


def child(way: str, path: Path) -> None:
    start = time.perf_counter()
    rows = read(way, path)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"| {way} | {rows:,} | {seconds:.2f} s | {peak:.0f} MB |")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]))
        return
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "acled.xlsx"
        write(path, rows)
        print(f"{rows:,} ACLED rows, {path.stat().st_size / 2**20:.1f} MB of .xlsx\n")
        print("| read | rows | seconds | peak RSS |\n|---|---|---|---|")
        for way in ("calamine", "openpyxl", "read_file", "prepare"):
            command = [sys.executable, __file__, "--child", way, str(path)]
            subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
