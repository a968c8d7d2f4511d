"""A workspace in PostGIS: copied there and back equal, a schema a GIS user recognises, and a
team's roles that the database itself enforces.

Needs a PostgreSQL server with PostGIS (`make test` installs and creates it: `make postgis`);
the database is `CORRIDOR_TEST_POSTGIS`. Each test works in a schema of its own, dropped after.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pyogrio
import pytest
from conftest import POSTGIS, postgis_schema, shipped_workspace_in
from test_validators import validate_gpkg

from geo import changes, cli, store
from geo.changes import Edit
from geo.errors import WorkspaceError, WorkspaceLockedError
from geo.records import Position
from geo.store import GeocodeCache, Workspace, add_positions, open_workspace, team
from geo.store import postgis_sql as postgis

DATABASE = POSTGIS


@pytest.fixture(scope="module")
def database() -> str:
    return DATABASE


def in_schema(url: str, schema: str, role: str | None = None) -> str:
    """The URL of `schema` (first on the search path), connecting as `role` when given."""
    if role is not None:
        url = url.replace("://postgres@", f"://{role}@", 1)
    return f"{url}?options={quote(f'-csearch_path={schema},public')}"


@pytest.fixture
def schema() -> Iterator[str]:
    """A schema of this test's own, as a workspace URL; dropped after."""
    with postgis_schema() as url:
        yield url


@pytest.fixture
def shipped() -> Any:
    from conftest import SHIPPED_DIR

    from geo.scenario import read_scenario

    return read_scenario(SHIPPED_DIR)


@pytest.fixture
def rich_workspace(tmp_path: Path) -> Path:
    """The shipped scenario with what use adds: an edit in the change log, position reports
    and a geocoder's kept answers."""
    path = shipped_workspace_in(tmp_path)
    workspace = open_workspace(path)
    scenario_id = workspace.scenario_ids()[0]
    convoy = workspace.load(scenario_id).convoys[0].id
    changes.commit(
        workspace, scenario_id, [Edit("update", "convoys", convoy, {"status": "halted"})],
        who="ana", note="checkpoint closed",
    )  # fmt: skip
    start = datetime(2016, 12, 15, 12, 0, tzinfo=UTC)
    add_positions(workspace, scenario_id, [
        Position(convoy, start, 36.19, 37.13, 12.5, "«Ramouseh» roundabout"),
        Position(convoy, start + timedelta(minutes=4, milliseconds=250), 36.18, 37.12),
    ])  # fmt: skip
    GeocodeCache(workspace)["nominatim:al-amiriyah"] = {"lat": "36.17", "display_name": "عامرية"}
    return path


def layers_of(path: Path) -> dict[str, tuple[object, ...]]:
    """Every layer of a GeoPackage as GDAL reads it: rows, types, geometry type and CRS."""
    found = {}
    for name, _ in pyogrio.list_layers(path):
        meta, table = pyogrio.read_arrow(path, layer=name, return_fids=True)
        kinds = (tuple(meta["ogr_types"]), tuple(meta["ogr_subtypes"]))
        found[str(name)] = (table.to_pydict(), kinds, meta["geometry_type"], meta["crs"])
    return found


def test_a_workspace_copied_to_postgis_and_back_is_equal(
    rich_workspace: Path, schema: str, tmp_path: Path
) -> None:
    copied = store.copy_workspace(rich_workspace, schema)
    assert "positions: 2 rows" in copied
    back = tmp_path / "back.gpkg"
    store.copy_workspace(schema, back)
    assert layers_of(back) == layers_of(rich_workspace)
    assert {"changes", "positions", "geocode_cache"} <= set(layers_of(back))
    assert validate_gpkg(back) == ""
    original, returned = open_workspace(rich_workspace), open_workspace(back)
    scenario_id = original.scenario_ids()[0]
    assert returned.load(scenario_id) == original.load(scenario_id)
    assert changes.history(returned) == changes.history(original) != []


def test_postgis_to_postgis(rich_workspace: Path, schema: str, database: str) -> None:
    store.copy_workspace(rich_workspace, schema)
    other = f"t_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(database, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA {other}")
    try:
        store.copy_workspace(schema, in_schema(database, other))
        with psycopg.connect(in_schema(database, other)) as connection:
            assert connection.execute("SELECT count(*) FROM positions").fetchone() == (2,)
    finally:
        with psycopg.connect(database, autocommit=True) as connection:
            connection.execute(f"DROP SCHEMA {other} CASCADE")


def test_the_tables_are_typed_keyed_and_indexed(rich_workspace: Path, schema: str) -> None:
    store.copy_workspace(rich_workspace, schema)
    with psycopg.connect(schema) as connection:
        typed = dict(
            connection.execute(
                "SELECT f_table_name, type || ' ' || srid FROM geometry_columns "
                "WHERE f_table_schema = current_schema()"
            ).fetchall()
        )
        assert typed == {"places": "POINT 4326", "routes": "LINESTRING 4326",
                         "zones": "GEOMETRY 4326", "events": "POINT 4326",
                         "positions": "POINT 4326"}  # fmt: skip
        indexes = {
            (table, definition.split(" USING ")[1])
            for table, definition in connection.execute(
                "SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
            ).fetchall()
        }
        for table in typed:
            assert (table, "gist (geom)") in indexes
        assert ("events", "btree (scenario_id, date)") in indexes
        assert ("positions", 'btree (scenario_id, "time")') in indexes
        keyed = connection.execute(
            "SELECT count(*) FROM information_schema.table_constraints "
            "WHERE table_schema = current_schema() AND constraint_type = 'PRIMARY KEY'"
        ).fetchone()
        assert keyed == (len(layers_of(rich_workspace)) + 2,)  # and the registry, the version
        # New rows take ids after the copied ones.
        connection.execute("INSERT INTO places (scenario_id, id) VALUES ('x', 'y')")
        assert connection.execute("SELECT max(fid) FROM places").fetchone() == (13,)


def test_a_copy_does_not_overwrite_what_it_was_not_told_to(
    rich_workspace: Path, schema: str, tmp_path: Path
) -> None:
    store.copy_workspace(rich_workspace, schema)
    with pytest.raises(WorkspaceError, match=r"already holds a workspace \(11 layers\).*--replace"):
        store.copy_workspace(rich_workspace, schema)
    store.copy_workspace(rich_workspace, schema, replace=True)
    (tmp_path / "back.gpkg").write_bytes(b"mine")
    with pytest.raises(WorkspaceError, match=r"back.gpkg: already exists"):
        store.copy_workspace(schema, tmp_path / "back.gpkg")
    assert (tmp_path / "back.gpkg").read_bytes() == b"mine"


def test_an_empty_schema_is_not_a_workspace(schema: str, tmp_path: Path) -> None:
    with pytest.raises(WorkspaceError, match=r"holds no Corridor workspace \(corridor_layers"):
        store.copy_workspace(schema, tmp_path / "out.gpkg")
    assert not (tmp_path / "out.gpkg").exists()


def test_an_unreachable_database_is_named_without_its_password(tmp_path: Path) -> None:
    url = "postgresql://ana:secret@127.0.0.1:9/corridor"
    with pytest.raises(WorkspaceError, match=r"ana:\*\*\*@127.0.0.1:9/corridor: cannot connect"):
        store.copy_workspace(url, tmp_path / "out.gpkg")


def test_the_command_line_copies(
    rich_workspace: Path, schema: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["workspace", "copy", str(rich_workspace), schema]) == 0
    assert "11 layers copied" in capsys.readouterr().out
    assert cli.main(["workspace", "copy", str(rich_workspace), schema]) == 1
    assert "--replace" in capsys.readouterr().err
    assert cli.main(["workspace", "copy", str(rich_workspace), schema, "--if-missing"]) == 0
    assert "holds a workspace already; left as it is" in capsys.readouterr().out


# The team's roles ---------------------------------------------------------------------------


@pytest.fixture
def people(database: str) -> Iterator[dict[str, str]]:
    """Login roles of this test's own (roles belong to the whole server): dropped after."""
    suffix = uuid.uuid4().hex[:8]
    names = {role: f"{role}_{suffix}" for role in ("viewer", "editor", "other", "admin")}
    yield names
    with psycopg.connect(database, autocommit=True) as connection:
        for name in names.values():
            connection.execute(f"DROP OWNED BY {name}")
            connection.execute(f"DROP ROLE {name}")


@pytest.fixture
def shared(rich_workspace: Path, schema: str, people: dict[str, str]) -> Callable[[str], str]:
    """The workspace in PostGIS shared with `people`; gives the URL one of them connects with."""
    store.copy_workspace(rich_workspace, schema)
    members = team.Members(viewers=[people["viewer"]],
                           editors=[people["editor"], people["other"]],
                           admins=[people["admin"]])  # fmt: skip
    done = team.init(schema, members)
    assert f"{people['viewer']} is in corridor_viewer" in done
    name = schema.split("search_path%3D")[1].split("%2C")[0]
    return lambda role: in_schema(DATABASE, name, people[role])


def log(url: str, batch: str, who: str, undoes: str = "") -> None:
    with psycopg.connect(url) as connection:
        connection.execute(
            "INSERT INTO changes (batch, at, who, scenario_id, action, layer, record_id, field, "
            "old, new, note, undoes) VALUES (%s, now(), %s, 's', 'update', 'convoys', 'c1', "
            "'status', '', '', '', %s)",
            [batch, who, undoes],
        )


def test_a_viewer_s_own_sql_cannot_write(shared: Callable[[str], str]) -> None:
    with psycopg.connect(shared("viewer")) as connection:
        assert connection.execute("SELECT count(*) FROM places").fetchone() == (12,)
        assert team.role_of(connection) == "viewer"
    for statement in ("INSERT INTO places (scenario_id, id) VALUES ('x', 'y')",
                      "UPDATE convoys SET status = 'halted'", "DELETE FROM zones",
                      "DROP TABLE places"):  # fmt: skip
        with psycopg.connect(shared("viewer")) as connection, pytest.raises(
            psycopg.errors.InsufficientPrivilege, match=r"permission denied|must be owner"
        ):  # fmt: skip
            connection.execute(statement)
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="permission denied"):
        log(shared("viewer"), "b1", "viewer")


def test_an_editor_writes_records_and_signs_the_log_as_itself(
    shared: Callable[[str], str], people: dict[str, str]
) -> None:
    editor = shared("editor")
    with psycopg.connect(editor) as connection:
        assert team.role_of(connection) == "editor"
        connection.execute("INSERT INTO places (scenario_id, id) VALUES ('x', 'y')")
        connection.execute("UPDATE convoys SET status = 'halted' WHERE fid = 1")
    log(editor, "mine", people["editor"])
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        log(editor, "forged", people["other"])  # signed as someone else
    with psycopg.connect(editor) as connection, pytest.raises(
        psycopg.errors.InsufficientPrivilege, match="permission denied"
    ):  # fmt: skip
        connection.execute("DELETE FROM changes")  # the log is never rewritten


def test_an_editor_undoes_only_its_own_batches_and_an_admin_anyone_s(
    shared: Callable[[str], str], people: dict[str, str]
) -> None:
    log(shared("other"), "theirs", people["other"])
    log(shared("editor"), "mine", people["editor"])
    log(shared("editor"), "undo-mine", people["editor"], undoes="mine")
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        log(shared("editor"), "undo-theirs", people["editor"], undoes="theirs")
    log(shared("admin"), "admin-undo", people["admin"], undoes="theirs")
    with psycopg.connect(shared("admin")) as connection:
        assert team.role_of(connection) == "admin"
        undone = connection.execute("SELECT batch FROM changes WHERE undoes <> '' ORDER BY fid")
        assert [row[0] for row in undone] == ["undo-mine", "admin-undo"]


def test_team_init_made_while_another_makes_the_same_roles_goes_through(
    rich_workspace: Path, schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An init on another database of the server makes the group roles between this one's
    look and its CREATE ROLE (roles are the cluster's): this one runs again and sees them."""
    store.copy_workspace(rich_workspace, schema)
    team.init(schema)  # (the roles exist from here on)
    looks: list[str] = []
    real = team._role_exists

    def stale_first_look(connection: Any, name: str) -> bool:
        looks.append(name)
        return real(connection, name) if len(looks) > 1 else False

    monkeypatch.setattr(team, "_role_exists", stale_first_look)
    done = team.init(schema)
    assert looks[0] == team.VIEWER
    assert f"role {team.VIEWER} created" not in done


def test_team_init_needs_a_workspace(schema: str) -> None:
    with pytest.raises(WorkspaceError, match="holds no Corridor workspace to share"):
        team.init(schema)


# Faults -------------------------------------------------------------------------------------


@pytest.fixture
def tiny_in_postgis(tiny_workspace: Workspace) -> Workspace:
    if isinstance(tiny_workspace.location, Path):
        pytest.skip("the PostGIS store's own faults")
    return tiny_workspace


def fail_on_third_insert(monkeypatch: pytest.MonkeyPatch, fault: Callable[[Any], None]) -> None:
    from geo.store import postgis as postgis_store

    real, calls = postgis_store._insert, []

    def failing(connection: Any, *args: Any) -> None:
        calls.append(args[0])
        if len(calls) == 3:
            fault(connection)
        real(connection, *args)

    monkeypatch.setattr(postgis_store, "_insert", failing)


def test_a_save_that_fails_half_way_writes_nothing(
    tiny_in_postgis: Workspace, shipped: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tiny_in_postgis
    before = workspace.version()

    def disk_full(connection: Any) -> None:
        raise WorkspaceError("disk full")

    fail_on_third_insert(monkeypatch, disk_full)
    with pytest.raises(WorkspaceError, match="disk full"):
        workspace.save(shipped)
    monkeypatch.undo()
    assert workspace.version() == before
    assert workspace.scenario_ids() == ["tiny"]


def test_a_connection_dropped_mid_edit_is_told_and_nothing_is_half_written(
    tiny_in_postgis: Workspace, tiny: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database ends the session while an edit is written (a restart, a dropped link): the
    edit is reported as not saved, nothing of it stays, and the next edit goes through."""
    workspace = tiny_in_postgis

    def dropped(connection: Any) -> None:
        with psycopg.connect(DATABASE, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [connection.info.backend_pid])

    edits = [Edit("update", "convoys", "c1", {"status": "halted"}),
             Edit("update", "places", tiny.places[0].id, {"name": "Renamed"}),
             Edit("update", "routes", tiny.routes[0].id, {"precision": "traced"})]  # fmt: skip
    fail_on_third_insert(monkeypatch, dropped)
    with pytest.raises(WorkspaceError, match="the connection failed; nothing of this transaction"):
        changes.commit(workspace, "tiny", edits, who="ana")
    monkeypatch.undo()
    from geo.store.base import _LOADED

    _LOADED.clear()
    assert open_workspace(workspace.location).load("tiny") == tiny
    assert changes.history(workspace) == []
    changes.commit(workspace, "tiny", edits[:1], who="ana")
    assert [c.new for c in changes.history(workspace)] == ["halted"]


def test_what_is_written_under_the_lock_goes_through_the_lock_s_own_session(
    tiny_in_postgis: Workspace,
) -> None:
    """A write cannot outlive the lock: were the lock's session ended (a restart, a dropped
    link), the write in it would end too, not go on unguarded on a connection of its own."""
    workspace = tiny_in_postgis
    with workspace.transaction(), workspace._connection() as connection:  # type: ignore[attr-defined]
        writer = connection.info.backend_pid
        holders = connection.execute(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
        ).fetchall()
    assert (writer,) in holders


def test_a_row_another_session_holds_is_told_as_busy_and_nothing_is_written(
    tiny_in_postgis: Workspace, tiny: Any
) -> None:
    """QGIS (say) keeps a convoy's row locked in an open transaction: an edit waits the
    workspace's `lock_seconds`, then is refused as busy, not as a failed connection."""
    workspace = open_workspace(str(tiny_in_postgis.location), lock_seconds=0.5)
    edit = Edit("update", "convoys", "c1", {"status": "halted"})
    with psycopg.connect(str(workspace.location)) as other:
        other.execute("SELECT * FROM convoys WHERE id = 'c1' FOR UPDATE")
        with pytest.raises(WorkspaceLockedError, match="another session held what this change"):
            changes.commit(workspace, "tiny", [edit], who="ana")
    assert changes.history(workspace) == []
    changes.commit(workspace, "tiny", [edit], who="ana")  # (released: it goes through)
    assert [c.new for c in changes.history(workspace)] == ["halted"]


def test_a_login_typed_in_replaces_every_other_the_url_could_bring() -> None:
    url = ("postgresql://desk:old@db.example:5432/team?user=postgres&password=x"
           "&passfile=%2Froot%2F.pgpass&service=admin&options=-c%20search_path%3Dteam%2Cpublic"
           "&sslmode=require")  # fmt: skip
    signed = postgis.with_login(url, "amal", "p@ss:/word")
    assert signed == (
        "postgresql://amal:p%40ss%3A%2Fword@db.example:5432/team"
        "?options=-c%20search_path%3Dteam%2Cpublic&sslmode=require"
    )
    assert psycopg.conninfo.conninfo_to_dict(signed) == {
        "user": "amal", "password": "p@ss:/word", "host": "db.example", "port": "5432",
        "dbname": "team", "options": "-c search_path=team,public", "sslmode": "require",
    }  # fmt: skip
    shared = (
        "postgresql://db.example:5432/team?options=-c%20search_path%3Dteam%2Cpublic&sslmode=require"
    )
    assert postgis.without_login(signed) == postgis.without_login(url) == shared
    written = "postgresql://h/db?application_name=desk+one&sslrootcert=&USER=x"
    kept = postgis.with_login(written, "amal", "pw")
    assert kept == "postgresql://amal:pw@h/db?application_name=desk+one&sslrootcert="
    assert psycopg.conninfo.conninfo_to_dict(kept)["application_name"] == "desk+one"


def backend(url: str, **options: Any) -> int:
    """The server process a read on `url` runs in."""
    with postgis.connect(url, **options) as connection:
        row = connection.execute("SELECT pg_backend_pid()").fetchone()
    assert row is not None
    return int(row[0])


def test_a_read_after_a_read_logs_in_once(schema: str) -> None:
    first = backend(schema)
    assert backend(schema) == first
    assert backend(schema, kept=False) != first  # (a lock's session, a sign-in: a login each)


def test_a_kept_connection_the_server_ended_is_replaced_without_an_error(schema: str) -> None:
    """A restart or an administrator ends idle sessions: the next read logs in again."""
    first = backend(schema)
    with psycopg.connect(DATABASE, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [first])
    assert backend(schema) != first


def test_a_snapshot_s_isolation_and_a_failed_transaction_do_not_carry_over(schema: str) -> None:
    with postgis.connect(schema, snapshot=True) as connection:
        assert connection.execute("SHOW transaction_isolation").fetchone() == ("repeatable read",)
        first = connection.info.backend_pid
    with postgis.connect(schema) as connection:
        assert connection.execute("SHOW transaction_isolation").fetchone() == ("read committed",)
        assert connection.info.backend_pid == first  # (the same connection, handed out again)
    refused = pytest.raises(WorkspaceError, match="PostgreSQL refused it")
    with refused, postgis.connect(schema) as connection:
        connection.execute("SELECT * FROM no_such_table")
    assert backend(schema) != first  # (a transaction that failed is not handed out again)


def test_connections_kept_are_few_and_not_a_fork_s(schema: str) -> None:
    import os

    from geo.store import _idle_connections

    opened = [postgis.connect(schema) for _ in range(_idle_connections.MOST_KEPT + 3)]
    for each in opened:
        each.__enter__()
    for each in reversed(opened):
        each.__exit__(None, None, None)
    kept = [k.connection for k in _idle_connections._kept if k.url == schema]
    assert len(kept) == _idle_connections.MOST_KEPT
    assert not any(connection.closed for connection in kept)
    child = os.fork()
    if child == 0:  # (a forked child: none of its parent's connections, none closed)
        os._exit(0 if _idle_connections.take(schema) is None else 1)
    assert os.waitpid(child, 0)[1] == 0
    assert backend(schema) in {connection.info.backend_pid for connection in kept}


def test_a_kept_connection_logs_in_again_after_its_lifetime_and_idle_ones_are_closed(
    schema: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy session still logs in again every LIFETIME_SECONDS (a password changed or a
    role made NOLOGIN takes effect); a process that reads no more closes what it kept."""
    import time

    from geo.store import _idle_connections

    first = backend(schema)
    assert backend(schema) == first
    monkeypatch.setattr(_idle_connections, "LIFETIME_SECONDS", 0.0)
    assert backend(schema) != first  # (too old when taken: closed, a new login)
    monkeypatch.setattr(_idle_connections, "LIFETIME_SECONDS", 300.0)
    monkeypatch.setattr(_idle_connections, "IDLE_SECONDS", 0.2)
    monkeypatch.setattr(_idle_connections, "REAP_SECONDS", 0.1)
    _idle_connections.forget()
    backend(schema)  # (kept, and the reaper started)
    deadline = time.monotonic() + 10
    while _idle_connections._kept and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _idle_connections._kept == []


def test_a_listener_whose_login_fails_listens_with_another_session_s(
    tiny_in_postgis: Workspace, tiny: Any
) -> None:
    """The role the server's listener was first given is dropped (or its password changed): a
    session still signed in offers its own login, and the pages are live again."""
    import time

    from geo.store.listener import Listener

    url = str(tiny_in_postgis.location)
    gone = url.replace("://postgres@", "://no_such_role_any_more@", 1)
    listener = Listener(gone)
    listener.RETRY_SECONDS = 0.2
    try:
        deadline = time.monotonic() + 10
        while not listener.problem and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "no_such_role_any_more" in listener.problem
        listener.offer(url)
        while listener.problem and time.monotonic() < deadline:
            time.sleep(0.05)
        assert listener.problem == ""
        back = listener.count  # (moved on reconnecting: writes meanwhile are read again)
        changes.commit(tiny_in_postgis, "tiny", [Edit("update", "convoys", "c1",
                       {"status": "halted"})], who="ana")  # fmt: skip
        while listener.count == back and time.monotonic() < deadline:
            time.sleep(0.05)
        assert listener.count > back
    finally:
        listener.stop()


def test_connections_find_out_a_server_that_vanished_without_closing_the_link(
    schema: str,
) -> None:
    """Keepalives and an unanswered-data timeout on every connection, the listener's too: a
    kept connection's first statement, or an idle link, to a server gone without a word (a
    VPN dropped) fail in seconds, not after TCP's many minutes."""
    with postgis.connect(schema) as connection:
        sent = psycopg.conninfo.conninfo_to_dict(connection.info.dsn)
    assert sent["keepalives"] == "1"
    assert int(sent["tcp_user_timeout"]) <= 30_000
    idle = int(sent["keepalives_idle"])
    assert idle + int(sent["keepalives_interval"]) * int(sent["keepalives_count"]) <= 60
    assert "search_path" in sent["options"]  # (the URL's own options kept)
    listened = psycopg.conninfo.conninfo_to_dict(postgis.linked(schema))  # (the listener's)
    assert {name: listened[name] for name in postgis.LINK_OPTIONS} == {
        name: str(value) for name, value in postgis.LINK_OPTIONS.items()
    }
