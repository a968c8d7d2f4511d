"""Rebuild the binary import fixtures beside this script (run from the repository root):

    .venv/bin/python tests/data/import/make_binary_fixtures.py

zones.gpkg       three layers and a table: zones (polygons, EPSG:4326), checkpoints (points),
                 convoys (no geometry) and notes (no geometry, not a Corridor layer)
zones_shp.zip    a Shapefile in EPSG:32637 (UTM 37N, with its .prj) inside a folder
traversal.zip    a harmless GeoJSON and a member named ../evil.txt
bomb.zip         one member of 50 MB of zeros (about 50 KB compressed)
acled.xlsx       acled.csv as an Excel workbook (dates, coordinates and counts as typed cells)
                 beside a "Read me" sheet of notes
dtm.xlsx         an IOM DTM-style table of displaced people by site (HXL-tagged, one broken
                 row) beside a "Read me" sheet; dtm.ods the same as an OpenDocument workbook

Zips are written with a fixed date, so rebuilding them gives the same bytes; the GeoPackage
records when it was written, so its bytes change (not its content).
"""

from __future__ import annotations

import csv
import tempfile
import zipfile
from datetime import date
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


README_SHEET = pd.DataFrame({"Notes": [
    "Invented test data for Corridor's import tests: it records nothing that happened.",
    "Figures, sites and dates are made up; the places are real, their points approximate.",
]})  # fmt: skip
DTM_HEADER = ["State", "Locality", "Site name", "Latitude", "Longitude", "IDP individuals",
              "IDP households", "Reporting date", "Partner"]  # fmt: skip
DTM_TAGS = ["#adm1+name", "#adm2+name", "#loc+name", "#geo+lat", "#geo+lon",
            "#affected+idps+ind", "#affected+idps+hh", "#date+reported", "#org+name"]  # fmt: skip
DTM_ROWS = [
    ["North Darfur", "Tawila", "Tawila (test site)", 13.53, 24.65, 12400, 2480,
     date(2025, 5, 1), "Test Partner A"],
    ["North Darfur", "El Fasher", "Abu Shouk camp (test site)", 13.66, 25.33, 8000, 1600,
     date(2025, 5, 1), "Test Partner A"],
    ["West Darfur", "El Geneina", "El Geneina", 13.45, 22.45, 5300, 1060, date(2025, 5, 2),
     "Test Partner B"],
    ["North Darfur", "Kutum", "Kutum (test site)", "unknown", 24.67, "n/a", 300,
     date(2025, 5, 2), "Test Partner B"],
    ["Central Darfur", "Zalingei", "Zalingei", 12.91, 23.47, 2150, 430, date(2025, 5, 3),
     "Test Partner A"],
]  # fmt: skip
"""Five sites: four good, and one (Kutum) whose latitude and count are words."""


def acled_rows() -> list[list[object]]:
    with (HERE / "acled.csv").open(encoding="utf-8", newline="") as file:
        rows: list[list[object]] = list(csv.reader(file))
    for row in rows[1:]:
        for index in (2, 3, 22, 23, 24, 28):  # year, time precision, lat, lon, precision, deaths
            row[index] = float(row[index]) if "." in str(row[index]) else int(str(row[index]))
        if str(row[1])[:4].isdigit():  # (ISO dates as date cells; the other spellings as text)
            row[1] = date.fromisoformat(str(row[1]))
    return rows


def write_workbook(path: Path, sheets: dict[str, list[list[object]]]) -> None:
    engine = "odf" if path.suffix == ".ods" else "openpyxl"
    with pd.ExcelWriter(path, engine=engine) as writer:
        for name, rows in sheets.items():
            pd.DataFrame(rows).to_excel(writer, sheet_name=name, header=False, index=False)


def main() -> None:
    write_gpkg(HERE / "zones.gpkg")
    write_shapefile_zip(HERE / "zones_shp.zip")
    harmless = (HERE / "zones.geojson").read_bytes()
    write_zip(
        HERE / "traversal.zip",
        {"zones.geojson": harmless, "../evil.txt": b"This file must never be written.\n"},
    )
    write_zip(HERE / "bomb.zip", {"zones.geojson": bytes(BOMB_BYTES)})
    notes = [["Notes"], *([line] for line in README_SHEET["Notes"])]
    write_workbook(HERE / "acled.xlsx", {"Data": acled_rows(), "Read me": notes})
    dtm = [DTM_HEADER, DTM_TAGS, *DTM_ROWS]
    for name in ("dtm.xlsx", "dtm.ods"):
        write_workbook(HERE / name, {"Read me": notes, "IDP sites": dtm})
    workbooks = ("acled.xlsx", "dtm.xlsx", "dtm.ods")
    for name in ("zones.gpkg", "zones_shp.zip", "traversal.zip", "bomb.zip", *workbooks):
        print(f"{name}: {(HERE / name).stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
