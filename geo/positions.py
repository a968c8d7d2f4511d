"""Position reports read: files of them (`read_positions`: CSV, GPX or GeoJSON), and a CSV file
followed as a radio operator or a GPS gateway keeps appending to it (`Follower`, `Feed`).

The formats, one report each:

- CSV: columns convoy, time, latitude, longitude, and optionally speed_kmh and note, one report
  per line (a note may not hold a line break). Latitude and longitude may be spelled as
  `geo.readers` accepts them (lat, lon, lng…).
- GPX: every track point (<trkpt>) of a track whose <name> is the convoy id; its <time> is
  the time of the report and its <desc>, if any, the note. Waypoints and routes are not read.
- GeoJSON: Point features with the properties convoy and time (speed_kmh and note optional).

Times are ISO 8601 with a UTC offset and are kept in UTC. Every bad row is named in the
`ProblemLog` (file, row or feature, field, what was expected, what came); the good rows are
kept.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any
from xml.etree.ElementTree import Element

from geo import _fields as f
from geo._fields import Field, Spot
from geo.errors import ProblemLog
from geo.position_table import FIRST, LAST, HeldReports, PositionTable
from geo.readers import LATITUDE_ALIASES, LONGITUDE_ALIASES, SUFFIXES, gpx, read_file, xml_root
from geo.records import Position

FIELDS = (
    Field("convoy", f.identifier),
    Field("time", f.moment),
    Field("latitude", f.number(-90, 90)),
    Field("longitude", f.number(-180, 180)),
    Field("speed_kmh", f.number(0, 500), required=False),
    Field("note", f.text, required=False),
)
"""The fields of one report, in every format."""

FORMATS_HINT = "a CSV, GPX or GeoJSON file of position reports"


def read_positions(path: Path | str, *, log: ProblemLog, name: str | None = None) -> list[Position]:
    """Every good report in a CSV, GPX or GeoJSON file; each bad row or feature goes to `log`
    (`path`, `log` and `name` as `geo.readers.read_file` takes them)."""
    path = Path(path)
    label = name or path.name
    suffix = PurePosixPath(label).suffix.lower()
    kind = SUFFIXES.get(suffix)
    before = len(log)
    if kind == "csv":
        found = Follower(path, name=label).read_all(log)
    elif kind == "gpx":
        found = _gpx_positions(path, label, log)
    elif kind == "geojson":
        found = _geojson_positions(path, label, log)
    else:
        log.error(label, "", "", f"{FORMATS_HINT} (.csv, .gpx, .geojson)", suffix or label)
        return []
    if not found and len(log) == before:
        log.warn(label, "", "", "at least one position report", "none")
    return found


def _position(cells: dict[str, Any], spot: Spot, log: ProblemLog) -> Position | None:
    values = f.parse_fields(cells, FIELDS, spot, log)
    if values is None:
        return None
    if not FIRST <= values["time"] <= LAST:  # (held as 64-bit nanoseconds: `PositionTable`)
        expected = f"a time from {FIRST:%Y} to {LAST:%Y}"
        log.error(spot.file, spot.where, "time", expected, cells.get("time"))
        return None
    return Position(
        values["convoy"],
        values["time"],
        values["latitude"],
        values["longitude"],
        values.get("speed_kmh"),
        values.get("note", ""),
    )


def _gpx_positions(path: Path, file: str, log: ProblemLog) -> list[Position]:
    root = xml_root(path, file, "gpx", log)
    if root is None:
        return []
    for tag, noun in (("wpt", "waypoint"), ("rte", "route")):
        if count := len(root.findall(tag)):
            found = f"{count} {noun}{'s' if count > 1 else ''} (not read)"
            log.warn(file, "", "", "track points (<trkpt>) only", found)
    return [
        position
        for number, track, points in gpx.tracks(root)
        for position in _track_positions(track, points, Spot(file, f"track #{number}"), log)
    ]


def _track_positions(
    track: Element, points: list[Element], spot: Spot, log: ProblemLog
) -> list[Position]:
    convoy = gpx.child_text(track, "name")
    try:
        f.identifier(convoy)
    except f.FieldError as error:
        log.error(
            spot.file, spot.where, "name", f"the convoy id as the track's name: {error}", convoy
        )
        return []
    found = []
    for number, point in enumerate(points, start=1):
        cells = {"convoy": convoy, **gpx.point_cells(point)}
        where = f"{spot.where} {convoy!r}, point #{number}"
        found.append(_position(cells, Spot(spot.file, where), log))
    return [position for position in found if position]


def _geojson_positions(path: Path, file: str, log: ProblemLog) -> list[Position]:
    found = []
    for table in read_file(path, log=log, name=file):
        for raw in table.rows:
            if table.layer != "places":  # a point becomes a "places" row with coordinate cells
                kind = raw.geometry.geom_type if raw.geometry is not None else None
                log.error(raw.spot.file, raw.spot.where, "geometry", "a Point (one report)", kind)
                continue
            found.append(_position(raw.cells, raw.spot, log))
    return [position for position in found if position]


# Following a growing file ------------------------------------------------------------------


class Follower:
    """A CSV file of reports that grows: each call reads only the lines appended since the last.

    The first line is the header. A last line without its line break yet is being written: it
    is kept until the next call completes it. A file that became shorter than what was read,
    or was replaced by another file (rotated), is read again from its start; one truncated and
    then written past its old length between two calls cannot be told from one appended to.
    """

    def __init__(self, path: Path | str, *, name: str | None = None) -> None:
        self.path = Path(path)
        self.name = name or self.path.name
        self._identity: tuple[int, int] | None = None
        self._restart()

    def _restart(self) -> None:
        self._offset = 0
        self._pending = b""
        self._line = 0
        self._keys: list[str | None] | None = None

    def new_positions(self, log: ProblemLog) -> list[Position]:
        """The reports of the lines completed since the last call; bad rows go to `log`."""
        return self._read(log, final=False)

    def read_all(self, log: ProblemLog) -> list[Position]:
        """Like `new_positions`, but the last line counts even without a line break."""
        return self._read(log, final=True)

    def _read(self, log: ProblemLog, *, final: bool) -> list[Position]:
        try:
            with self.path.open("rb") as handle:
                status = os.fstat(handle.fileno())
                identity = (status.st_dev, status.st_ino)
                if identity != self._identity or status.st_size < self._offset:
                    self._restart()
                    self._identity = identity
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError as error:
            log.error(self.name, "", "", "a readable UTF-8 CSV file", str(error))
            return []
        self._offset += len(chunk)
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()  # b"" after a line break; else a line still being written
        if final and self._pending:
            lines.append(self._pending)
            self._pending = b""
        found = [self._row(line, log) for line in lines]
        return [position for position in found if position]

    def _row(self, line: bytes, log: ProblemLog) -> Position | None:
        self._line += 1
        where = f"row {self._line}"
        try:
            text = line.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as error:
            log.error(self.name, where, "", "a line of UTF-8 text", str(error))
            return None
        if self._line == 1:
            text = text.removeprefix("\ufeff")
        if not text.strip():
            return None  # a blank line holds nothing
        try:
            cells = next(csv.reader([text]))
        except csv.Error as error:
            log.error(self.name, where, "", "well-formed CSV, one report per line", str(error))
            return None
        if self._keys is None:
            self._keys = _header(cells, self.name, log)
            return None
        if len(cells) != len(self._keys):
            expected = f"{len(self._keys)} cells, one per column of the header"
            log.error(self.name, where, "", expected, f"{len(cells)} cells")
            return None
        row = {key: cell for key, cell in zip(self._keys, cells, strict=True) if key}
        return _position(row, Spot(self.name, where), log)


class Feed:
    """A watched file's reports so far, for one scenario, and those not yet kept elsewhere.

    `poll` reads the lines appended since the last call and adds their reports to `reports`
    and `unsaved` in one step, so that a caller interrupted between two of its own statements
    (a Streamlit rerun, say) never loses what the file gave. A report already held (the same
    convoy, time and place: a rotated file read again from its start) is not added twice. Both
    are `PositionTable`s: a feed of a million reports holds columns, not a million records.
    """

    def __init__(self, path: Path | str, scenario_id: str, kept: Iterable[Position] = ()) -> None:
        self.follower = Follower(path)
        self.scenario_id = scenario_id
        self._held = HeldReports(PositionTable.of(kept))
        self.unsaved = PositionTable.empty()

    @property
    def path(self) -> Path:
        return self.follower.path

    @property
    def reports(self) -> PositionTable:
        """Every report held, oldest first (reports of one moment in the order they came)."""
        return self._held.table

    def poll(self, log: ProblemLog) -> PositionTable:
        """The reports new since the last call; bad rows go to `log`."""
        read = PositionTable.of(self.follower.new_positions(log))
        fresh = read.take(self._held.unseen(read))
        if len(fresh):
            unsaved = self.unsaved.then(fresh)
            self._held.add(fresh)
            self.unsaved = unsaved
        return fresh

    def saved(self, count: int) -> None:
        """The first `count` unsaved reports are now kept."""
        self.unsaved = self.unsaved[count:]


def _header(cells: Sequence[str], file: str, log: ProblemLog) -> list[str | None]:
    """The field each column holds (None for one not read); missing and unknown ones logged."""
    names = [cell.strip() for cell in cells]
    keys: list[str | None] = [name or None for name in names]
    for target, aliases in (("latitude", LATITUDE_ALIASES), ("longitude", LONGITUDE_ALIASES)):
        if target not in keys:
            spelled = [i for i, key in enumerate(keys) if key and key.lower() in aliases]
            if spelled:
                keys[spelled[0]] = target
    for number, key in enumerate(keys):
        if key is not None and key in keys[:number]:
            log.error(file, "header", key, "each column once", "a second column so named")
            keys[number] = None
    f.check_columns([key for key in keys if key], FIELDS, file, log)
    return keys


# States ------------------------------------------------------------------------------------
