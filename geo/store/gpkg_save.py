"""A GeoPackage saved whole: the rows a save keeps, the fields other programs added, their types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import geopandas as gpd
import pandas as pd
import pyogrio

from geo.store.layout import CRS, FID, SCENARIO_ID

_NULLABLE: dict[tuple[str, str], Any] = {
    ("OFTInteger", "OFSTBoolean"): pd.BooleanDtype(),
    ("OFTInteger", "OFSTInt16"): pd.Int16Dtype(),
    ("OFTInteger", "OFSTNone"): pd.Int32Dtype(),
    ("OFTInteger64", "OFSTNone"): pd.Int64Dtype(),
}
"""The pandas types that write back as GDAL read a field (pandas reads a whole number or a
yes/no beside an empty cell as a float, which would be written back as REAL)."""


def without_scenario(frame: pd.DataFrame | None, scenario_id: str) -> pd.DataFrame | None:
    """A layer's rows but the scenario's (None for no layer)."""
    if frame is None:
        return None
    return frame[frame[SCENARIO_ID] != scenario_id]


def with_extras(fresh: pd.DataFrame, old: pd.DataFrame | None, scenario_id: str) -> pd.DataFrame:
    """A scenario's `fresh` rows with the values of columns another program added to the layer
    (QGIS, say), taken from its `old` rows of the same id: a save does not lose them."""
    if old is None or "id" not in fresh.columns:
        return fresh
    extra = [name for name in old.columns if name not in fresh.columns and name != "geometry"]
    if not extra:
        return fresh
    mine = old.loc[old[SCENARIO_ID] == scenario_id, ["id", *extra]].drop_duplicates("id")
    merged = fresh.merge(pd.DataFrame(mine), on="id", how="left")
    if isinstance(fresh, gpd.GeoDataFrame):
        spatial: pd.DataFrame = gpd.GeoDataFrame(merged, geometry="geometry", crs=CRS)
        return spatial
    return merged


def added_types(
    path: Path, layer: str, written: pd.DataFrame, fresh: pd.DataFrame
) -> dict[str, Any]:
    """The fields another program added to a layer that the rows `written` carry (those not in
    `fresh`) and that hold whole numbers or yes/no, each with the pandas type that writes it
    back as declared (the layer's field list is read only when there are such columns)."""
    extra = set(written.columns) - set(fresh.columns)
    if not extra:
        return {}
    info = pyogrio.read_info(path, layer=layer)
    fields = zip(info["fields"], info["ogr_types"], info["ogr_subtypes"], strict=True)
    return {
        str(name): _NULLABLE[(kind, subtype)]
        for name, kind, subtype in fields
        if name in extra and (kind, subtype) in _NULLABLE
    }


def as_declared(frame: pd.DataFrame, types: dict[str, Any]) -> tuple[pd.DataFrame, set[str]]:
    """The frame with each column of `types` in its type where its values allow (where not,
    the column stays as read: a save is not refused for it), and the columns typed."""
    typed = set()
    for name, kind in types.items():
        try:
            frame[name] = frame[name].astype(kind)
        except (TypeError, ValueError, OverflowError):
            continue
        typed.add(name)
    return frame, typed


def numbered_after(kept: pd.DataFrame | None, rows: pd.DataFrame) -> pd.DataFrame:
    """Rows to add after `kept`, with the feature ids that follow its own (when it has them)."""
    if kept is None or FID not in kept.columns or kept.empty:
        return rows
    first = int(kept[FID].max()) + 1
    return rows.assign(**{FID: range(first, first + len(rows))})


def concat(kept: pd.DataFrame | None, fresh: pd.DataFrame) -> pd.DataFrame:
    """`fresh` rows after the `kept` ones (a GeoDataFrame when `fresh` is one)."""
    if kept is None or kept.empty:
        return fresh
    combined = pd.concat([kept, fresh], ignore_index=True)
    if isinstance(fresh, gpd.GeoDataFrame):
        spatial: pd.DataFrame = gpd.GeoDataFrame(combined, geometry="geometry", crs=CRS)
        return spatial
    return combined
