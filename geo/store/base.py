"""The store interface: what the app and the command line ask of a workspace; the shared load."""

from __future__ import annotations

import abc
import contextlib
import ctypes
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pandas as pd
import pyarrow
import pyarrow.compute as pc

from geo import _fields as f
from geo import _schema as s
from geo import event_table
from geo._collector import pausing
from geo._fields import Spot
from geo.builder import assemble, meta_fields
from geo.errors import ProblemLog, ScenarioNotFoundError
from geo.event_table import EventTable
from geo.records import Scenario
from geo.store.frames import as_stored, point_cells, row_cells
from geo.store.layout import (
    EVENTS_LAYER,
    LAYERS,
    POINT_KINDS,
    SCENARIO_ID,
    SCENARIOS_LAYER,
    Layer,
    LayerInfo,
    Window,
)

T = TypeVar("T")
Version = tuple[int, int, int]
"""What changes whenever a workspace is written (see `Workspace.version`)."""
LOCK_SECONDS = 15.0
"""How long a writer waits for another process's transaction before giving up."""
LOADED_KEPT = 4
"""Scenarios kept as last read (see `Workspace.load`), oldest dropped first."""
_LOADED: dict[tuple[str, Version | None, str | None], Scenario] = {}
_LOADED_LOCK = threading.Lock()  # Streamlit serves each session from its own thread


class Notifications(Protocol):
    """Writes to a shared workspace, counted as they come (`geo.store.listener.Listener`)."""

    count: int
    problem: str

    def offer(self, url: str) -> None: ...

    def stop(self) -> None: ...


class Batches:
    """Rows for a table that is not a scenario table (the change log), made a frame at a time
    as they are written: `make()` gives the frames again at each write (one of several tries)."""

    def __init__(self, columns: Sequence[str], make: Callable[[], Iterator[pd.DataFrame]]) -> None:
        self.columns, self._make = list(columns), make

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return self._make()


TableRows = pd.DataFrame | Batches
"""Rows to add to another table: a frame, or frames made as they are written."""


def batches(rows: TableRows) -> Iterator[pd.DataFrame]:
    """The rows a frame at a time."""
    return iter([rows]) if isinstance(rows, pd.DataFrame) else iter(rows)


def whole(rows: TableRows) -> pd.DataFrame:
    """The rows as one frame (a workspace saved whole)."""
    if isinstance(rows, pd.DataFrame):
        return rows
    frames = list(rows)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


class RecordWriter(abc.ABC):
    """A backend's steps of `Workspace.write_records`, which takes them in this order: the
    records of one scenario removed by id, records added layer by layer, the updated ones
    given back their places, rows added to other tables (the change log), the write done."""

    @abc.abstractmethod
    def remove(self, drop: dict[str, set[str]]) -> None:
        """Remove the scenario's records with these ids, by layer (none empty), noting the
        place each had."""

    @abc.abstractmethod
    def add(self, layer: Layer, records: Sequence[Any]) -> None:
        """Add the scenario's records of a layer (records, or an EventTable: written
        BATCH_ROWS at a time, never made one frame)."""

    @abc.abstractmethod
    def put_back(self) -> None:
        """Give the records removed and added again (updated) the places they had."""

    @abc.abstractmethod
    def append(self, name: str, rows: TableRows) -> None:
        """Add rows to a table that is not a scenario table (made when missing), a batch at a
        time."""

    @abc.abstractmethod
    def finish(self) -> Version:
        """The last touches of the write; the version of the workspace it makes."""


class Workspace(abc.ABC):
    """A store of scenarios, one layer per record type: a GeoPackage file
    (`geo.store.geopackage`) or a PostGIS schema (`geo.store.postgis`); open one with
    `geo.store.open_workspace`.

    Writers hold the workspace's lock (`transaction`) for a whole read-change-write, so that
    edits from two sessions or processes are applied one after the other; every read of one
    `settled` block sees one state of the workspace. `load` (shared by every backend) reads a
    scenario through `table` and `_events_arrow` and checks it by the rules of a scenario folder.
    """

    path: Path
    """Where this machine keeps the workspace's file (a shared store: the file its dumps of
    scenarios are kept beside, `geo.changes`)."""

    # Where it is, and who opens it ---------------------------------------------------------

    @property
    @abc.abstractmethod
    def label(self) -> str:
        """The workspace as messages name it (a URL without its password)."""

    @property
    @abc.abstractmethod
    def location(self) -> Path | str:
        """What `open_workspace` opens this workspace again from: a path, or a URL."""

    @property
    @abc.abstractmethod
    def shared(self) -> bool:
        """Whether a team shares the workspace over a database (roles, sign-in, notifications)."""

    @abc.abstractmethod
    def without_login(self) -> str:
        """The location without any role or password: what every session's login shares."""

    @abc.abstractmethod
    def signed_in(self) -> tuple[str, str]:
        """The role the workspace is opened as and its team role ("admin", "editor",
        "viewer"; "owner" for a superuser, "" for none); ("", "") where there are no roles."""

    @abc.abstractmethod
    def sign_in(self, role: str, password: str, *, unchecked: bool = False) -> str:
        """The location opened as `role` once its password is checked; WorkspaceError when
        refused, or when the workspace has no roles."""

    @abc.abstractmethod
    def sign_out(self) -> None:
        """Forget what this process keeps for this location's login (kept connections)."""

    @abc.abstractmethod
    def listener(self) -> Notifications | None:
        """A listener counting the workspace's writes as they come; None where none are sent."""

    @abc.abstractmethod
    def author(self, who: str) -> str:
        """The name a change is logged under: `who` as given, or the team member's own role."""

    # State, lock and snapshots -------------------------------------------------------------

    @abc.abstractmethod
    def exists(self) -> bool:
        """Whether the workspace is there at all (a file; a schema holding layers)."""

    @abc.abstractmethod
    def version(self) -> Version | None:
        """What changes whenever the workspace is written; None when there is none."""

    @abc.abstractmethod
    def modified(self) -> float:
        """A number that changes whenever the workspace is written; 0 when there is none."""

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Hold the workspace's write lock; WorkspaceLockedError when another keeps it."""

    @abc.abstractmethod
    def holds_lock(self) -> bool:
        """Whether this process (a PostGIS workspace: this thread) holds the write lock."""

    @abc.abstractmethod
    def settled(self, read: Callable[[], T]) -> T:
        """`read()` seeing one state of the workspace (tried again, or in one snapshot)."""

    # Reads ---------------------------------------------------------------------------------

    @abc.abstractmethod
    def layer_names(self) -> set[str]:
        """The names of the layers the workspace holds."""

    @abc.abstractmethod
    def table(self, name: str) -> pd.DataFrame:
        """One layer, every scenario's rows in order (a GeoDataFrame if it has shapes)."""

    @abc.abstractmethod
    def rows_after(self, layer: str, position: int) -> pd.DataFrame:
        """A layer's rows whose feature id is above `position`, in order (none: no layer)."""

    @abc.abstractmethod
    def last_position(self, layer: str) -> int:
        """The largest feature id of a layer (0 when it is empty or missing)."""

    @abc.abstractmethod
    def rows_in_window(self, window: Window) -> pd.DataFrame:
        """The rows of a large layer in a window (`geo.store.windows.rows_in` makes it exact)."""

    @abc.abstractmethod
    def added_values(
        self, layer: str, scenario_id: str, ids: Collection[str]
    ) -> dict[str, dict[str, Any]]:
        """Values of fields another program added to a layer, of the records with these ids
        that hold any: what an undo of their delete puts back (`restore_added`)."""

    @abc.abstractmethod
    def export_layers(self) -> list[tuple[LayerInfo, pyarrow.Table]]:
        """Every layer as Arrow, feature ids (`fid`) and geometry (WKB `geom`) included."""

    # Writes --------------------------------------------------------------------------------

    @abc.abstractmethod
    def append_rows(self, layer: str, frame: pd.DataFrame, geometry_type: str | None) -> None:
        """Add rows to a layer (made when missing) that is not a scenario table."""

    @abc.abstractmethod
    def save(self, scenario: Scenario, *, append: dict[str, TableRows] | None = None) -> None:
        """Add the scenario, or replace the one with its id, all or nothing; `append` adds
        rows to other tables (the change log) in the same write."""

    def write_records(
        self,
        scenario: Scenario,
        put: Mapping[str, Sequence[Any]],
        drop: dict[str, set[str]],
        *,
        append: dict[str, TableRows] | None = None,
    ) -> None:
        """Write only what an edit changed, all or nothing: remove the `drop` ids, add the
        `put` records (an updated one keeps its place in the layer) and the `append` rows.

        One algorithm for every backend, which supplies its steps (`_record_writer`); a
        workspace the backend cannot write a part of is saved whole (`_save`). The scenario
        written is given to the next load of the version it made, when reading it back would
        give the same records (`geo.store.frames.as_stored`).
        """
        append = append or {}
        with self.transaction():
            with self._record_writer(scenario.id, put, append) as writer:
                if writer is None:
                    self._save(scenario, append)
                    return
                writer.remove({name: ids for name, ids in drop.items() if ids})
                for layer in LAYERS:
                    if put.get(layer.kind.name):
                        writer.add(layer, put[layer.kind.name])
                writer.put_back()
                for name, rows in append.items():
                    writer.append(name, rows)
                written = writer.finish()
            if as_stored(put):  # what reading it back gives: checked edits, times as stored
                self._remember(scenario, written, scenario.id)

    @abc.abstractmethod
    def restore_added(
        self, layer: str, scenario_id: str, values: Mapping[str, Mapping[str, Any]]
    ) -> None:
        """Put back `added_values` on the records with these ids (fields gone are let go)."""

    @abc.abstractmethod
    def import_layers(
        self, layers: list[tuple[LayerInfo, pyarrow.Table]], *, replace: bool = False
    ) -> list[str]:
        """Make the workspace of `export_layers`' layers, all or nothing (one holding a
        workspace already only with `replace`); each layer copied with its row count."""

    # What each backend does for the shared write -------------------------------------------

    @abc.abstractmethod
    def _save(self, scenario: Scenario, append: dict[str, TableRows]) -> None:
        """`save` under the lock this thread holds already."""

    @abc.abstractmethod
    def _record_writer(
        self,
        scenario_id: str,
        put: Mapping[str, Sequence[Any]],
        append: Mapping[str, TableRows],
    ) -> contextlib.AbstractContextManager[RecordWriter | None]:
        """The steps of one `write_records` of these records and rows, written all together
        when the block ends without an error (nothing otherwise); None when the workspace
        is to be saved whole instead (in the block, so in the same write)."""

    # What each backend tells the shared load -----------------------------------------------

    @abc.abstractmethod
    def _cache_key(self) -> str:
        """What tells this workspace from others in the cache of scenarios last read."""

    @abc.abstractmethod
    def _spot_file(self, layer: str) -> str:
        """The 'file' a problem found in a layer is told in."""

    @abc.abstractmethod
    def _events_arrow(self, scenario_id: str, columns: list[str]) -> tuple[str, pyarrow.Table]:
        """The events layer's `columns` and geometry (WKB; the scenario's rows at least, in
        the layer's order), and the geometry column's name ("" when none is named)."""

    # The shared load -----------------------------------------------------------------------

    def scenario_ids(self) -> list[str]:
        """The ids of the scenarios in the workspace, sorted."""
        return self.settled(self._scenario_ids)

    def _scenario_ids(self) -> list[str]:
        """The scenario ids as read now (no snapshot of its own)."""
        if not self.exists() or SCENARIOS_LAYER not in self.layer_names():
            return []
        return sorted(str(value) for value in self.table(SCENARIOS_LAYER)[SCENARIO_ID])

    def load(self, scenario_id: str | None = None) -> Scenario:
        """One scenario, checked by the same rules as a scenario folder.

        A scenario read from the same file (path, inode, modification time and size: every
        save swaps in a new file) is given again without reading it: records are immutable,
        and a 100,000-event scenario took 4 s to read and check. A commit's `write_records`
        gives the scenario it wrote to the next load of the file it made (its edits were
        checked by the same rules; not when a time it wrote has more than milliseconds).
        """
        key = (self._cache_key(), self.version(), scenario_id)
        with _LOADED_LOCK:
            found = _LOADED.get(key) if key[1] is not None else None
        if found is not None:
            return found
        scenario = self.settled(lambda: self._load(scenario_id))
        if key[1] is not None and self.version() == key[1]:  # not saved meanwhile
            self._remember(scenario, key[1], scenario.id)
            if scenario_id is None:  # (the only scenario: asked for by no id, or by its own)
                self._remember(scenario, key[1], None)
        return scenario

    def _remember(self, scenario: Scenario, version: Version, scenario_id: str | None) -> None:
        """Give `scenario` to the next load of this version of the file (an older version of
        the same file and scenario goes)."""
        key = (self._cache_key(), version, scenario_id)
        with _LOADED_LOCK:
            for stale in [k for k in _LOADED if (k[0], k[2]) == (key[0], key[2])]:
                del _LOADED[stale]
            _LOADED[key] = scenario
            while len(_LOADED) > LOADED_KEPT:
                del _LOADED[next(iter(_LOADED))]

    @pausing
    def _load(self, scenario_id: str | None) -> Scenario:
        """The scenario read and checked (no cache): its events as columns where they can be."""
        scenario_id = self._resolve(scenario_id)
        log = ProblemLog()
        meta = self._meta(scenario_id, log)
        present = self.layer_names()
        raws = {
            layer.kind: self._raws(layer, scenario_id) if layer.kind.name in present else []
            for layer in LAYERS
            if layer.kind is not s.EVENTS
        }
        sources = raws.pop(s.SOURCES)
        events = None
        if s.EVENTS.name in present:
            events = self._event_table(scenario_id, s.raw_ids(sources))
            if events is None:  # (a cell to refuse: each problem told by row)
                raws[s.EVENTS] = self._raws(EVENTS_LAYER, scenario_id)
        _give_back_memory()  # (what reading the layers freed: the checks below need more)
        scenario = assemble(meta, sources, raws, log)
        log.raise_if_errors(f"{self.label} (scenario {scenario_id!r})")
        assert scenario is not None
        if events is None:  # (read row by row: kept as columns all the same)
            events = EventTable.from_records(scenario.events)
        _give_back_memory()
        return replace(scenario, events=events)

    def _event_table(self, scenario_id: str, sources: set[str]) -> EventTable | None:
        """The scenario's events read as columns and checked a column at a time (100,000
        events as records took 4 s and 336 MB to load); None when a row must be looked at.

        The whole layer is read in its order and the scenario's rows picked here (asking
        GDAL for them went through the time index: 1,000,000 rows took 2.1 s, then 1.0 s to
        put back in order, where the whole layer took 0.4 s)."""
        wanted = [SCENARIO_ID, *s.field_names(s.EVENTS)]
        geometry_name, table = self._events_arrow(
            scenario_id, [n for n in wanted if n not in ("latitude", "longitude")]
        )
        if table.schema.field(SCENARIO_ID).type != pyarrow.string() or any(
            pyarrow.types.is_temporal(field.type) for field in table.schema
        ):  # (a layer written empty, or by another program with typed dates: row by row)
            return None
        if not geometry_name and "wkb_geometry" not in table.column_names:
            return None
        mine = pc.fill_null(pc.equal(table.column(SCENARIO_ID), scenario_id), False)
        if not pc.all(mine).as_py():  # (a row without a scenario id is nobody's)
            table = table.filter(mine)
        geometry = table.column(geometry_name or "wkb_geometry").combine_chunks()
        columns = {name: table.column(name).combine_chunks() for name in table.column_names}
        return event_table.checked(columns, geometry, s.Known(sources=sources))

    def _resolve(self, scenario_id: str | None) -> str:
        """The id asked for, or the only scenario's; ScenarioNotFoundError naming those held."""
        ids = self.scenario_ids()
        if scenario_id is None and len(ids) == 1:
            return ids[0]
        if scenario_id in ids:
            return scenario_id
        found = ", ".join(ids) or "none"
        asked = "a scenario id" if scenario_id is None else repr(scenario_id)
        raise ScenarioNotFoundError(
            f"{self.label}: expected {asked} among the workspace's scenarios, found: {found}"
        )

    def _meta(self, scenario_id: str, log: ProblemLog) -> dict[str, Any]:
        """The scenario's row of the scenarios layer, parsed (problems told in `log`)."""
        table = self.table(SCENARIOS_LAYER)
        row = row_cells(table[table[SCENARIO_ID] == scenario_id])[0]
        row["id"] = row.pop(SCENARIO_ID)
        spot = Spot(self._spot_file(SCENARIOS_LAYER), f"scenario {scenario_id!r}")
        return f.parse_fields(row, meta_fields(), spot, log) or {}

    def _raws(self, layer: Layer, scenario_id: str) -> list[s.RawRecord]:
        """The scenario's rows of a layer as raw records, each with where it was read."""
        table = self.table(layer.kind.name)
        rows = table[table[SCENARIO_ID] == scenario_id]
        geometries = list(rows.geometry) if layer.geometry_type else [None] * len(rows)
        raws = []
        for cells, geometry in zip(row_cells(rows), geometries, strict=True):
            spot = Spot(self._spot_file(layer.kind.name), f"id {cells.get('id')!r}")
            if layer.kind in POINT_KINDS and geometry is not None:
                cells["longitude"], cells["latitude"] = point_cells(geometry)
                geometry = None
            raws.append(s.RawRecord(spot, cells, geometry))
        return raws


def _give_back_memory() -> None:
    """Hand back to the system the memory a load freed (Arrow's pool and C's heap keep it for
    later use otherwise): loading 100,000 events peaked at 388 MB and held 370 MB after, now
    331 and 279 MB (the dashboard server's peak: 404 -> 348 MB)."""
    pyarrow.default_memory_pool().release_unused()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _libc() -> Any:
    """glibc, for malloc_trim; None elsewhere (another C library, another system)."""
    try:
        found = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return found if hasattr(found, "malloc_trim") else None


_LIBC = _libc()
