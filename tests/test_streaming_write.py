"""An import's write in batches (issue 40): its events and change-log rows written BATCH_ROWS at a
time, all or nothing, on both stores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from geo import changes, importing
from geo.changes.log import log_text
from geo.event_table import EventTable
from geo.records import Scenario
from geo.store import Workspace, geopackage, layout
from geo.store.geopackage import GeoPackageWorkspace
from tests.test_streaming_import import ACLED, event, write


def imported(
    workspace: Workspace, tiny: Scenario, path: Path, rows: int, first: int = 1
) -> importing.Prepared:
    """`rows` new events prepared from an ACLED file against the workspace's scenario."""
    write(path, ACLED, [event(n) for n in range(first, first + rows)])
    prepared = importing.prepare(path, workspace.load(tiny.id), who="tester")
    assert isinstance(prepared.records["events"], EventTable)  # (the batched path)
    return prepared


@pytest.mark.parametrize("rewrite", [False, True], ids=["appended", "layer-written-anew"])
def test_an_import_written_in_batches_stores_and_logs_every_event_in_order(
    new_workspace: Workspace,
    tiny: Scenario,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    rewrite: bool,
) -> None:
    if rewrite and not isinstance(new_workspace, GeoPackageWorkspace):
        pytest.skip("a GeoPackage's layer written anew with the rows it held")
    new_workspace.save(tiny)
    earlier = imported(new_workspace, tiny, tmp_path / "earlier.csv", 3, first=20)
    importing.commit_import(new_workspace, tiny.id, earlier, who="tester")
    held = list(new_workspace.load(tiny.id).events)
    monkeypatch.setattr(layout, "BATCH_ROWS", 2)  # 5 events: batches of 2, 2 and 1
    monkeypatch.setattr(geopackage, "REWRITE_AT", 1 if rewrite else 10**9)  # (3 held < 5)
    prepared = imported(new_workspace, tiny, tmp_path / "a.csv", 5)
    sizes: list[int] = []
    real = changes.log._added_log
    monkeypatch.setattr(
        changes.log,
        "_added_log",
        lambda added, *rest: sizes.append(len(added)) or real(added, *rest),
    )
    made = importing.commit_import(new_workspace, tiny.id, prepared, who="tester")
    assert sizes == [2, 2, 1]  # (the log's JSON made a batch at a time)

    loaded = new_workspace.load(tiny.id)
    new = [f"SYR{n}" for n in range(1, 6)]
    assert [e.id for e in loaded.events] == ["SYR20", "SYR21", "SYR22", *new]
    assert list(loaded.events) == [*held, *prepared.records["events"]]
    logged = [c for c in changes.history(new_workspace, tiny.id) if c.layer == "events"][3:]
    assert [(c.action, c.record_id) for c in logged] == [("add", rid) for rid in new]
    told = [json.loads(log_text(c.new)) for c in made if c.layer == "events"]
    assert [c.new for c in logged] == told  # (each batch's JSON as the whole's)
    assert logged[2].new["notes"] == "Event 3."  # (a row after the first batch, whole)

    changes.undo(new_workspace, tiny.id, who="tester")
    assert list(new_workspace.load(tiny.id).events) == held


def _failing_after(calls: int, real: Any) -> Any:
    """`real`, which raises once it has been called `calls` times (a write cut short)."""
    made = []

    def failing(*args: Any, **kwargs: Any) -> Any:
        if len(made) == calls:
            raise OSError("disk full (a test's failure, mid-import)")
        made.append(1)
        return real(*args, **kwargs)

    return failing


def test_an_import_failing_after_its_first_batches_leaves_the_workspace_as_it_was(
    new_workspace: Workspace, tiny: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_workspace.save(tiny)
    earlier = imported(new_workspace, tiny, tmp_path / "earlier.csv", 3, first=20)
    importing.commit_import(new_workspace, tiny.id, earlier, who="tester")  # (a log to keep)
    before, logged = new_workspace.version(), changes.history(new_workspace)
    held = list(new_workspace.load(tiny.id).events)
    monkeypatch.setattr(layout, "BATCH_ROWS", 2)
    prepared = imported(new_workspace, tiny, tmp_path / "a.csv", 5)
    # the events written, then the change log's second batch fails
    monkeypatch.setattr(changes.log, "_added_log", _failing_after(1, changes.log._added_log))
    with pytest.raises(OSError, match="disk full"):
        importing.commit_import(new_workspace, tiny.id, prepared, who="tester")

    assert list(new_workspace.load(tiny.id).events) == held
    assert changes.history(new_workspace) == logged
    if isinstance(new_workspace, GeoPackageWorkspace):
        assert new_workspace.version() == before
        assert sorted(p.name for p in tmp_path.iterdir() if "workspace" in p.name) == [
            "workspace.dumps",
            "workspace.gpkg",
            "workspace.gpkg.lock",
        ]  # fmt: skip  (no copy left half-written)


@pytest.mark.geopackage_only
def test_a_geopackage_import_failing_in_its_events_stream_leaves_the_file_as_it_was(
    new_workspace: Workspace, tiny: Scenario, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    new_workspace.save(tiny)
    before = new_workspace.version()
    monkeypatch.setattr(layout, "BATCH_ROWS", 2)
    prepared = imported(new_workspace, tiny, tmp_path / "a.csv", 5)
    real = geopackage.event_batches

    def cut_short(*args: Any) -> Any:
        made = real(*args)
        yield next(made)
        yield next(made)
        raise OSError("disk full (a test's failure, in the events' stream)")

    monkeypatch.setattr(geopackage, "event_batches", cut_short)
    with pytest.raises(OSError, match="disk full"):
        importing.commit_import(new_workspace, tiny.id, prepared, who="tester")
    assert new_workspace.version() == before
    assert list(new_workspace.load(tiny.id).events) == list(tiny.events)
    assert [c.layer for c in changes.history(new_workspace)] == []
