"""A team's roles on a PostGIS workspace, enforced by the database (`python -m geo team init`).

Three group roles, shared by every workspace of the database cluster, each granted on one
workspace's schema:

- ``corridor_viewer`` reads every layer and the change log;
- ``corridor_editor`` also adds, changes and deletes records, and adds to the change log only
  rows signed with its own role (`who` = the connection's role) and undoes only its own
  batches (row-level security on the change log, which no one may change or delete);
- ``corridor_admin`` is an editor who may undo anyone's batch and add people to the roles.

Grants decide what a role may do to a table at all, so a viewer's own SQL cannot write; the
change log's policies decide which rows an editor may add. Tables made later by the owner of
the schema's tables get the same grants (default privileges).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
import pyarrow as pa
from psycopg import sql

from geo.errors import WorkspaceError
from geo.store import postgis_sql
from geo.store.layout import FID, GEOCODE_CACHE_LAYER, GEOMETRY, POSITIONS_LAYER, LayerInfo

VIEWER, EDITOR, ADMIN = "corridor_viewer", "corridor_editor", "corridor_admin"
ROLES = {"viewer": VIEWER, "editor": EDITOR, "admin": ADMIN}
CHANGES = "changes"
CHANGE_COLUMNS = {
    "batch": pa.string(), "at": pa.timestamp("ms", tz="UTC"), "who": pa.string(),
    "scenario_id": pa.string(), "action": pa.string(), "layer": pa.string(),
    "record_id": pa.string(), "field": pa.string(), "old": pa.string(), "new": pa.string(),
    "note": pa.string(), "undoes": pa.string(),
}.items()  # fmt: skip
"""The change log's columns as `geo.changes` writes them (its `COLUMNS`, `at` in UTC)."""


@dataclass(frozen=True)
class Members:
    """The login roles to put in each group role (created where missing, without a password)."""

    viewers: Sequence[str] = ()
    editors: Sequence[str] = ()
    admins: Sequence[str] = ()


def init(url: str, members: Members = Members()) -> list[str]:
    """Create the group roles where missing, grant them on the workspace's schema, put the
    change log under row-level security, and add the members; what was done, line by line."""
    try:
        return _init(url, members)
    except _Raced:  # (an init on another database made a role meanwhile: now it is seen)
        pass
    try:
        return _init(url, members)
    except _Raced as raced:
        raise WorkspaceError(
            f"{postgis_sql.shown(url)}: a role or grant team init makes was there already when it "
            f"looked again ({raced}); if another team init was running, run this one again"
        ) from None


class _Raced(Exception):
    """A role or grant another transaction made after this one looked for it."""


def _init(url: str, members: Members) -> list[str]:
    done: list[str] = []
    with postgis_sql.connect(url) as connection:
        if not postgis_sql.layers(connection):
            raise WorkspaceError(
                f"{postgis_sql.shown(url)}: holds no Corridor workspace to share; copy one there "
                "first (python -m geo workspace copy WORKSPACE.gpkg URL)"
            )
        schema = str(_one(connection, "SELECT current_schema()"))
        # (two inits of one database at once wait for each other; roles are the cluster's, so
        # one on another database may still make a role between a look and a CREATE: _Raced)
        connection.execute("SELECT pg_advisory_xact_lock(hashtext('corridor:team init'))")
        try:
            _group_roles(connection, done)
            _change_log(connection, done)
            _grants(connection, schema, done)
            _policies(connection, done)
            for group, names in ((VIEWER, members.viewers), (EDITOR, members.editors),
                                 (ADMIN, members.admins)):  # fmt: skip
                _add_members(connection, group, names, done)
        except (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation) as error:
            raise _Raced(postgis_sql.reason(error)) from None
        except psycopg.errors.InsufficientPrivilege as error:
            raise WorkspaceError(
                f"{postgis_sql.shown(url)}: team init needs a role that may create roles and own "
                f"the workspace's tables ({postgis_sql.reason(error)})"
            ) from None
    return done


def _one(connection: psycopg.Connection[Any], query: str, *args: Any) -> Any:
    row = connection.execute(query, list(args)).fetchone()
    return None if row is None else row[0]


def _role_exists(connection: psycopg.Connection[Any], name: str) -> bool:
    return bool(_one(connection, "SELECT count(*) FROM pg_roles WHERE rolname = %s", name))


def _group_roles(connection: psycopg.Connection[Any], done: list[str]) -> None:
    for name in (VIEWER, EDITOR, ADMIN):
        if not _role_exists(connection, name):
            connection.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(name)))
            done.append(f"role {name} created")
    connection.execute(
        sql.SQL("GRANT {} TO {}").format(sql.Identifier(VIEWER), sql.Identifier(EDITOR))
    )
    connection.execute(
        sql.SQL("GRANT {} TO {}").format(sql.Identifier(EDITOR), sql.Identifier(ADMIN))
    )
    for group in (VIEWER, EDITOR):
        connection.execute(
            sql.SQL("GRANT {} TO {} WITH ADMIN OPTION").format(
                sql.Identifier(group), sql.Identifier(ADMIN)
            )
        )


GROWING = {
    CHANGES: (None, CHANGE_COLUMNS),
    POSITIONS_LAYER: ("Point", {
        "scenario_id": pa.string(), "convoy": pa.string(), "time": pa.timestamp("ms", tz="UTC"),
        "latitude": pa.float64(), "longitude": pa.float64(), "speed_kmh": pa.float64(),
        "note": pa.string(),
    }.items()),
    GEOCODE_CACHE_LAYER: (None, {
        "key": pa.string(), "answer": pa.string(), "asked_at": pa.timestamp("ms", tz="UTC"),
    }.items()),
}  # fmt: skip
"""The layers that editors add rows to but that a copied workspace may not hold yet (the
change log, live positions, the geocoder's answers): made empty by team init, since an editor
may not create tables."""


def _change_log(connection: psycopg.Connection[Any], done: list[str]) -> None:
    """The layers editors add to, made (empty, and listed) where missing."""
    held = {info.name for info in postgis_sql.layers(connection)}
    for name, (geometry_type, columns) in GROWING.items():
        if name in held:
            continue
        empty = pa.table(
            {FID: pa.array([], pa.int64())}
            | {column: pa.array([], kind) for column, kind in columns}
            | ({GEOMETRY: pa.array([], pa.binary())} if geometry_type else {})
        )
        postgis_sql.write_layer(connection, LayerInfo(name, geometry_type), empty)
        done.append(f"table {name} created")


GRANTS = (
    "GRANT USAGE ON SCHEMA {schema} TO {viewer}",
    "GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {viewer}",
    "GRANT INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {editor}",
    "GRANT USAGE ON ALL SEQUENCES IN SCHEMA {schema} TO {editor}",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON TABLES TO {viewer}",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} "
    "GRANT INSERT, UPDATE, DELETE ON TABLES TO {editor}",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT USAGE ON SEQUENCES TO {editor}",
    # The registry, and the change log's rows once written, are no one's to rewrite.
    "REVOKE INSERT, UPDATE, DELETE ON {registry} FROM {editor}",
    "REVOKE UPDATE, DELETE ON {changes} FROM {editor}",
    # The version only goes up (the layers' trigger runs as the editor who changed them).
    "REVOKE INSERT, DELETE ON {state} FROM {editor}",
)  # fmt: skip
"""What each group role may do to the workspace's tables at all."""


def _grants(connection: psycopg.Connection[Any], schema: str, done: list[str]) -> None:
    names = {
        "schema": sql.Identifier(schema),
        "viewer": sql.Identifier(VIEWER),
        "editor": sql.Identifier(EDITOR),
        "registry": sql.Identifier(postgis_sql.REGISTRY),
        "changes": sql.Identifier(CHANGES),
        "state": sql.Identifier(postgis_sql.STATE),
    }
    for statement in GRANTS:
        connection.execute(sql.SQL(statement).format(**names))
    done.append(f"schema {schema}: {VIEWER} reads, {EDITOR} writes records and adds to the log")


POLICIES = {
    "changes_read": "FOR SELECT TO {viewer} USING (true)",
    "changes_own": (
        "FOR INSERT TO {editor} WITH CHECK (who = current_user AND "
        "(coalesce({changes}.undoes, '') = '' OR NOT EXISTS (SELECT 1 FROM {changes} undone "
        "WHERE undone.batch = {changes}.undoes AND undone.who IS DISTINCT FROM current_user)))"
    ),
    "changes_admin": "FOR INSERT TO {admin} WITH CHECK (who = current_user)",
}
"""The change log's row-level security: everyone in the team reads it; an editor signs what it
adds and undoes only its own batches; an admin signs what it adds and may undo anyone's."""


def _policies(connection: psycopg.Connection[Any], done: list[str]) -> None:
    table = sql.Identifier(CHANGES)
    connection.execute(sql.SQL("ALTER TABLE {} ENABLE ROW LEVEL SECURITY").format(table))
    names = {"viewer": sql.Identifier(VIEWER), "editor": sql.Identifier(EDITOR),
             "admin": sql.Identifier(ADMIN), "changes": table}  # fmt: skip
    for name, rule in POLICIES.items():
        policy = sql.Identifier(name)
        connection.execute(sql.SQL("DROP POLICY IF EXISTS {} ON {}").format(policy, table))
        connection.execute(
            sql.SQL("CREATE POLICY {} ON {} ").format(policy, table) + sql.SQL(rule).format(**names)
        )
    done.append(f"table {CHANGES}: row-level security ({', '.join(POLICIES)})")


def _add_members(
    connection: psycopg.Connection[Any], group: str, names: Iterable[str], done: list[str]
) -> None:
    for name in names:
        if not _role_exists(connection, name):
            connection.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(name)))
            done.append(f"role {name} created (LOGIN; set a password with ALTER ROLE … PASSWORD)")
        connection.execute(
            sql.SQL("GRANT {} TO {}").format(sql.Identifier(group), sql.Identifier(name))
        )
        done.append(f"{name} is in {group}")


def sign_in(url: str, role: str, password: str, *, unchecked: bool = False) -> str:
    """The workspace's URL opened as `role`, once PostgreSQL has checked its `password`.

    WorkspaceError when the role cannot connect with it, and when the database lets the role in
    whatever password is given (`trust` in pg_hba.conf), where signing in would prove nothing:
    anyone could claim any role, a superuser's included. `unchecked` allows that on a machine
    where it is meant (a test database; `CORRIDOR_SIGN_IN_UNCHECKED=1`).
    """
    if not role or not password:
        raise WorkspaceError("Signing in takes a database role and its password")
    signed = postgis_sql.with_login(url, role, password)
    with postgis_sql.connect(signed, kept=False):  # (a login of its own: the password checked)
        pass
    if unchecked:
        return signed
    wrong = postgis_sql.with_login(url, role, f"wrong-{secrets.token_hex(12)}")
    try:
        with postgis_sql.connect(wrong, kept=False):
            pass
    except WorkspaceError as error:
        if "password authentication failed" in str(error):
            return signed  # (a wrong password is refused: the right one was checked)
        raise WorkspaceError(  # (fail closed: a full server, a restart, a timeout)
            f"{postgis_sql.shown(url)}: could not make sure PostgreSQL checks {role}'s password "
            f"({error}); try again"
        ) from None
    raise WorkspaceError(
        f"{postgis_sql.shown(url)}: PostgreSQL lets {role} in without checking its password (trust "
        "authentication in pg_hba.conf), so a sign-in here would prove nothing; ask the "
        "database's administrator to require passwords (scram-sha-256)"
    )


def role_of(connection: psycopg.Connection[Any]) -> str:
    """The team role a connection has: "admin", "editor", "viewer", or "" for none of them
    (a superuser counts as admin)."""
    if _one(connection, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"):
        return "admin"
    for label in ("admin", "editor", "viewer"):
        member = "SELECT pg_has_role(current_user, oid, 'MEMBER') FROM pg_roles WHERE rolname = %s"
        if _one(connection, member, ROLES[label]):  # (None when the team was never made)
            return label
    return ""
