"""Scenario folders: read and validate every file at once, and write a scenario back out."""

from __future__ import annotations

import csv
import functools
import io
import re
import shutil
import tomllib
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import tomli_w

from geo import _fields as f
from geo import _schema as s
from geo._atomic import atomic_path, write_files
from geo._fields import Spot
from geo._geojson import feature, feature_collection, read_features
from geo._spreadsheet import RISKY_FIRST, inert, restored
from geo.builder import META_FILE, assemble, meta_fields
from geo.errors import ProblemLog, ScenarioNotFoundError
from geo.event_table import EventTable
from geo.records import Scenario

SCENARIO_FILE = META_FILE
CSV_FILES = {s.PLACES: "places.csv", s.CONVOYS: "convoys.csv", s.FIGURES: "figures.csv"}
GEOJSON_FILES = {s.ROUTES: "routes.geojson", s.ZONES: "zones.geojson"}
OPTIONAL_CSV_FILES = {s.EVENTS: "events.csv"}
"""Files a scenario may have: read when present, written when the scenario has such records."""
FILES = (SCENARIO_FILE, *CSV_FILES.values(), *GEOJSON_FILES.values())


@dataclass(frozen=True)
class Report:
    """The outcome of checking a scenario: the scenario when it has no errors, and every problem."""

    scenario: Scenario | None
    problems: ProblemLog


def check_scenario(folder: Path | str, *, geocode: bool = True) -> Report:
    """Read and check every file of a scenario folder, collecting all problems.

    Places without coordinates are geocoded offline from their name (then aliases) when
    `geocode` is true; each such place is reported as a warning saying what it became.
    """
    folder = Path(folder)
    if not (folder / SCENARIO_FILE).is_file():
        raise ScenarioNotFoundError(f"{folder}: not a scenario folder (no {SCENARIO_FILE} in it)")
    log = ProblemLog()
    raws = {kind: list(_raw_rows(folder, kind, log)) for kind in (*CSV_FILES, *GEOJSON_FILES)}
    for kind, name in OPTIONAL_CSV_FILES.items():
        if (folder / name).is_file():
            raws[kind] = list(_csv_rows(folder / name, kind, log))
    meta, source_raws = _read_meta(folder / SCENARIO_FILE, log)
    if meta.get("id") and meta["id"] != folder.name:
        log.warn(SCENARIO_FILE, "", "id", f"the folder's name {folder.name!r}", meta["id"])
    scenario = assemble(meta, source_raws, raws, log, locate=_locator() if geocode else None)
    return Report(scenario if not log.errors else None, log)


def read_scenario(folder: Path | str, *, strict: bool = False, geocode: bool = True) -> Scenario:
    """The scenario in a folder; ValidationError listing every problem when there is any."""
    report = check_scenario(folder, geocode=geocode)
    report.problems.raise_if_errors(str(folder), strict=strict)
    assert report.scenario is not None
    return report.scenario


def _locator() -> Callable[[str, str], Any]:
    """Geocode a name within its stated country; the geocoder loads on first use only."""
    geocoders: dict[str, Any] = {}

    def locate(name: str, country_code: str) -> Any:
        from geo.geocoding import OfflineGeocoder

        if country_code not in geocoders:
            geocoders[country_code] = OfflineGeocoder(country_bias=country_code)
        return geocoders[country_code].geocode(name, country_codes=country_code)

    return locate


def _read_meta(path: Path, log: ProblemLog) -> tuple[dict[str, Any], list[s.RawRecord]]:
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        log.error(path.name, "", "", "a readable TOML file", str(error))
        return {}, []
    f.check_columns(set(document) - {"sources"}, meta_fields(), path.name, log)
    meta = f.parse_fields(document, meta_fields(), Spot(path.name, ""), log) or {}
    sources = document.get("sources")
    if not isinstance(sources, list) or not sources:
        log.error(path.name, "", "sources", "one or more [[sources]] tables", sources)
        return meta, []
    return meta, [_source_raw(path.name, number, table) for number, table in enumerate(sources, 1)]


def _source_raw(file: str, number: int, table: object) -> s.RawRecord:
    cells = table if isinstance(table, dict) else {}
    label = cells.get("id")
    where = f"[[sources]] #{number}" + (f" (id {label!r})" if label else "")
    return s.RawRecord(Spot(file, where), cells)


def _raw_rows(folder: Path, kind: s.Kind, log: ProblemLog) -> Iterator[s.RawRecord]:
    if kind in CSV_FILES:
        yield from _csv_rows(folder / CSV_FILES[kind], kind, log)
        return
    path = folder / GEOJSON_FILES[kind]
    if not path.is_file():
        log.error(path.name, "", "", "a readable GeoJSON FeatureCollection", "no such file")
        return
    for raw in read_features(path, log):
        yield s.RawRecord(raw.spot, raw.properties, raw.geometry)


def _csv_rows(path: Path, kind: s.Kind, log: ProblemLog) -> Iterator[s.RawRecord]:
    if not path.is_file():
        log.error(path.name, "", "", "a readable UTF-8 CSV file", "no such file")
        return
    try:
        content = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        log.error(path.name, "", "", "a readable UTF-8 CSV file", str(error))
        return
    reader = csv.DictReader(io.StringIO(content, newline=""))
    f.check_columns(reader.fieldnames or [], kind.fields(s.Known()), path.name, log)
    for number, row in enumerate(reader, start=2):
        label = (row.get("id") or "").strip()
        spot = Spot(path.name, f"row {number}" + (f" (id {label!r})" if label else ""))
        if None in row:
            log.error(
                path.name,
                spot.where,
                "",
                f"{len(reader.fieldnames or [])} cells",
                f"{len(reader.fieldnames or []) + len(row[None])} cells",
            )
            continue
        yield s.RawRecord(
            spot, {k: restored(v) if isinstance(v, str) else v for k, v in row.items()}
        )


def write_scenario(
    scenario: Scenario, folder: Path | str, *, kinds: Collection[str] | None = None
) -> Path:
    """Write a scenario as a folder of its six files, each written atomically.

    With `kinds` (layer names), only those layers' files are written (sources live in
    scenario.toml); the folder's other files are left as they are.
    """
    folder = Path(folder)

    def wanted(kind: s.Kind) -> bool:
        return kinds is None or kind.name in kinds

    files = {
        **({SCENARIO_FILE: _meta_text(scenario)} if wanted(s.SOURCES) else {}),
        **{
            name: _csv_file(getattr(scenario, kind.name), kind, scenario.timezone)
            for kind, name in OPTIONAL_CSV_FILES.items()
            if getattr(scenario, kind.name) and wanted(kind)
        },
        **{
            name: _csv_text(getattr(scenario, kind.name), kind, scenario.timezone)
            for kind, name in CSV_FILES.items()
            if wanted(kind)
        },
        **{
            name: _geojson_text(getattr(scenario, kind.name), kind, scenario.timezone)
            for kind, name in GEOJSON_FILES.items()
            if wanted(kind)
        },
    }
    write_files(folder, files)
    for kind, name in OPTIONAL_CSV_FILES.items():
        if wanted(kind) and name not in files:
            (folder / name).unlink(missing_ok=True)  # no such records now: no stale file
    return folder


def append_events(scenario: Scenario, added: EventTable, folder: Path | str) -> None:
    """Add a scenario's new events (the last of its events) to the folder's events.csv, in a
    copy swapped in whole: an import's new events do not write a million others again. The
    whole file is written when it is missing or has another header."""
    target = Path(folder) / OPTIONAL_CSV_FILES[s.EVENTS]
    header = ",".join(s.field_names(s.EVENTS)) + "\n"
    if not _starts_with(target, header):
        write_scenario(scenario, folder, kinds={s.EVENTS.name})
        return
    with atomic_path(target) as temporary:
        shutil.copyfile(target, temporary)
        with temporary.open("a+b") as out:
            out.seek(-1, io.SEEK_END)
            ended = out.read(1) == b"\n"
        with temporary.open("a", encoding="utf-8", newline="") as out:
            out.write("" if ended else "\n")
            _write_event_rows(out, added, scenario.timezone)


def _starts_with(path: Path, text: str) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(text.encode("utf-8"))) == text.encode("utf-8")
    except FileNotFoundError:
        return False


def _local(value: object, zone: str) -> object:
    if isinstance(value, datetime):
        return iso_local(value, zone)
    return value


def iso_local(moment: datetime, zone: str) -> str:
    """An ISO 8601 text of `moment` in `zone`, to the minute when there are no seconds."""
    local = moment.astimezone(ZoneInfo(zone))
    whole_minute = local.second == 0 and local.microsecond == 0
    return local.isoformat(timespec="minutes" if whole_minute else "auto")


def _meta_text(scenario: Scenario) -> str:
    document: dict[str, Any] = {
        name: _local_toml(getattr(scenario, name), scenario.timezone)
        for name in (spec.name for spec in meta_fields())
    }
    document["countries"] = list(scenario.countries)
    if not scenario.countries:
        del document["countries"]  # (read from the places, as before the field was written)
    document["sources"] = [
        {
            key: value
            for key, value in s.to_cells(source, s.SOURCES).items()
            if value not in (None, "")
        }
        for source in scenario.sources
    ]
    return tomli_w.dumps(document)


def _local_toml(value: object, zone: str) -> object:
    return value.astimezone(ZoneInfo(zone)) if isinstance(value, datetime) else value


def _csv_file(records: Sequence[Any], kind: s.Kind, zone: str) -> str | Callable[[TextIO], None]:
    """A CSV file's text; for events as a table, what writes it EVENT_ROWS_WRITTEN rows at a
    time (a million events' text and cells at once took 900 MB more: a dump after an import)."""
    if isinstance(records, EventTable):
        return functools.partial(_write_events, records, zone)
    return _csv_text(records, kind, zone)


EVENT_ROWS_WRITTEN = 65_536
"""Events made into CSV rows at once (see `_csv_file`)."""


def _write_events(events: EventTable, zone: str, out: TextIO) -> None:
    out.write(",".join(s.field_names(s.EVENTS)) + "\n")
    _write_event_rows(out, events, zone)


def _write_event_rows(out: TextIO, events: EventTable, zone: str) -> None:
    """The events' rows of events.csv, EVENT_ROWS_WRITTEN at a time, each batch's text
    written at once (row by row to the file cost a million events 6 s more)."""
    for start in range(0, len(events), EVENT_ROWS_WRITTEN):
        size = min(EVENT_ROWS_WRITTEN, len(events) - start)
        buffer = io.StringIO(newline="")
        rows = _event_rows(EventTable(events.table.slice(start, size)), zone)
        csv.writer(buffer, lineterminator="\n").writerows(rows)
        out.write(buffer.getvalue())


def _csv_text(records: Sequence[Any], kind: s.Kind, zone: str) -> str:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(s.field_names(kind))
    if isinstance(records, EventTable):
        writer.writerows(_event_rows(records, zone))
        return buffer.getvalue()
    writer.writerows(
        [_csv_cell(value, zone) for value in s.to_cells(record, kind).values()]
        for record in records
    )  # rows as lists (a DictWriter cost a 300,000-place dump a third more)
    return buffer.getvalue()


def _event_rows(events: EventTable, zone: str) -> Iterator[tuple[Any, ...]]:
    """The rows of events.csv taken a column at a time from the table, as `to_cells` and
    `_csv_cell` make them from records (sources joined by ';'; no Event made)."""
    columns = []
    for name in s.field_names(s.EVENTS):
        column = events.cell_column(name)
        values = column.to_pylist()
        if pa.types.is_string(column.type):  # (only the text `inert` changes goes through it)
            risky = pc.match_substring_regex(column, _RISKY_START).fill_null(False)
            for row in np.flatnonzero(risky.to_numpy(zero_copy_only=False)).tolist():
                values[row] = _csv_cell(values[row], zone)
        columns.append(values)
    return zip(*columns, strict=True)


_RISKY_START = "^[" + re.escape("".join(sorted(RISKY_FIRST))) + "]"


def _csv_cell(value: object, zone: str) -> object:
    """A cell as a scenario's CSV holds it: text made inert, times in the scenario's zone."""
    if type(value) is str:
        return inert(value) if value[:1] in RISKY_FIRST else value
    if isinstance(value, datetime):
        return inert(_local(value, zone))
    return value


def _geojson_text(records: tuple[Any, ...], kind: s.Kind, zone: str) -> str:
    features = [
        feature({k: _local(v, zone) for k, v in s.to_cells(record, kind).items()}, record.geometry)
        for record in records
    ]
    return feature_collection(features)
