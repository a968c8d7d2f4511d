"""Import and edit: add a file's rows, edit convoys, draw zones and routes, see and undo changes."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st
from streamlit_folium import st_folium

from geo import changes, importing, store, tables, timeline
from geo.errors import ConflictError, CorridorError, ValidationError
from geo.home import scenario_homes
from geo.importing import MAX_UPLOAD_BYTES, Options, Prepared
from geo.mapview import MapView, drawing
from geo.readers import LAYERS, UPLOAD_TYPES
from geo.records import Confidence, Control, ConvoyStatus, RoutePrecision, Scenario, TimePrecision
from geo.safe_html import markdown_literal
from geo.scenario import iso_local
from geo.settings import Settings
from geo.store import Workspace
from pages.shared.session import (
    READ_MARK,
    SERVED_EVENTS,
    forget_read_marks,
    headed,
    language_choice,
    named,
    namer,
    published_assets,
    save,
    sign_in_form,
    t,
    viewer_only,
    who,
    workspace_location,
)

SETTINGS = Settings.from_environment()
GUESS = "(guess from the file)"
ss = st.session_state


@st.cache_resource(show_spinner=False)
def offline_geocoder(country_bias: str | None) -> Any:
    from geo.geocoding import OfflineGeocoder

    return OfflineGeocoder(country_bias=country_bias)


def geocoder(country_bias: str | None) -> Any:
    with st.spinner(t("Loading the offline gazetteer…")):
        return offline_geocoder(country_bias)


def open_workspace() -> tuple[Workspace, Scenario] | None:
    workspace = store.open_workspace(workspace_location())
    if not workspace.exists():
        st.info(t("No workspace at {path}. `make run` creates it from the shipped scenario; or "
                  "create it now.", path=workspace.label))  # fmt: skip
        if st.button(t("Create the workspace from the shipped scenario"), key="create_workspace"):
            changes.recover(workspace, fallback=SETTINGS.default_scenario_dir)
            st.rerun()
        return None
    try:
        ids = workspace.scenario_ids()
        chosen = st.sidebar.selectbox(t("Scenario"), ids, key="edit_scenario")
        marked = READ_MARK.format(scenario=chosen)  # (before what is shown was read)
        if marked not in ss:
            ss[marked] = changes.read_mark(workspace)
        return workspace, workspace.load(chosen)
    except CorridorError as error:
        st.error(t("The workspace could not be read:") + f"\n\n{error}")
        st.caption(t("Open the main page for the ways out (read-only, or restore from the dump)."))
        return None


# --- import -------------------------------------------------------------------------------


def import_section(workspace: Workspace, scenario: Scenario, user: str) -> None:
    st.subheader(t("Import a file"))
    st.caption(t("CSV or a spreadsheet (.xlsx, .ods; coordinates or place names), GeoJSON, KML, "
                 "GPX, GeoPackage, zipped Shapefile; ACLED's export, IOM DTM tables and "
                 "HXL-tagged tables from HDX. Valid rows go in; every other row is listed with "
                 "what was expected."))  # fmt: skip
    upload = st.file_uploader(t("File"), type=list(UPLOAD_TYPES), key="import_file")
    layer = st.selectbox(t("Layer"), [GUESS, *LAYERS], key="import_layer", format_func=namer())
    defaults = default_values(scenario)
    if upload is None:
        return
    if upload.size > MAX_UPLOAD_BYTES:
        st.error(t("{file}: expected a file of at most {limit} MB, got {size} MB",
                   file=upload.name, limit=MAX_UPLOAD_BYTES // 2**20,
                   size=f"{upload.size / 2**20:.1f}"))  # fmt: skip
        return
    data = upload.getvalue()
    options = Options(
        None if layer == GUESS else layer,
        defaults,
        ss.get("import_swap", frozenset()),
        sheet=sheet_choice(data, upload.name),
    )
    key = (hashlib.sha256(data).hexdigest(), upload.name, repr(options), scenario.id)
    if ss.get("prepared_key") != key:
        with st.spinner(t("Reading and checking every row…")):
            ss.prepared_read = changes.read_mark(workspace)  # (before what it is checked against)
            current = workspace.load(scenario.id)
            ss.prepared = importing.prepare_upload(
                data,
                upload.name,
                current,
                options=options,
                who=user,
                geocoder=geocoder(next(iter(scenario_homes(current)), None)),
            )
        ss.prepared_key = key
    prepared: Prepared = ss.prepared
    show_prepared(prepared)
    if prepared.swappable and not options.swap:
        label = t("Swap latitude and longitude in the {count} flagged row(s)",
                  count=len(prepared.swappable))  # fmt: skip
        if st.button(label, key="import_swap_button"):
            ss.import_swap = frozenset(prepared.swappable)
            st.rerun()
    if st.button(action(prepared, scenario.id),
                 disabled=not prepared.writes, key="import_commit", type="primary"):  # fmt: skip
        try:
            importing.commit_import(
                workspace, scenario.id, prepared, who=user, read=ss.prepared_read
            )
        except CorridorError as error:
            st.error(t("Nothing was added:") + f"\n\n{error}")
            if isinstance(error, ConflictError):
                ss.pop("prepared_key", None)  # (checked again against the latest next time)
            return
        ss.pop("prepared_key", None)
        ss.pop("import_swap", None)
        fresh_table()
        st.success(done(prepared))


def action(prepared: Prepared, scenario_id: str) -> str:
    """What committing would do, in the interface's words (`Prepared.action`, to where)."""
    if not prepared.revised and not prepared.unchanged:
        return t("Add {count} valid record(s) to {scenario}", count=prepared.accepted,
                 scenario=scenario_id)  # fmt: skip
    return t("Add {new} and update {revised} record(s) ({unchanged} unchanged) to {scenario}",
             **_counted(prepared), scenario=scenario_id)  # fmt: skip


def done(prepared: Prepared) -> str:
    """What committing did, in the interface's words (`Prepared.done`, from which file)."""
    if not prepared.revised and not prepared.unchanged:
        return t("Added {count} record(s) from {file}; undo below.", count=prepared.accepted,
                 file=prepared.file)  # fmt: skip
    return t("Added {new} and updated {revised} record(s) ({unchanged} unchanged) from {file}; "
             "undo below.", **_counted(prepared), file=prepared.file)  # fmt: skip


def _counted(prepared: Prepared) -> dict[str, int]:
    revised, unchanged = len(prepared.revised), prepared.unchanged
    return {"new": prepared.accepted - revised - unchanged, "revised": revised,
            "unchanged": unchanged}  # fmt: skip


EVERY_SHEET = "Every sheet it can read"


@st.cache_data(max_entries=4, show_spinner=False)
def upload_sheets(data: bytes, name: str) -> list[str]:
    """The upload's sheets, read once per file (not on every rerun of the page)."""
    return importing.upload_sheets(data, name)


def sheet_choice(data: bytes, name: str) -> str | None:
    """The one sheet of a workbook to read, when it has several (None: every sheet)."""
    sheets = upload_sheets(data, name)
    if len(sheets) < 2:
        return None
    every = t(EVERY_SHEET)  # (bound now: the format function runs again later)
    chosen = st.selectbox(
        t("Sheet"),
        [EVERY_SHEET, *sheets],
        key="import_sheet",
        format_func=lambda sheet: every if sheet == EVERY_SHEET else sheet,
    )
    return None if chosen == EVERY_SHEET else chosen


def default_values(scenario: Scenario) -> dict[str, str]:
    """Values for fields a file leaves blank (traced zones and tracks rarely carry them)."""
    with st.expander(t("Values for fields the file leaves blank")):
        columns = st.columns(3)
        control = columns[0].selectbox(
            t("Zone control"), ["", *Control], key="default_control", format_func=namer()
        )
        holder = columns[1].text_input(t("Zone held by"), key="default_holder")
        valid_from = columns[2].text_input(
            t("Zone valid from (ISO time with offset)"), key="default_valid_from",
            placeholder=iso_local(scenario.start, scenario.timezone),
        )  # fmt: skip
        convoy = columns[0].selectbox(
            t("Track/route of convoy"), ["", *(c.id for c in scenario.convoys)],
            key="default_convoy",
        )  # fmt: skip
        status = columns[1].selectbox(
            t("Convoy status"), ["", *ConvoyStatus], key="default_status", format_func=namer()
        )
    found = {"control": control, "holder": holder, "valid_from": valid_from, "convoy": convoy,
             "status": status}  # fmt: skip
    return {name: str(value) for name, value in found.items() if value}


def show_prepared(prepared: Prepared) -> None:
    columns = st.columns(3)
    columns[0].metric(t("Rows read"), prepared.rows)
    columns[1].metric(t("Valid records"), prepared.accepted)
    columns[2].metric(t("Rows rejected"), len(prepared.rejected))
    st.caption(markdown_literal(prepared.summary(t)))
    for problem in prepared.problems:  # (the file as a whole: not a CSV, too large, no sheet)
        if problem.severity == "error" and not problem.where:
            st.error(markdown_literal(str(problem)))
    if prepared.problems:
        frame = tables.problems_table(prepared.problems)
        frame["severity"] = frame["severity"].map(named)
        st.dataframe(frame, hide_index=True, width="stretch", key="import_problems",
                     column_config=headed(frame.columns))  # fmt: skip
        st.download_button(
            t("Download the report (CSV)"),
            data=prepared.report_csv(),
            file_name=f"{importing.slug(prepared.file)}-import-report.csv",
            mime="text/csv",
            on_click="ignore",
            key="import_report",
        )


# --- editing convoys ------------------------------------------------------------------------


def convoy_editor(workspace: Workspace, scenario: Scenario, user: str) -> None:
    st.subheader(t("Edit convoys"))
    st.caption(t("Status, times (ISO 8601 with offset), counts ('about 200', '1500-5000') and "
                 "confidence; checked by the same rules as an import."))  # fmt: skip
    before = tables.editable_convoys(scenario)
    choices = {
        "status": [s.value for s in ConvoyStatus],
        "time_precision": [p.value for p in TimePrecision],
        "confidence": [c.value for c in Confidence],
    }
    config: dict[str, Any] = {
        name: st.column_config.SelectboxColumn(options=options, required=True, format_func=namer())
        for name, options in choices.items()
    }
    marked = READ_MARK.format(scenario=scenario.id)  # (taken before the scenario was read)
    edited = st.data_editor(
        before,
        key=f"convoy_editor:{scenario.id}:{ss.get('convoy_saves', 0)}",
        hide_index=True,
        disabled=["id", "convoy"],
        num_rows="fixed",
        column_config=headed(before.columns, config),
    )
    edits = tables.convoy_edits(before, edited)
    columns = st.columns(2)
    if columns[0].button(t("Save {count} changed convoy(s)", count=len(edits)), disabled=not edits,
                         key="save_convoys"):  # fmt: skip
        commit(workspace, scenario, edits, user, note="convoy table edit",
               shown=t("convoy table edit"), read=ss[marked])  # fmt: skip
    if columns[1].button(t("Read the latest"), key="read_latest"):
        fresh_table()  # (the table shows what others saved)
        st.rerun()


def commit(
    workspace: Workspace,
    scenario: Scenario,
    edits: list[changes.Edit],
    user: str,
    *,
    note: str,
    shown: str,
    read: changes.ReadMark | None = None,
) -> None:
    """Save the edits, logged with `note` (shown to the user as `shown`, in their language)."""
    saved = save(workspace, scenario.id, edits, user, note=note, read=read)
    if saved is None:
        return
    ss.flash = t("Saved {count} change(s) ({note}).", count=len(saved), note=shown)
    fresh_table()
    st.rerun()


def fresh_table() -> None:
    """The convoy table shown anew from the workspace (its edits saved or undone)."""
    ss.convoy_saves = ss.get("convoy_saves", 0) + 1
    forget_read_marks()


# --- drawing --------------------------------------------------------------------------------


def draw_section(workspace: Workspace, scenario: Scenario, user: str) -> None:
    st.subheader(t("Draw a zone or a route"))
    st.caption(t("Use the toolbar on the map's left: a polygon or rectangle becomes a "
                 "control zone, a line a convoy's route leg. Then fill in its facts and "
                 "save."))  # fmt: skip
    view = MapView(at=timeline.opening_step(scenario))
    folium_map = drawing.drawing_map(
        scenario, view, asset_url=published_assets(), served=SERVED_EVENTS
    )
    returned = st_folium(folium_map, key="draw_map", height=480, width=None,
                         returned_objects=["last_active_drawing"])  # fmt: skip
    feature = (returned or {}).get("last_active_drawing")
    if not feature:
        return
    try:
        shape = drawing.drawn_shape(feature)
    except ValidationError as error:
        st.error(str(error))
        return
    if shape.geom_type == "LineString":
        route_form(workspace, scenario, user, shape)
    else:
        zone_form(workspace, scenario, user, shape)


def zone_form(workspace: Workspace, scenario: Scenario, user: str, shape: Any) -> None:
    with st.form("zone_form"):
        st.markdown(f"**{t('New control zone')}**")
        name = st.text_input(t("Name"))
        control = st.selectbox(t("Control"), list(Control), format_func=namer())
        holder = st.text_input(t("Held by"))
        valid_from = st.text_input(t("Valid from"), iso_local(scenario.start, scenario.timezone))
        valid_to = st.text_input(t("Valid to (blank: until further notice)"))
        source = st.selectbox(t("Source"), drawing.source_choices(scenario))
        quote = st.text_area(t("Quote (the sentence this rests on)"))
        if not st.form_submit_button(t("Save the zone")):
            return
    cells = {"name": name, "control": str(control), "holder": holder, "valid_from": valid_from,
             "valid_to": valid_to, "source": source, "quote": quote}  # fmt: skip
    commit(workspace, scenario, [drawing.zone_edit(shape, cells)], user,
           note=f"zone drawn on the map: {name}",
           shown=t("zone drawn on the map: {name}", name=name))  # fmt: skip


def route_form(workspace: Workspace, scenario: Scenario, user: str, shape: Any) -> None:
    places = [place.id for place in scenario.places]
    with st.form("route_form"):
        st.markdown(f"**{t('New route leg')}**")
        convoy = st.selectbox(t("Convoy"), [c.id for c in scenario.convoys])
        leg = st.number_input(t("Leg"), min_value=1, value=1, step=1)
        start = st.selectbox(t("From"), places)
        end = st.selectbox(t("To"), places)
        precision = st.selectbox(t("Precision"), list(RoutePrecision), format_func=namer())
        source = st.selectbox(t("Source"), drawing.source_choices(scenario))
        quote = st.text_area(t("Quote (the sentence this rests on)"))
        if not st.form_submit_button(t("Save the route leg")):
            return
    cells = {"convoy": convoy, "leg": str(leg), "from": start, "to": end,
             "precision": str(precision), "source": source, "quote": quote}  # fmt: skip
    commit(workspace, scenario, [drawing.route_edit(shape, cells)], user,
           note=f"route leg drawn on the map for {convoy}",
           shown=t("route leg drawn on the map for {convoy}", convoy=convoy))  # fmt: skip


# --- the change log -------------------------------------------------------------------------


def change_log(workspace: Workspace, scenario: Scenario, user: str) -> None:
    st.subheader(t("Changes"))
    log = changes.history(workspace, scenario.id)
    if not log:
        st.caption(t("No change yet."))
        return
    frame = tables.changes_table(log)
    for column in ("what", "layer", "field"):
        frame[column] = frame[column].map(named)
    st.dataframe(frame, hide_index=True, width="stretch", key="change_log",
                 column_config=headed(frame.columns))  # fmt: skip
    last = changes.undoable(workspace, scenario.id, who=user)
    if last:
        label = t("Undo my last change ({note})", note=last[0].note or named(last[0].action))
    else:
        label = t("Undo")
    if st.button(label, disabled=not last, key="undo"):
        try:
            changes.undo(workspace, scenario.id, who=user)
        except CorridorError as error:
            st.error(str(error))
            return
        ss.flash = t("Undone.")
        fresh_table()
        st.rerun()


def main() -> None:
    st.set_page_config(page_title=t("Corridor · import and edit"), layout="wide")
    language_choice("import")
    st.title(t("Import and edit"))
    user = who("import")
    sign_in_form()
    opened = open_workspace()
    if opened is None:
        return
    workspace, scenario = opened
    if viewer_only(workspace):
        return
    notice = st.container()  # (always there: the tabs keep their place, and the tab chosen)
    if "flash" in ss:
        notice.success(ss.pop("flash"))
    tabs = st.tabs([t("Import a file"), t("Edit convoys"), t("Draw"), t("Changes")])
    with tabs[0]:
        import_section(workspace, scenario, user)
    with tabs[1]:
        convoy_editor(workspace, scenario, user)
    with tabs[2]:
        draw_section(workspace, scenario, user)
    with tabs[3]:
        change_log(workspace, scenario, user)


main()
