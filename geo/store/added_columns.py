"""Columns another program added to a PostGIS layer, read before a write and put back after."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import psycopg
from psycopg import sql

from geo.store import postgis_sql
from geo.store.layout import FID, GEOMETRY, SCENARIO_ID


@dataclass(frozen=True)
class Extras:
    """The values of columns another program added to a layer (QGIS, say), read as text from
    the rows a write replaces, to be put back on the rows written in their place (generated
    columns, which the database fills itself, are left to it)."""

    layer: str
    scenario_id: str
    columns: list[tuple[str, str]]  # (name, full type)
    rows: list[tuple[Any, ...]]  # (id, value as text, ...)

    @classmethod
    def of(
        cls,
        connection: psycopg.Connection[Any],
        layer: str,
        scenario_id: str,
        written: pd.DataFrame,
        held: set[str],
        ids: set[str] | None = None,
    ) -> Extras:
        """The added columns' values on the scenario's rows of `layer` (those of `ids`), for
        rows `written` anew that lack those columns; nothing when the layer is new."""
        if layer not in held or "id" not in written.columns:
            return cls(layer, scenario_id, [], [])
        columns = [
            (name, kind)
            for name, kind in postgis_sql.column_types(connection, layer, full=True, settable=True)
            if name not in written.columns and name not in (FID, GEOMETRY)
        ]
        if not columns:
            return cls(layer, scenario_id, [], [])
        query = sql.SQL(
            "SELECT id, {} FROM {} WHERE {} = %s AND (%s::text[] IS NULL OR id = ANY(%s))"
        )
        values = sql.SQL(", ").join(
            sql.SQL("{}::text").format(sql.Identifier(n)) for n, _ in columns
        )
        chosen = None if ids is None else list(ids)
        found = connection.execute(
            query.format(values, sql.Identifier(layer), sql.Identifier(SCENARIO_ID)),
            [scenario_id, chosen, chosen],
        ).fetchall()
        return cls(layer, scenario_id, columns, [tuple(row) for row in found])

    def restore(self, connection: psycopg.Connection[Any]) -> None:
        """Every row's values put back by one statement (a join on the id: one pass, however
        many rows, and one change of the workspace's version)."""
        if not self.rows:
            return
        names = [sql.Identifier(f"c{number}") for number in range(len(self.columns))]
        update = sql.SQL(
            "UPDATE {layer} AS t SET {sets} FROM unnest({arrays}) AS v(id, {names}) "
            "WHERE t.{scenario} = %s AND t.id = v.id"
        ).format(
            layer=sql.Identifier(self.layer),
            sets=sql.SQL(", ").join(
                sql.SQL("{} = v.{}::{}").format(sql.Identifier(name), alias, sql.SQL(kind))
                for (name, kind), alias in zip(self.columns, names, strict=True)
            ),
            arrays=sql.SQL(", ").join([sql.SQL("%s::text[]")] * (len(names) + 1)),
            names=sql.SQL(", ").join(names),
            scenario=sql.Identifier(SCENARIO_ID),
        )
        arrays = [list(values) for values in zip(*self.rows, strict=True)]
        connection.execute(update, [*arrays, self.scenario_id])
