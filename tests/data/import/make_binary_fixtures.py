"""Rebuild the binary import fixtures beside this script (run from the repository root):

    .venv/bin/python tests/data/import/make_binary_fixtures.py

zones.gpkg       three layers and a table: zones (polygons, EPSG:4326), checkpoints (points),
                 convoys (no geometry) and notes (no geometry, not a Corridor layer)
zones_shp.zip    a Shapefile in EPSG:32637 (UTM 37N, with its .prj) inside a folder
traversal.zip    a harmless GeoJSON and a member named ../evil.txt
bomb.zip         one member of 50 MB of zeros (about 50 KB compressed)

Zips are written with a fixed date, so rebuilding them gives the same bytes; the GeoPackage
records when it was written, so its bytes change (not its content).
"""

from __future__ import annotations

import tempfile
import zipfile
from pathlib import Path

import geopandas as gpd
import pandas as pd
import pyogrio
from shapely.geometry import MultiPolygon, Point, Polygon, box

HERE = Path(__file__).parent
DATE = (2016, 12, 15, 0, 0, 0)
EAST_ALEPPO = box(37.15, 36.17, 37.20, 36.21)
FUAA = box(36.69, 35.96, 36.72, 35.98)
KAFRAYA = box(36.67, 35.985, 36.70, 36.005)
BOMB_BYTES = 50 * 1024 * 1024


def zones() -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(
        {
            "id": ["z-east", "z-fuaa-kafraya"],
            "name": ["East Aleppo pocket (test outline)", "Fuaa and Kafraya (test outline)"],
            "control": ["opposition", "besieged"],
            "holder": ["Armed opposition groups", "Government-aligned forces"],
            # GeoPackage keeps date-times in UTC
            "valid_from": pd.to_datetime(["2016-12-12T22:00Z", "2016-12-12T22:00Z"]),
            "valid_to": pd.to_datetime(["2016-12-22T10:00Z", None]),
        },
        geometry=[Polygon(EAST_ALEPPO.exterior), MultiPolygon([FUAA, KAFRAYA])],
        crs=4326,
    )


def write_gpkg(path: Path) -> None:
    path.unlink(missing_ok=True)
    pyogrio.write_dataframe(
        zones(), path, layer="zones", driver="GPKG", layer_options={"SPATIAL_INDEX": "NO"}
    )
    checkpoints = gpd.GeoDataFrame(
        {"name": ["Ramouseh crossing (test)", "Rashidin (test)"], "kind": ["crossing", "point"]},
        geometry=[Point(37.1308, 36.1547), Point(37.0994, 36.1864)],
        crs=4326,
    )
    pyogrio.write_dataframe(
        checkpoints, path, layer="checkpoints", driver="GPKG", layer_options={"SPATIAL_INDEX": "NO"}
    )
    convoys = pd.DataFrame(
        {
            "id": ["cv-01", "cv-02"],
            "label": ["Buses from Fuaa (test)", "Buses from Kafraya (test)"],
            "destination": ["Ramouseh", "Ramouseh"],
            "people": pd.array([750, None], dtype="Int64"),
        }
    )
    pyogrio.write_dataframe(
        convoys, path, layer="convoys", driver="GPKG", layer_options={"SPATIAL_INDEX": "NO"}
    )
    notes = pd.DataFrame({"note": ["Traced for the Corridor tests, not from any report."]})
    pyogrio.write_dataframe(
        notes, path, layer="notes", driver="GPKG", layer_options={"SPATIAL_INDEX": "NO"}
    )


def write_shapefile_zip(path: Path) -> None:
    frame = zones().drop(columns=["valid_from", "valid_to"]).iloc[:1].to_crs(32637)
    frame["valid_from"] = ["2016-12-13T00:00+02:00"]
    with tempfile.TemporaryDirectory() as folder:
        shp = Path(folder) / "qgis_zones.shp"
        pyogrio.write_dataframe(
            frame, shp, driver="ESRI Shapefile", layer_options={"ENCODING": "UTF-8"}
        )
        members = {
            f"zones_utm/{part.name}": part.read_bytes() for part in sorted(Path(folder).iterdir())
        }
    write_zip(path, members)


def write_zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compresslevel=9)


def main() -> None:
    write_gpkg(HERE / "zones.gpkg")
    write_shapefile_zip(HERE / "zones_shp.zip")
    harmless = (HERE / "zones.geojson").read_bytes()
    write_zip(
        HERE / "traversal.zip",
        {"zones.geojson": harmless, "../evil.txt": b"This file must never be written.\n"},
    )
    write_zip(HERE / "bomb.zip", {"zones.geojson": bytes(BOMB_BYTES)})
    for name in ("zones.gpkg", "zones_shp.zip", "traversal.zip", "bomb.zip"):
        print(f"{name}: {(HERE / name).stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
