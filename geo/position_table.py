"""Position reports as columns: a live feed or a workspace's reports without a record per report.

A `PositionTable` is a `Sequence[Position]`: indexing makes the one record asked for, so code
that reads a few reports (the latest of each convoy) keeps reading records, while tracking,
the map's trails and the workspace read and write its columns. A million reports take about
40 bytes each here against about 400 as `Position` records.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, overload

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from geo.records import Position

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_NO_ROWS: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class PositionTable(Sequence[Position]):
    """Reports as columns, one row each; `convoys` names the convoy codes of `code`."""

    convoys: tuple[str, ...]
    code: npt.NDArray[np.int32]
    ns: npt.NDArray[np.int64]
    """When, in nanoseconds since 1970 UTC (whole microseconds, as datetimes hold them)."""
    latitude: npt.NDArray[np.float64]
    longitude: npt.NDArray[np.float64]
    speed_kmh: npt.NDArray[np.float64]
    """NaN where the report gives no speed."""
    note: pa.Array
    """Text; "" where there is none."""

    @classmethod
    def empty(cls) -> PositionTable:
        return cls.of(())

    @classmethod
    def of(cls, reports: Iterable[Position]) -> PositionTable:
        """The table of these records, in their order."""
        if isinstance(reports, PositionTable):
            return reports
        listed = list(reports)
        names, code = _factorised([report.convoy for report in listed])
        return cls(
            names,
            code,
            np.array([nanoseconds(r.time) for r in listed], dtype=np.int64),
            np.array([r.latitude for r in listed], dtype=np.float64),
            np.array([r.longitude for r in listed], dtype=np.float64),
            np.array([np.nan if r.speed_kmh is None else r.speed_kmh for r in listed], dtype=float),
            pa.array([r.note for r in listed], type=pa.string()),
        )

    @classmethod
    def from_columns(
        cls,
        convoy: pd.Series,
        time: pd.Series,
        latitude: Any,
        longitude: Any,
        speed_kmh: pd.Series,
        note: pd.Series,
    ) -> PositionTable:
        """The table of a frame's columns (times aware or naive UTC; missing speeds and notes
        allowed), without a Python object per row."""
        codes, uniques = pd.factorize(convoy, use_na_sentinel=False)
        moments = pd.to_datetime(time, utc=True).dt.tz_localize(None).astype("datetime64[ns]")
        speeds = pd.to_numeric(speed_kmh, errors="raise").astype(float)
        return cls(
            tuple(str(name) for name in uniques),
            np.asarray(codes, dtype=np.int32),
            moments.to_numpy().view(np.int64),
            np.asarray(latitude, dtype=np.float64),
            np.asarray(longitude, dtype=np.float64),
            np.asarray(speeds.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64),
            pc.fill_null(pa.array(note, type=pa.string(), from_pandas=True), ""),
        )

    # The sequence of records ---------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.ns)

    @overload
    def __getitem__(self, index: int) -> Position: ...
    @overload
    def __getitem__(self, index: slice) -> PositionTable: ...
    def __getitem__(self, index: int | slice) -> Position | PositionTable:
        if isinstance(index, slice):
            return self.take(np.arange(len(self))[index])
        row = range(len(self))[index]  # (negative indexes; IndexError past the end)
        speed = float(self.speed_kmh[row])
        return Position(
            self.convoys[self.code[row]],
            moment(int(self.ns[row])),
            float(self.latitude[row]),
            float(self.longitude[row]),
            None if np.isnan(speed) else speed,
            self.note[row].as_py(),
        )

    def __iter__(self) -> Iterator[Position]:
        return (self[row] for row in range(len(self)))

    def __eq__(self, other: object) -> bool:
        """Equal to a sequence of the same reports in the same order (a list of records, say)."""
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PositionTable({len(self)} reports of {len(self.convoys)} convoys)"

    # Columns ---------------------------------------------------------------------------------

    def take(self, rows: npt.ArrayLike) -> PositionTable:
        """The table of these rows, in this order."""
        picked = np.asarray(rows, dtype=np.int64)
        return PositionTable(
            self.convoys,
            self.code[picked],
            self.ns[picked],
            self.latitude[picked],
            self.longitude[picked],
            self.speed_kmh[picked],
            self.note.take(pa.array(picked, type=pa.int64())),
        )

    def then(self, other: PositionTable) -> PositionTable:
        """This table's rows followed by the other's."""
        names = dict.fromkeys(self.convoys)
        names.update(dict.fromkeys(other.convoys))
        merged = tuple(names)
        index = {name: number for number, name in enumerate(merged)}
        recoded = np.array([index[name] for name in other.convoys], dtype=np.int32)
        return PositionTable(
            merged,
            np.concatenate([self.code, recoded[other.code]]).astype(np.int32),
            np.concatenate([self.ns, other.ns]),
            np.concatenate([self.latitude, other.latitude]),
            np.concatenate([self.longitude, other.longitude]),
            np.concatenate([self.speed_kmh, other.speed_kmh]),
            pa.concat_arrays([self.note, other.note]),
        )

    def by_time(self) -> PositionTable:
        """The rows oldest first; rows of one moment in their order."""
        order = np.argsort(self.ns, kind="stable")
        if (order == np.arange(len(order))).all():
            return self
        return self.take(order)

    def convoy_names(self) -> npt.NDArray[np.object_]:
        """Each row's convoy id (one object per distinct id, shared by its rows)."""
        return np.asarray(self.convoys, dtype=object)[self.code]

    @functools.cached_property
    def _groups(self) -> dict[str, npt.NDArray[np.int64]]:
        order = np.lexsort((self.ns, self.code))
        bounds = np.searchsorted(self.code[order], np.arange(len(self.convoys) + 1))
        return {
            name: order[bounds[number] : bounds[number + 1]]
            for number, name in enumerate(self.convoys)
            if bounds[number + 1] > bounds[number]
        }

    def rows_of(self, convoy_id: str) -> npt.NDArray[np.int64]:
        """The rows of one convoy, oldest first (rows of one moment in their order)."""
        return self._groups.get(convoy_id, _NO_ROWS)

    def rows_until(self, convoy_id: str, at: datetime) -> npt.NDArray[np.int64]:
        """The rows of one convoy at or before `at`, oldest first."""
        rows = self.rows_of(convoy_id)
        return rows[: int(np.searchsorted(self.ns[rows], nanoseconds(at), side="right"))]

    def counts(self) -> dict[str, int]:
        """How many rows each convoy has, for the convoys that have any, the convoy of the
        oldest report first."""
        groups = sorted(self._groups.items(), key=lambda item: int(self.ns[item[1][0]]))
        return {name: len(rows) for name, rows in groups}

    def latest_ns(self) -> int | None:
        return int(self.ns.max()) if len(self) else None

    # Telling reports apart -----------------------------------------------------------------

    def keys(self) -> npt.NDArray[np.uint64]:
        """A 64-bit hash of each row's facts: equal rows (as `Position` records compare) have
        equal keys; rows with equal keys are compared in full by `same_as`."""
        names = pd.util.hash_array(np.asarray(self.convoys, dtype=object))
        notes = self.note.to_numpy(zero_copy_only=False)
        parts = [
            names[self.code] if len(self.convoys) else np.zeros(len(self), np.uint64),
            self.ns.view(np.uint64),
            _float_bits(self.latitude),
            _float_bits(self.longitude),
            _float_bits(self.speed_kmh),
            pd.util.hash_array(notes, categorize=True) if len(self) else np.zeros(0, np.uint64),
        ]
        key = np.zeros(len(self), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for part in parts:
                key = pd.util.hash_array(key * np.uint64(1_000_003) ^ part)
        return key

    def same_as(
        self, rows: npt.NDArray[np.int64], other: PositionTable, others: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.bool_]:
        """Whether each of these rows holds the same report as the other table's row beside it."""
        mine, theirs = self.convoy_names()[rows], other.convoy_names()[others]
        speeds = self.speed_kmh[rows], other.speed_kmh[others]
        notes = pc.equal(self.note.take(rows), other.note.take(others)).to_numpy(
            zero_copy_only=False
        )
        return np.asarray(
            (mine == theirs)
            & (self.ns[rows] == other.ns[others])
            & (self.latitude[rows] == other.latitude[others])
            & (self.longitude[rows] == other.longitude[others])
            & ((speeds[0] == speeds[1]) | (np.isnan(speeds[0]) & np.isnan(speeds[1])))
            & notes,
            dtype=bool,
        )


def moment(ns: int) -> datetime:
    """The UTC datetime of nanoseconds since 1970 (whole microseconds)."""
    return EPOCH + timedelta(microseconds=ns // 1000)


FIRST, LAST = datetime(1678, 1, 1, tzinfo=UTC), datetime(2261, 12, 31, 23, 59, 59, tzinfo=UTC)
"""The moments a table holds (nanoseconds in 64 bits reach from 1677-09-21 to 2262-04-11)."""


def nanoseconds(at: datetime) -> int:
    """Nanoseconds since 1970 UTC of an aware datetime from FIRST to LAST (ValueError beyond:
    a report of the year 2300 is not wrapped round to 1715)."""
    if not FIRST <= at <= LAST:
        raise ValueError(f"a position's time must lie from {FIRST:%Y} to {LAST:%Y}, got {at!r}")
    return (at - EPOCH) // timedelta(microseconds=1) * 1000


def _factorised(names: list[str]) -> tuple[tuple[str, ...], npt.NDArray[np.int32]]:
    index: dict[str, int] = {}
    code = np.array([index.setdefault(name, len(index)) for name in names], dtype=np.int32)
    return tuple(index), code


def _float_bits(values: npt.NDArray[np.float64]) -> npt.NDArray[np.uint64]:
    """The bits of each float, with -0.0 as 0.0 and every NaN as one (they compare so)."""
    plain = np.where(np.isnan(values), np.nan, values + 0.0)
    return np.ascontiguousarray(plain, dtype=np.float64).view(np.uint64)


class HeldReports:
    """The reports a feed holds, oldest first, and which of some new ones are not among them."""

    def __init__(self, kept: PositionTable) -> None:
        self.table = PositionTable.empty()
        self._keys = np.zeros(0, dtype=np.uint64)
        self._order = _NO_ROWS
        self.add(kept.take(self.unseen(kept)))

    def unseen(self, fresh: PositionTable) -> npt.NDArray[np.int64]:
        """The rows of `fresh`, in order, that hold a report neither held nor in an earlier row
        (rows of one key are compared in full with every held row and earlier row of it)."""
        keys = fresh.keys()
        rows = np.arange(len(fresh), dtype=np.int64)
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        earlier = first[inverse]
        repeated = np.zeros(len(fresh), dtype=bool)
        twice = earlier != rows
        repeated[twice] = fresh.same_as(rows[twice], fresh, earlier[twice])
        for row in rows[twice & ~repeated]:  # (a key shared by different reports: rare)
            before = rows[:row][keys[:row] == keys[row]]
            repeated[row] = bool(fresh.same_as(np.full(len(before), row), fresh, before).any())
        if len(self._keys):
            low = np.searchsorted(self._keys, keys, side="left", sorter=self._order)
            high = np.searchsorted(self._keys, keys, side="right", sorter=self._order)
            single = (high - low == 1) & ~repeated
            held = self._order[np.minimum(low, len(self._keys) - 1)]
            repeated[single] = fresh.same_as(rows[single], self.table, held[single])
            for row in rows[(high - low > 1) & ~repeated]:
                candidates = self._order[low[row] : high[row]]
                same = fresh.same_as(np.full(len(candidates), row), self.table, candidates)
                repeated[row] = bool(same.any())
        return rows[~repeated]

    def add(self, fresh: PositionTable) -> None:
        """Hold these reports (already `unseen`), keeping the whole oldest first."""
        merged = self.table.then(fresh)
        order = np.argsort(merged.ns, kind="stable")
        self.table = merged.take(order)
        self._keys = np.concatenate([self._keys, fresh.keys()])[order]
        self._order = np.argsort(self._keys, kind="stable")
