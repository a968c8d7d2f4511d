"""What formats share: a file's text decoded and sniffed once, XML read safely, headers mapped."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree

from geo.errors import Problem, ProblemLog
from geo.readers.acled import ACLED_DROPPED, ACLED_FIELDS, ACLED_MARKERS
from geo.readers.base import LAYER_GEOMETRY, POINT

LATITUDE_ALIASES = ("latitude", "lat", "y")
LONGITUDE_ALIASES = ("longitude", "lon", "lng", "long", "x")

Row = tuple[int, list[str]]
"""A table's row: its number as the user counts it (the header is row 1 of a CSV) and its cells."""


# Text --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sniffed:
    """A delimited text file read once: its text, its separator and what reading it said."""

    file: str
    text: str
    delimiter: str
    said: tuple[Problem, ...]
    """Warnings (an encoding guessed, another separator), or the one error that stops the file
    being read (unreadable, not text: then `text` is empty)."""

    @property
    def refused(self) -> bool:
        """Whether the file cannot be read as text at all (its error is in `said`)."""
        return any(problem.severity == "error" for problem in self.said)


def sniff(path: Path, file: str) -> Sniffed:
    """A CSV file's text, decoded (`decoded`), and its separator (`delimiter_of`), read once
    for the column-at-a-time path and the row-by-row path alike."""
    log = ProblemLog()
    try:
        raw = path.read_bytes()
    except OSError as error:
        log.error(file, "", "", "a readable CSV file", str(error))
        return Sniffed(file, "", ",", tuple(log))
    binary = binary_kind(raw)
    if binary is not None:
        log.error(file, "", "", "a CSV file (text)", f"{binary}, not a CSV: nothing read")
        return Sniffed(file, "", ",", tuple(log))
    content = decoded(raw, file, log)
    del raw  # (the text is all that is kept)
    delimiter = delimiter_of(content, file, log)
    return Sniffed(file, content, delimiter, tuple(log))


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines(text: str) -> Iterator[str]:
    """The text's lines, each with its line end, as ``io.StringIO(text, newline="")`` gives
    them to a CSV reader, made one at a time: a StringIO holds a copy of the whole text at four
    bytes a character (a 240 MB CSV: 1 GB more)."""
    return (match.group() for match in _LINE.finditer(text))


def replay(problems: Iterable[Problem], log: ProblemLog) -> None:
    """Problems said into another log, in order (errors as errors, warnings as warnings)."""
    for problem in problems:
        (log.error if problem.severity == "error" else log.warn)(
            problem.file, problem.where, problem.field, problem.expected, problem.actual
        )


MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"), (b"%PDF-", "a PDF document"), (b"\x1f\x8b", "a gzip archive"),
    (b"SQLite format 3\x00", "an SQLite database (a GeoPackage? name it .gpkg)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel workbook (name it .xls)"),
    (b"PK\x03\x04", "a zip archive"), (b"PK\x05\x06", "an empty zip archive"),
)  # fmt: skip
"""The first bytes of files that are not text, and what they are."""
TEXT_SAMPLE = 8192
"""How much of a file is looked at for bytes no text holds."""


def binary_kind(raw: bytes) -> str | None:
    """What a file that is not text is ("a PNG image"), from its first bytes; None for text.

    Text in UTF-16 with its byte order mark holds NUL bytes, and is text; a file with a known
    signature is not, nor one whose first 8 KB are more than 1% NUL bytes (a NUL or two in a
    cell of a text file is that row's problem: the other rows are read)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    for signature, kind in MAGIC:
        if raw.startswith(signature):
            return _zip_kind(raw) if signature == b"PK\x03\x04" else kind
    sample = raw[:TEXT_SAMPLE]
    return "a binary file" if sample.count(0) > len(sample) / 100 else None


def _zip_kind(raw: bytes) -> str:
    head = raw[:TEXT_SAMPLE]
    if b"xl/" in head:
        return "an Excel workbook (name it .xlsx)"
    if b"application/vnd.oasis.opendocument.spreadsheet" in head:
        return "an OpenDocument workbook (name it .ods)"
    return "a zip archive (name it .zip)"


def decoded(raw: bytes, file: str, log: ProblemLog) -> str:
    """The file's text: UTF-8 (with or without its mark), UTF-16 with its byte order mark (a
    spreadsheet's "Unicode text"), else Windows-1252 (older spreadsheets in western Europe),
    which is said in a warning since it is a guess."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        text = raw.decode("cp1252", errors="replace")
        where = f"byte {error.start}"
        log.warn(file, where, "encoding", "UTF-8", "other bytes: read as Windows-1252 (Latin-1)")
        return text


DELIMITERS = (",", ";", "\t", "|")


def delimiter_of(content: str, file: str, log: ProblemLog) -> str:
    """The separator the header row uses most: ',' unless ';', a tab or '|' is more common
    (said in a warning, so a wrong guess is seen)."""
    header = content.lstrip("\ufeff").split("\n", 1)[0]
    counts = {delimiter: header.count(delimiter) for delimiter in DELIMITERS}
    found = max(DELIMITERS, key=lambda d: (counts[d], d == ","))
    if found != "," and counts[found] > counts[","]:
        shown = {"\t": "a tab"}.get(found, repr(found))
        log.warn(file, "header", "", "cells separated by ','", f"{shown}: read with it")
        return found
    return ","


def xml_root(path: Path, file: str, tag: str, log: ProblemLog) -> Element | None:
    """The document element, namespaces stripped; None (logged) for unreadable or unsafe XML."""
    expected = f"a {tag.upper()} document (XML without DTD or entity declarations)"
    try:
        root = defusedxml.ElementTree.fromstring(path.read_bytes(), forbid_dtd=True)
    except (OSError, ParseError, defusedxml.DefusedXmlException) as error:
        log.error(file, "", "", expected, f"{type(error).__name__}: {error}")
        return None
    for element in root.iter():
        if isinstance(element.tag, str):
            element.tag = element.tag.rpartition("}")[2]
    if root.tag != tag:
        log.error(file, "", "", f"{expected}, whose root element is <{tag}>", f"<{root.tag}>")
        return None
    return root


# Headers -----------------------------------------------------------------------------------


def csv_layer(header: Sequence[str]) -> str:
    """The layer a table's header names: ACLED's columns are events, a destination a convoy's,
    count, kind and what a figure's; places otherwise."""
    names = {name.lower() for name in header}
    if names >= ACLED_MARKERS:
        return "events"
    if "destination" in names:
        return "convoys"
    if {"count", "kind", "what"} <= names:
        return "figures"
    return "places"


def filled(row: Row) -> bool:
    """Whether a row has a cell that is not blank."""
    return any(cell.strip() for cell in row[1])


def csv_keys(
    header: list[str],
    layer: str,
    file: str,
    log: ProblemLog,
    *,
    acled: bool,
    where: str = "",
    columns: Sequence[str] = (),
) -> list[str | None]:
    """The cell key of each column: renamed, or None for a column that is not read."""
    spot = where + "header"
    keys: list[str | None] = []
    for number, name in enumerate(header, start=1):
        if not name:
            column = columns[number - 1] if number <= len(columns) else number
            log.error(file, spot, f"column {column}", "a column name", "an empty one")
            keys.append(None)
        elif name in header[: number - 1]:
            log.error(file, spot, name, "each column name once", "a second column so named")
            keys.append(None)
        elif acled and name.lower() in ACLED_DROPPED:
            keys.append(None)
        else:
            keys.append(ACLED_FIELDS.get(name.lower(), name) if acled else name)
    if LAYER_GEOMETRY[layer] == POINT and not acled:
        _alias(keys, "latitude", LATITUDE_ALIASES)
        _alias(keys, "longitude", LONGITUDE_ALIASES)
    return keys


def checked_keys(
    keys: list[str | None], file: str, where: str, log: ProblemLog
) -> list[str | None]:
    """A tagged table's keys, a second column of one key not read (said in `log`)."""
    seen: set[str] = set()
    checked: list[str | None] = []
    for key in keys:
        if key is not None and key in seen:
            log.error(
                file, where + "header", key, "each column name once", "a second column so named"
            )
            key = None
        checked.append(key)
        seen |= {key} if key else set()
    return checked


def _alias(keys: list[str | None], target: str, aliases: Sequence[str]) -> None:
    """Name the first column spelled as one of `aliases` (any case) `target`, unless one is."""
    if target in keys:
        return
    for index, key in enumerate(keys):
        if key is not None and key.lower() in aliases:
            keys[index] = target
            return
