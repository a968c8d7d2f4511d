"""PostGIS's SQL: connections, a workspace's layers as tables of a PostgreSQL database, its version.

A workspace in PostGIS is the set of tables listed in its registry table (`corridor_layers`) in
the connection's current schema (the first of its search path: `public` unless the URL says
otherwise, e.g. ``postgresql://host/db?options=-csearch_path%3Dteam,public``, where `public`
holds PostGIS). Each layer is one table
a GIS user recognises: its GeoPackage feature id as primary key (`fid`), its fields typed as the
GeoPackage types them, its geometry in a typed column (`geom`, SRID 4326) with a GiST index,
and an index on (scenario, time) for the layers read by time window. Types go through Arrow
both ways, so that a copy there and back compares equal, feature ids included.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import psycopg
import pyarrow as pa
import shapely
from psycopg import sql
from psycopg.conninfo import make_conninfo

from geo.errors import WorkspaceError, WorkspaceLockedError
from geo.store import _idle_connections
from geo.store.layout import (
    FID,
    GEOCODE_CACHE_LAYER,
    GEOMETRY,
    POSITIONS_LAYER,
    SCENARIO_ID,
    TIME_FIELDS,
    LayerInfo,
)

CONNECT_SECONDS = 5
"""How long a connection may take before the database counts as unreachable."""
LINK_OPTIONS: dict[str, Any] = {
    "connect_timeout": CONNECT_SECONDS,
    "tcp_user_timeout": 15_000,
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
}
"""libpq's options for every connection: a server that vanished without closing the link (a
laptop asleep, a VPN gone) is found out in about 25 s when the link is idle (the listener's)
and 15 s when something sent waits unanswered (a kept connection's first statement), where
TCP alone would wait for many minutes."""
REGISTRY = "corridor_layers"
"""The table that lists a PostGIS workspace's layers, in their GeoPackage order."""
SRID = 4326
INDEXED_TIMES = TIME_FIELDS
"""The layers read by time window, and each one's time field."""

# Arrow type → PostgreSQL type, and back (one each way, so a round trip keeps the type).
_TO_SQL: dict[pa.DataType, str] = {
    pa.bool_(): "boolean",
    pa.int16(): "smallint",
    pa.int32(): "integer",
    pa.int64(): "bigint",
    pa.float32(): "real",
    pa.float64(): "double precision",
    pa.string(): "text",
    pa.large_string(): "text",
    pa.date32(): "date",
    pa.timestamp("ms", tz="UTC"): "timestamp with time zone",
    pa.timestamp("ms"): "timestamp without time zone",
    pa.binary(): "bytea",
    pa.large_binary(): "bytea",
}
FROM_SQL: dict[str, pa.DataType] = {
    "boolean": pa.bool_(),
    "smallint": pa.int16(),
    "integer": pa.int32(),
    "bigint": pa.int64(),
    "real": pa.float32(),
    "double precision": pa.float64(),
    "text": pa.string(),
    "date": pa.date32(),
    "timestamp with time zone": pa.timestamp("ms", tz="UTC"),
    "timestamp without time zone": pa.timestamp("ms"),
    "bytea": pa.binary(),
}


def read_as(kind: str) -> pa.DataType:
    """The Arrow type a column of this PostgreSQL type is read as (text when Corridor does not
    write such columns itself)."""
    return FROM_SQL.get(kind, pa.string())


_COPY_TYPES = {
    "boolean": "bool",
    "smallint": "int2",
    "integer": "int4",
    "bigint": "int8",
    "real": "float4",
    "double precision": "float8",
    "text": "text",
    "date": "date",
    "timestamp with time zone": "timestamptz",
    "timestamp without time zone": "timestamp",
    "bytea": "bytea",
}
_GEOMETRY_TYPES = ("Point", "LineString", "Polygon", "MultiPoint", "MultiLineString",
                   "MultiPolygon", "GeometryCollection")  # fmt: skip
"""OGR's geometry type names that PostGIS types a column with; "Unknown" is any geometry."""


def linked(url: str) -> str:
    """The connection string for `url` with LINK_OPTIONS (they override the URL's own)."""
    return make_conninfo(url, **LINK_OPTIONS)


def shown(url: str) -> str:
    """The URL as messages show it: without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


LOGIN_PARAMETERS = ("user", "password", "passfile", "service")
"""Query parameters of a URL that would choose the login in place of the one typed."""


def with_login(url: str, role: str, password: str) -> str:
    """The URL with another role and password in it (host, database and options kept; any
    login the URL's query names, a password file or a service dropped, so that the role and
    password typed are the ones PostgreSQL checks)."""
    parts = urlsplit(without_login(url))
    login = f"{quote(role, safe='')}:{quote(password, safe='')}"
    return parts._replace(netloc=f"{login}@{parts.netloc}").geturl()


def without_login(url: str) -> str:
    """The URL's database and options without any role or password: what sessions signed in
    as different roles share (the workspace's notifications, say)."""
    parts = urlsplit(url)
    kept = [  # (as written: libpq reads a '+' as a plus, not a space, and keeps empty values)
        pair
        for pair in parts.query.split("&")
        if pair and unquote(pair.partition("=")[0]).lower() not in LOGIN_PARAMETERS
    ]
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=host, query="&".join(kept)).geturl()


@contextlib.contextmanager
def connect(
    url: str, *, snapshot: bool = False, kept: bool = True
) -> Iterator[psycopg.Connection[Any]]:
    """A connection (times in UTC) whose work is one transaction, committed when the block
    ends and rolled back on any error (`snapshot`: every read in it sees the database as it
    was at the first); WorkspaceError when the database cannot be reached.

    The connection is one this process kept from an earlier transaction when it can be
    (`geo.store._idle_connections`), and is kept for the next one when the block ends cleanly;
    `kept=False` logs in anew and closes after, for what must hold a session of its own (an
    advisory lock) or must see the server check a password.
    """
    isolation = psycopg.IsolationLevel.REPEATABLE_READ if snapshot else None
    connection = _connection(url, kept=kept, isolation=isolation)
    try:
        with told(url):
            yield connection
            connection.commit()
    except BaseException:
        _idle_connections.discard(connection)  # (rolls back; one the server ended is gone)
        raise
    if kept:
        _idle_connections.give_back(url, connection)
    else:
        connection.close()


def forget_kept(url: str) -> None:
    """Close the connections kept for `url` (a session signed out: its login goes with it)."""
    _idle_connections.forget(url)


_BEGIN = "SET TIME ZONE 'UTC'"
"""The first statement of every transaction (and the check that a kept connection answers)."""


def _connection(
    url: str, *, kept: bool, isolation: psycopg.IsolationLevel | None
) -> psycopg.Connection[Any]:
    """A connection to `url` in a transaction just begun: a kept one that still answers, or a
    new one."""
    while kept and (connection := _idle_connections.take(url)) is not None:
        try:
            _begin(connection, isolation)
            return connection
        except BaseException as error:
            _idle_connections.discard(connection)
            if not isinstance(error, psycopg.Error):
                raise
            # (else the server ended it since: a restart, an administrator; try the next)
    try:
        connection = psycopg.connect(linked(url), prepare_threshold=None)
    except psycopg.Error as error:
        raise WorkspaceError(
            f"{shown(url)}: cannot connect to PostgreSQL ({reason(error)})"
        ) from None
    try:
        with told(url):
            _begin(connection, isolation)
    except BaseException:
        connection.close()
        raise
    return connection


def _begin(connection: psycopg.Connection[Any], isolation: psycopg.IsolationLevel | None) -> None:
    connection.isolation_level = isolation
    connection.execute(_BEGIN)


@contextlib.contextmanager
def told(url: str) -> Iterator[None]:
    """PostgreSQL's errors in the block as WorkspaceError naming the workspace (not its
    password) and saying that nothing of the transaction was saved."""
    try:
        yield
    except psycopg.errors.LockNotAvailable as error:  # (lock_timeout: a row QGIS holds, say)
        raise WorkspaceLockedError(
            f"{shown(url)}: another session held what this change writes longer than it may "
            f"wait; nothing of this transaction was saved; try again ({reason(error)})"
        ) from None
    except psycopg.OperationalError as error:
        raise WorkspaceError(
            f"{shown(url)}: the connection failed; nothing of this transaction was saved "
            f"({reason(error)})"
        ) from None
    except psycopg.Error as error:  # (refused: a privilege, a constraint, a type)
        raise WorkspaceError(
            f"{shown(url)}: PostgreSQL refused it; nothing of this transaction was saved "
            f"({reason(error)})"
        ) from None


def reason(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__


# Layers ------------------------------------------------------------------------------------


def layers(connection: psycopg.Connection[Any]) -> list[LayerInfo]:
    """The workspace's layers in this connection's schema, in order; [] when it holds none."""
    if not _present(connection, REGISTRY):
        return []
    rows = connection.execute(
        sql.SQL("SELECT name, geometry_type FROM {} ORDER BY position").format(
            sql.Identifier(REGISTRY)
        )
    ).fetchall()
    return [LayerInfo(str(name), None if kind is None else str(kind)) for name, kind in rows]


def write_layer(
    connection: psycopg.Connection[Any],
    info: LayerInfo,
    table: pa.Table,
    *,
    position: int | None = None,
) -> None:
    """Create the layer's table (typed, keyed, indexed), copy the rows in and list it in the
    registry (last, unless `position` is given); `table` holds `fid`, the fields, and the
    geometry as WKB in `geom` when the layer has one."""
    columns = [field for field in table.schema if field.name not in (FID, GEOMETRY)]
    columns = [pa.field(f.name, pa.string()) if pa.types.is_null(f.type) else f for f in columns]
    table = _with_types(table, columns)
    definitions = [
        sql.SQL("{} bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY").format(
            sql.Identifier(FID)
        )
    ]
    for field in columns:
        definitions.append(
            sql.SQL("{} {}").format(sql.Identifier(field.name), sql.SQL(sql_type(info, field)))
        )
    if info.geometry_type is not None:
        definitions.append(
            sql.SQL("{} geometry({}, {})").format(
                sql.Identifier(GEOMETRY), sql.SQL(_postgis_type(info)), sql.Literal(SRID)
            )
        )
    name = sql.Identifier(info.name)
    connection.execute(
        sql.SQL("CREATE TABLE {} ({})").format(name, sql.SQL(", ").join(definitions))
    )
    copy_in(connection, info, table, columns)
    connection.execute(  # new rows' ids after the copied ones
        "SELECT setval(pg_get_serial_sequence(quote_ident(%s), %s), "
        f"coalesce((SELECT max({FID}) FROM {name.as_string(connection)}), 0) + 1, false)",
        [info.name, FID],
    )
    _index(connection, info, {field.name for field in columns})
    if info.name not in UNTRACKED:
        connection.execute(
            sql.SQL(
                "CREATE TRIGGER {} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {} "
                "FOR EACH STATEMENT EXECUTE FUNCTION {}()"
            ).format(sql.Identifier(TOUCHED), name, sql.Identifier(TOUCHED))
        )
    if position is None:
        position = connection.execute(
            sql.SQL("SELECT coalesce(max(position) + 1, 0) FROM {}").format(
                sql.Identifier(REGISTRY)
            )
        ).fetchone()[0]  # type: ignore[index]
    connection.execute(
        sql.SQL("INSERT INTO {} (position, name, geometry_type) VALUES (%s, %s, %s)").format(
            sql.Identifier(REGISTRY)
        ),
        [position, info.name, info.geometry_type],
    )


def _with_types(table: pa.Table, fields: list[pa.Field]) -> pa.Table:
    """The table with these columns cast to these fields' types."""
    for field in fields:
        index = table.schema.get_field_index(field.name)
        if table.schema.field(index).type != field.type:
            table = table.set_column(index, field, table.column(index).cast(field.type))
    return table


def sql_type(info: LayerInfo, field: pa.Field) -> str:
    found = _TO_SQL.get(field.type)
    if found is None and pa.types.is_timestamp(field.type):
        found = _TO_SQL.get(pa.timestamp("ms", tz="UTC" if field.type.tz else None))
    if found is None:
        raise WorkspaceError(
            f"layer {info.name!r}, field {field.name!r}: expected a type PostGIS can hold "
            f"({', '.join(sorted(set(_TO_SQL.values())))}), got Arrow's {field.type}"
        )
    return found


def _postgis_type(info: LayerInfo) -> str:
    kind = info.geometry_type or "Unknown"
    return "Geometry" if kind not in _GEOMETRY_TYPES else kind


def copy_in(
    connection: psycopg.Connection[Any], info: LayerInfo, table: pa.Table, columns: list[pa.Field]
) -> None:
    """Copy the rows in: their feature ids when `table` has them (else the table numbers
    them), the `columns`, and the geometry."""
    keyed = FID in table.column_names
    names = [FID] * keyed + [field.name for field in columns]
    types = ["int8"] * keyed + [_COPY_TYPES[sql_type(info, field)] for field in columns]
    values = [table.column(name).to_pylist() for name in names]
    if info.geometry_type is not None:
        names.append(GEOMETRY)
        types.append("bytea")  # (EWKB, which the geometry type's binary input reads)
        values.append(_ewkb(table.column(GEOMETRY).to_pylist()))
    columns_sql = sql.SQL(", ").join(map(sql.Identifier, names))
    if _row_secured(connection, info.name):  # (COPY is refused there: rows one by one)
        insert = sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
            sql.Identifier(info.name),
            columns_sql,
            sql.SQL(", ").join(sql.Placeholder() * len(names)),
        )
        with connection.cursor() as cursor:
            cursor.executemany(insert, list(zip(*values, strict=True)))
        return
    target = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
        sql.Identifier(info.name), columns_sql
    )
    with connection.cursor() as cursor, cursor.copy(target) as copy:
        copy.set_types(types)
        for row in zip(*values, strict=True):
            copy.write_row(row)


def _row_secured(connection: psycopg.Connection[Any], table: str) -> bool:
    """Whether a table is under row-level security (the team's change log: `geo.store.team`)."""
    row = connection.execute(
        "SELECT relrowsecurity FROM pg_class "
        "WHERE oid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident(%s))",
        [table],
    ).fetchone()
    return bool(row and row[0])


def _ewkb(blobs: list[bytes | None]) -> list[bytes | None]:
    """Well-known binary with the SRID written in (extended WKB), as a typed column needs it."""
    geometries = shapely.set_srid(shapely.from_wkb(blobs), SRID)
    return list(shapely.to_wkb(geometries, include_srid=True, flavor="extended"))


def _index(connection: psycopg.Connection[Any], info: LayerInfo, fields: set[str]) -> None:
    name = sql.Identifier(info.name)
    if info.geometry_type is not None:
        connection.execute(
            sql.SQL("CREATE INDEX {} ON {} USING GIST ({})").format(
                sql.Identifier(f"{info.name}_{GEOMETRY}_gist"), name, sql.Identifier(GEOMETRY)
            )
        )
    time = INDEXED_TIMES.get(info.name)
    keys = [SCENARIO_ID, time] if time in fields and SCENARIO_ID in fields else [SCENARIO_ID]
    if SCENARIO_ID in fields:
        connection.execute(
            sql.SQL("CREATE INDEX {} ON {} ({})").format(
                sql.Identifier(f"{info.name}_{'_'.join(keys)}"),
                name,
                sql.SQL(", ").join(map(sql.Identifier, keys)),
            )
        )


def column_types(
    connection: psycopg.Connection[Any], layer: str, *, full: bool = False, settable: bool = False
) -> list[tuple[str, str]]:
    """A table's columns and their PostgreSQL types, in order (`full`: with their modifiers,
    numeric(6,1) rather than numeric; `settable`: only those an UPDATE may set, not generated
    ones nor identities GENERATED ALWAYS)."""
    modifier = "atttypmod" if full else "NULL"
    only = "AND attgenerated = '' AND attidentity <> 'a' " if settable else ""
    rows = connection.execute(
        f"SELECT attname, format_type(atttypid, {modifier}) FROM pg_attribute "
        "WHERE attrelid = (quote_ident(current_schema()) || '.' || quote_ident(%s))::regclass "
        f"AND attnum > 0 AND NOT attisdropped {only}ORDER BY attnum",
        [layer],
    ).fetchall()
    return [(str(name), str(kind)) for name, kind in rows]


def read_layer(
    connection: psycopg.Connection[Any],
    info: LayerInfo,
    columns: list[str] | None = None,
    where: sql.Composable | None = None,
    values: Sequence[Any] = (),
) -> pa.Table:
    """The layer's rows (those `where` keeps) in feature id order, typed as they were written:
    `columns` (all but the geometry when None) and the geometry as WKB in `geom`."""
    kinds = dict(column_types(connection, info.name))
    names = columns if columns is not None else [n for n in kinds if n != GEOMETRY]
    selected: list[sql.Composable] = [
        sql.Identifier(name)
        if kinds[name] in FROM_SQL
        else sql.SQL("{}::text").format(sql.Identifier(name))
        for name in names
    ]  # (a type added by another program, numeric or jsonb say, is read as its text)
    if info.geometry_type is not None:
        selected.append(sql.SQL("ST_AsBinary({})").format(sql.Identifier(GEOMETRY)))
    query = sql.SQL("SELECT {} FROM {} {} ORDER BY {}").format(
        sql.SQL(", ").join(selected),
        sql.Identifier(info.name),
        where or sql.SQL(""),
        sql.Identifier(FID),
    )
    rows = connection.execute(query, list(values)).fetchall()
    found = list(zip(*rows, strict=True)) if rows else [() for _ in selected]
    arrays = {
        name: pa.array(list(cells), type=read_as(kinds[name]))
        for name, cells in zip(names, found, strict=False)
    }
    if info.geometry_type is not None:
        arrays[GEOMETRY] = pa.array([_bytes(blob) for blob in found[-1]], type=pa.binary())
    return pa.table(arrays) if arrays else pa.table({})


def _bytes(blob: Any) -> bytes | None:
    return None if blob is None else bytes(blob)


STATE = "corridor_state"
"""A one-row table: the workspace's version, one more at each write (`bump`)."""
CHANNEL = "corridor"
"""The channel each write notifies, with 'schema:version' (LISTEN corridor)."""


TOUCHED = "corridor_touched"
"""The trigger (and its function) by which every statement that changes a layer, whoever runs
it (Corridor, QGIS, psql), adds one to the workspace's version and notifies CHANNEL. It runs
as the one who changed the layer (not as its maker: a definer's rights, with a schema taken
from the trigger, would let anyone who may create a table run SQL as the maker); an editor
may update the version (`geo.store.team`)."""
UNTRACKED = frozenset({POSITIONS_LAYER, GEOCODE_CACHE_LAYER})
"""Layers no scenario is read from: their rows change neither the version nor anyone's page
(live tracking refreshes its own layer; a position every few seconds would reload the map)."""
_TOUCHED_FUNCTION = """
CREATE OR REPLACE FUNCTION {function}() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
  EXECUTE format('UPDATE %I.{state} SET version = version + 1', TG_TABLE_SCHEMA);
  PERFORM pg_notify('{channel}', TG_TABLE_SCHEMA);
  RETURN NULL;
END $$
"""


def ensure_workspace(connection: psycopg.Connection[Any]) -> None:
    """The registry, the version and its trigger function of a workspace in the connection's
    schema, where missing (nothing is made when all are there: an editor may not make them)."""
    if _present(connection, REGISTRY) and _present(connection, STATE) and _has_function(connection):
        return
    present = connection.execute("SELECT count(*) FROM pg_extension WHERE extname = 'postgis'")
    if not (present.fetchone() or (0,))[0]:
        connection.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    connection.execute(
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (position integer NOT NULL, name text PRIMARY KEY, "
            "geometry_type text)"
        ).format(sql.Identifier(REGISTRY))
    )
    connection.execute(
        sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (one boolean PRIMARY KEY DEFAULT true CHECK (one), "
            "version bigint NOT NULL)"
        ).format(sql.Identifier(STATE))
    )
    connection.execute(
        sql.SQL("INSERT INTO {} (version) VALUES (0) ON CONFLICT DO NOTHING").format(
            sql.Identifier(STATE)
        )
    )
    connection.execute(
        sql.SQL(_TOUCHED_FUNCTION).format(
            function=sql.Identifier(TOUCHED), state=sql.Identifier(STATE), channel=sql.SQL(CHANNEL)
        )
    )


def _present(connection: psycopg.Connection[Any], table: str) -> bool:
    row = connection.execute(
        "SELECT to_regclass(quote_ident(current_schema()) || '.' || quote_ident(%s)) IS NOT NULL",
        [table],
    ).fetchone()
    return bool(row and row[0])


def _has_function(connection: psycopg.Connection[Any]) -> bool:
    row = connection.execute(
        "SELECT to_regprocedure(quote_ident(current_schema()) || '.' || quote_ident(%s) || '()') "
        "IS NOT NULL",
        [TOUCHED],
    ).fetchone()
    return bool(row and row[0])


def version(connection: psycopg.Connection[Any]) -> int | None:
    """The workspace's version; None when the schema holds no workspace."""
    if not _present(connection, STATE):
        return None
    row = connection.execute(sql.SQL("SELECT version FROM {}").format(sql.Identifier(STATE)))
    found = row.fetchone()
    return None if found is None else int(found[0])


def bump(connection: psycopg.Connection[Any]) -> int:
    """One more to the version, in the connection's transaction (besides what the layers'
    triggers added), so that a write that changed no row is a write all the same; every
    listening dashboard is told when it commits. The new version."""
    row = connection.execute(
        sql.SQL("UPDATE {} SET version = version + 1 RETURNING version").format(
            sql.Identifier(STATE)
        )
    ).fetchone()
    assert row is not None, "ensure_workspace makes the row"
    connection.execute("SELECT pg_notify(%s, current_schema())", [CHANNEL])
    return int(row[0])
