"""The map page: widgets, caching and session state only; the engine is in geo/."""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit_folium import st_folium

from geo import (
    changes,
    event_columns,
    export,
    extent,
    mapview,
    messages,
    tables,
    timeline,
    tracking,
)
from geo.analysis import RiskRules
from geo.errors import CorridorError, ProblemLog
from geo.mapview import ALL_LAYERS, BASES, LAYER_LABELS, MapView, permalink
from geo.mapview.place_labels import LABEL_LANGUAGES, LabelLanguage
from geo.mapview.viewport import ViewRequest
from geo.positions import Feed
from geo.records import Confidence, ConvoyStatus, Scenario
from geo.safe_html import markdown_literal
from geo.scenario import read_scenario
from geo.settings import Settings
from geo.store import Notifications, Workspace, add_positions, open_workspace, positions
from pages.shared.session import (
    SERVED_EVENTS,
    language,
    language_choice,
    own,
    owned,
    owner,
    published_assets,
    sign_in_form,
    t,
    workspace_location,
)

SETTINGS = Settings.from_environment()
MAP_HEIGHT = 620
PLAY_SECONDS = 1.0
TRACK_SECONDS = 10.0
# What the map reports back: its view (for the URL and exports), clicks and its overlays.
RETURNED = ["center", "zoom", "bounds", "last_object_clicked", "last_object_clicked_tooltip",
            "selected_layers"]  # fmt: skip
ss = st.session_state


def headings(frame: Any) -> dict[str, Any]:
    """A table's column headings in the interface language (its column names stay English)."""
    return dict(messages.headings(language(), frame.columns))


def isolated(text: object) -> str:
    """Text of another language or a date, kept in its own direction among Arabic words."""
    return messages.isolated(text, language())


# --- data (cached) ----------------------------------------------------------------------


def _modified(location: Path | str) -> float:
    """What changes when the workspace is written: a file's time, a PostGIS workspace's
    version (0 when there is no workspace)."""
    return open_workspace(location).modified()


@st.cache_resource(show_spinner=False, max_entries=64)
def signed_in(url: str) -> tuple[str, str]:
    """The database role a PostGIS workspace URL signs in as, and its team role (asked once
    per URL, not on every rerun)."""
    return open_workspace(url).signed_in()


@st.cache_resource(show_spinner=False)
def workspace_listener(database: str, _url: str) -> Notifications | None:
    """One listener per server process for a PostGIS workspace's writes (LISTEN/NOTIFY), shared
    by every session on that `database` whatever role it signed in as (it listens as the role
    of the first, `_url`: any role may listen)."""
    return open_workspace(_url).listener()


def watch_workspace() -> None:
    """With a PostGIS workspace, another analyst's committed change redraws the page within
    WATCH_SECONDS: the listener counts the database's notifications, and a fragment that
    looks at it every WATCH_SECONDS reruns the app when it moved."""
    location = workspace_location()
    workspace = open_workspace(location)
    if not workspace.shared or ss.get("read_only"):
        return
    listener = workspace_listener(workspace.without_login(), location)
    if listener is None:
        return

    @st.fragment(run_every=WATCH_SECONDS)
    def watch() -> None:
        if listener.problem:
            listener.offer(location)  # (its login may be the one gone: this session's may work)
            st.sidebar.warning(t("Not connected to the team workspace: {problem}; reconnecting.",
                                 problem=listener.problem))  # fmt: skip
        seen = ss.setdefault("workspace_seen", listener.count)
        if listener.count != seen:
            ss.workspace_seen = listener.count
            st.rerun(scope="app")

    watch()


WATCH_SECONDS = 0.5


@st.cache_data(show_spinner=False, max_entries=16)
def workspace_ids(path: str, modified: float) -> list[str]:
    return open_workspace(path).scenario_ids()


# A Scenario is immutable (frozen records in tuples), so every session can share the one loaded
# object: st.cache_data would copy it on every rerun (1.1 s for 100,000 events) and the map's
# per-scenario indexes (geo._memo, by identity) would be made again each time.
@st.cache_resource(show_spinner="Loading the scenario…", max_entries=4)
def load_from_workspace(path: str, scenario_id: str, modified: float) -> Scenario:
    return settled(open_workspace(path).load(scenario_id))


@st.cache_resource(show_spinner="Loading the scenario…", max_entries=4)
def load_from_folder(folder: str) -> Scenario:
    return settled(read_scenario(folder))


def settled(scenario: Scenario) -> Scenario:
    """The loaded scenario kept out of the garbage collector's rounds (gc.freeze).

    It is immutable and lives as long as the cache holds it; at 100,000 events every full
    collection walked its million objects, which cost a map rebuild 70 ms (0.20 -> 0.13 s).
    Reference counting still frees it when the cache lets it go.
    """
    gc.collect()
    gc.freeze()
    return scenario


def moments(scenario: Scenario) -> list[datetime]:
    return list(tables.step_labels(scenario))


def choose_scenario() -> Scenario:
    """The scenario picked in the sidebar, from the workspace or else the shipped folder."""
    if ss.get("read_only"):
        st.sidebar.warning(t("Read-only: the shipped scenario, not the workspace."))
        return load_from_folder(str(SETTINGS.default_scenario_dir))
    workspace = workspace_location()
    modified = _modified(workspace)
    ids = workspace_ids(str(workspace), modified) if modified else []
    if not ids:
        shown = open_workspace(workspace).label  # (a URL without its password)
        st.sidebar.info(t("No workspace at {path}; showing the shipped scenario.", path=shown))
        return load_from_folder(str(SETTINGS.default_scenario_dir))
    default = ids.index(SETTINGS.default_scenario) if SETTINGS.default_scenario in ids else 0
    chosen = st.sidebar.selectbox(t("Scenario"), ids, index=default, key="scenario")
    st.sidebar.caption(t("Workspace: `{path}`", path=open_workspace(workspace).label))
    if open_workspace(workspace).shared:
        role, team_role = signed_in(workspace)
        st.sidebar.caption(t("Signed in as {role} ({team})", role=role, team=team_role or "-"))
    return load_from_workspace(str(workspace), chosen, modified)


# --- session state and the URL ------------------------------------------------------------


def init_state(scenario: Scenario) -> None:
    """Session state from the URL on a session's first run for this scenario, then kept (on
    every page: the moment, layers and base map are owned by the session, see `owned`)."""
    if ss.get("initialised_for") == scenario.id:
        return
    switched = ss.get("initialised_for") not in (None, scenario.id)  # (the URL is the last one's)
    params = {} if switched else st.query_params
    link = permalink.read(params, (convoy.id for convoy in scenario.convoys))
    steps = moments(scenario)
    at = timeline.nearest_step(steps, link.at) if link.at else timeline.opening_step(scenario)
    own("at", at)
    for key in ALL_LAYERS:
        own(f"layer:{key}", key in link.layers)
    own("base", link.base)
    ss.selected = link.convoy
    center, zoom = link.center, link.zoom
    story = mapview.story_frame(scenario, MapView(at=at, layers=link.layers))
    selected = mapview.convoy_frame(scenario, ss.selected, at) if ss.selected else None
    if center or zoom:  # a permalink: its view, once; what it leaves out from the story
        ss.view_request = ViewRequest.at(story.bounds or [], center, zoom)
    elif selected is not None:  # a link to a convoy opens on it
        ss.view_request = selected
    else:
        ss.view_request = ViewRequest.fit(story.bounds or [])
    ss.reported = None
    ss.playing = False
    ss.last_tick = 0.0
    ss.last_click = None
    ss.initialised_for = scenario.id


def write_url(view: MapView) -> None:
    """The view in the URL, so that a copied link opens the same view."""
    center, zoom = shown_view()
    params = permalink.query(view, center=center, zoom=zoom, language=language())
    if dict(st.query_params) != params:
        st.query_params.from_dict(params)


def shown_view() -> tuple[tuple[float, float] | None, int | None]:
    """The centre and zoom the map last reported; until it reports, those it was asked for."""
    reported = ss.get("reported")
    if reported:
        return reported["center"], reported["zoom"]
    request: ViewRequest = ss.view_request
    return request.center, request.zoom


def apply_pending() -> None:
    """Changes made after the widgets were drawn (map toggles, playing) reach them next run."""
    if "advance_to" in ss:
        own("at", ss.pop("advance_to"))
    pending = ss.pop("pending_layers", None)
    if pending is not None:
        for key in ALL_LAYERS:
            own(f"layer:{key}", key in pending)


# --- sidebar ----------------------------------------------------------------------------


def languages() -> None:
    """The interface's language and the map's place names, first in the sidebar (and the URL):
    from the link on a session's first run, then the session's (on every page)."""
    link = permalink.read(st.query_params)
    chosen = language_choice("dashboard")
    if owner("labels") is None:
        own("labels", link.labels)
    words = messages.words(chosen)  # (bound now: a format function runs again later)
    st.sidebar.radio(
        t("Place names"),
        list(LABEL_LANGUAGES),
        format_func=lambda key: words(LABEL_LANGUAGES[key]),
        horizontal=True,
        **owned("labels", named_in=chosen, among=list(LABEL_LANGUAGES)),
    )


def sidebar(scenario: Scenario) -> MapView:
    labels, zone = tables.step_labels(scenario), scenario.timezone
    bar = st.sidebar
    # (choices are named in the language of this run: a format function runs again later)
    chosen = language()
    words = messages.words(chosen)
    bar.select_slider(
        t("As of"),
        options=list(labels),
        **owned("at", named_in=chosen),
        format_func=lambda moment: messages.isolated(
            labels.get(moment) or tables.short_time(moment, zone), chosen
        ),
    )
    bar.caption(t("{time} · 15-minute steps", time=tables.utc_time(owner("at"))))
    # Words, not glyphs: "⏸" needs an emoji font, and Streamlit's icon font (375 KB) held the
    # map back by a quarter of a second on a first visit.
    bar.button(t("Pause") if ss.playing else t("Play"), on_click=_toggle_play, key="play")
    bar.subheader(t("Layers"))
    for key in ALL_LAYERS:
        bar.checkbox(t(LAYER_LABELS[key]), **owned(f"layer:{key}"))
    base = owned("base", named_in=chosen, among=list(BASES))
    bar.radio(t("Base map"), list(BASES), format_func=lambda b: words(BASES[b]), **base)
    reset = bar.button(
        t("Reset view"),
        key="reset_view",
        help=t(
            "Frame the story at this moment again: convoys under way or arrived, and the "
            "besieged and contested zones"
        ),
    )
    bar.subheader(t("Filters"))
    statuses = bar.multiselect(
        t("Status"),
        [s.value for s in ConvoyStatus],
        default=[s.value for s in ConvoyStatus],
        format_func=words,
        key="statuses",
    )
    organisations = sorted({c.organisation for c in scenario.convoys})
    chosen_orgs = bar.multiselect(
        t("Organisation"),
        organisations,
        default=organisations,
        format_func=lambda name: name or words("(not stated)"),
    )
    confidences = bar.multiselect(
        t("Confidence"),
        [c.value for c in Confidence],
        default=[c.value for c in Confidence],
        format_func=words,
        key="confidences",
    )
    event_types, event_days = event_filters(scenario)
    bar.subheader(t("Route risk"))
    buffer_km = bar.number_input(t("Events within (km)"), 0.5, 50.0, 5.0, step=0.5, key="risk_km")
    days = bar.number_input(t("…over the last (days)"), 1, 365, 7, key="risk_days")
    bar.subheader(t("Live tracking"))
    bar.text_input(
        t("Watch a position file (CSV)"), key="track_file",
        help=t("convoy, time, latitude, longitude[, speed_kmh, note]; new lines are read every "
               "few seconds and kept in the workspace"),
    )  # fmt: skip
    bar.number_input(t("Every (seconds)"), 2.0, 600.0, TRACK_SECONDS, key="track_seconds")
    view = MapView(
        at=owner("at"),
        layers=frozenset(key for key in ALL_LAYERS if owner(f"layer:{key}")),
        base=owner("base"),
        statuses=frozenset(ConvoyStatus(s) for s in statuses),
        organisations=frozenset(chosen_orgs),
        confidences=frozenset(Confidence(c) for c in confidences),
        selected=ss.selected,
        event_types=event_types,
        event_days=event_days,
        risk_rules=RiskRules(buffer_km=float(buffer_km), days=int(days)),
        labels=LabelLanguage(owner("labels")),
        language=language(),
    )
    if reset:
        reset_view(scenario, view)
    return view


def event_filters(scenario: Scenario) -> tuple[frozenset[str] | None, int | None]:
    """Imported conflict events: which types, and how many days before the moment."""
    if not scenario.events:
        return None, None
    bar = st.sidebar
    types = event_columns.columns(scenario).kinds  # made once per scenario
    chosen = bar.multiselect(t("Event types"), types, default=types, key="event_types")
    if owner("event_days") is None:
        own("event_days", 7)
    lang = language()
    days = bar.select_slider(
        t("Events of the last"), options=[1, 3, 7, 14, 30, 90, 365, 0],
        format_func=lambda n, lang=lang: messages.say(
            lang, "{days} day(s)" if n else "any time before", days=n
        ), **owned("event_days", named_in=lang),
    )  # fmt: skip
    return frozenset(chosen), days or None


def _toggle_play() -> None:
    ss.playing = not ss.playing


def play(scenario: Scenario) -> None:
    """While playing, step the "as of" moment forward every second."""
    if not ss.playing:
        return

    @st.fragment(run_every=PLAY_SECONDS)
    def tick() -> None:
        now = time.monotonic()
        if now - ss.get("last_tick", 0.0) < PLAY_SECONDS * 0.9:
            return  # the run that draws the page calls this too: wait for the timer
        ss.last_tick = now
        following = timeline.next_step(moments(scenario), owner("at"))
        if following is None:
            ss.playing = False
        else:
            ss.advance_to = following  # the slider takes it before it is drawn
        st.rerun()

    tick()


# --- main area --------------------------------------------------------------------------


def headline(scenario: Scenario, at: datetime) -> None:
    metrics = tables.headline_metrics(scenario, at)
    for column, metric in zip(st.columns([3, 1, 1, 1, 3]), metrics, strict=True):
        column.metric(t(metric.label), t(metric.value), help=metric.help or None)


def show_map(scenario: Scenario, view: MapView) -> None:
    """The map; with live tracking on, redrawn every few seconds with only its positions new."""
    watched = ss.get("track_file", "").strip()
    if not watched:
        draw_map(scenario, view)
        return
    seconds = float(ss.get("track_seconds", TRACK_SECONDS))

    @st.fragment(run_every=seconds)
    def live() -> None:
        states, reports = follow(scenario, watched)
        labels = {convoy.id: convoy.label for convoy in scenario.convoys}
        draw_map(scenario, view, live=mapview.tracks_group(states, reports, labels))
        tracking_table(scenario, states)

    live()


def follow(scenario: Scenario, path: str) -> tuple[dict[str, Any], Sequence[Any]]:
    """New lines of the watched file into the workspace; every convoy's state now.

    The workspace's reports are read once when a file is first watched; after that each tick
    only adds the lines appended since. The feed in the session state holds them: reading
    session state can stop a run that a newer one replaces, so nothing read from the file is
    kept only in local variables.
    """
    log = ProblemLog()
    workspace = open_workspace(workspace_location())
    try:
        feed = live_feed(scenario, path, workspace)
        feed.poll(log)
    except (OSError, CorridorError) as error:
        st.warning(f"Live tracking: {path}: {error}")
        return {}, []
    try:
        if feed.unsaved and workspace.exists():
            feed.saved(add_positions(workspace, scenario.id, feed.unsaved))
    except (OSError, CorridorError) as error:
        st.warning(
            f"Live tracking: {len(feed.unsaved)} report(s) are shown but not yet kept in the "
            f"workspace; they are tried again on the next read. {error}"
        )
    reports = feed.reports
    for problem in list(log)[:5]:
        st.caption(markdown_literal(f"Live tracking: {problem}"))
    now, replaying = tracking.as_of(scenario, reports, datetime.now(UTC))
    if replaying:
        st.caption(f"Live tracking: replaying, as of the latest report ({tables.utc_time(now)})")
    return tracking.track_states(scenario, reports, now), reports


def live_feed(scenario: Scenario, path: str, workspace: Workspace) -> Feed:
    """The session's feed of this file for this scenario; a new one for another file."""
    feed = ss.get("feed")
    if feed is None or str(feed.path) != path or feed.scenario_id != scenario.id:
        kept = positions(workspace, scenario.id) if workspace.exists() else []
        feed = ss.feed = Feed(path, scenario.id, kept)
    return feed


def tracking_table(scenario: Scenario, states: dict[str, Any]) -> None:
    table = tables.tracking_table(list(states.values()))
    st.caption(f"Live positions: {len(table)} convoys reporting")
    if len(table):
        st.dataframe(
            table, hide_index=True, width="stretch", column_config=headings(table), key="tracking"
        )


def draw_map(scenario: Scenario, view: MapView, *, live: Any = None) -> None:
    """The map, opened on the view last asked for; the view the browser shows is the truth.

    No centre or zoom goes back to st_folium: the map keeps its own view in the tab (see
    geo.mapview.viewport.ViewKeeper), even when it is drawn again, and moves only when a new request
    (a permalink, a convoy selected, "reset view") is drawn into it. A new moment (the slider,
    Play) is drawn into the standing map (geo.mapview.moment), which is not mounted again.
    """
    options: dict[str, Any] = {
        "asset_url": published_assets(),
        "served": SERVED_EVENTS,
        "frame": ss.view_request,
        "keep_view": f"corridor-view:{scenario.id}",
    }
    if live is None:  # time moves: the moment is swapped into a map that stands
        drawn = mapview.build_live_map(scenario, view, **options)
        standing, swapped = drawn.standing, [drawn.moment]
    else:  # positions move every few seconds: only they are swapped, the moment stands
        standing, swapped = mapview.build_map(scenario, view, **options), [live]
    returned = st_folium(
        standing,
        key="map",
        height=MAP_HEIGHT,
        feature_group_to_add=swapped,
        width=None,
        returned_objects=RETURNED,
    )
    if not returned:
        return
    _note_view(returned)
    on_map = mapview.selected_layers(returned.get("selected_layers"))
    if on_map is not None and on_map != view.layers:
        ss.pending_layers = on_map
        st.rerun()
    click = returned.get("last_object_clicked")
    if click and click != ss.last_click:
        ss.last_click = click
        zoom = (ss.reported or {}).get("zoom")
        tooltip = returned.get("last_object_clicked_tooltip")
        picked = mapview.convoy_clicked(scenario, view, click["lat"], click["lng"], tooltip, zoom)
        if picked and picked != ss.selected:
            _select_and_zoom(scenario, picked, popup=tooltip or "")
            st.rerun()


def _note_view(returned: dict[str, Any]) -> None:
    """What the map shows now, as it reported it (for the URL and the exports), and the first
    view it reported holding the frame it was asked for (what "moved" is measured from)."""
    reported = mapview.reported_view(returned)
    if reported is not None:
        ss.reported = reported
        request: ViewRequest = ss.view_request
        fitted = ss.get("fitted_view")
        if (fitted is None or fitted[0] != request.token) and extent.holds(
            reported, request.bounds
        ):
            ss.fitted_view = (request.token, reported)


def reset_view(scenario: Scenario, view: MapView) -> None:
    """Frame the story at the moment shown again (the button under the layers)."""
    ss.view_request = ViewRequest.fit(mapview.story_frame(scenario, view).bounds or [])


def export_frame(scenario: Scenario, view: MapView) -> ViewRequest | None:
    """The export panel's choice of extent: the view on screen (the first choice once the
    user has moved the map, until they choose) or the story frame (None)."""
    if not ss.get("extent_chosen"):
        fitted = ss.get("fitted_view")
        request: ViewRequest = ss.view_request
        ss.export_extent = extent.default_choice(
            request,
            mapview.story_frame(scenario, view),
            ss.get("reported"),
            fitted[1] if fitted and fitted[0] == request.token else None,
        )
    words = messages.words(language())
    chosen = st.radio(
        t("Extent"),
        list(extent.CHOICES),
        format_func=lambda key: words(extent.CHOICES[key]),
        horizontal=True,
        key="export_extent",
        on_change=_extent_chosen,
        help=t("The maps (HTML, PNG, PDF) frame this; the data files hold all that is shown"),
    )
    return extent.on_screen(ss.get("reported")) if chosen == "view" else None


def _extent_chosen() -> None:
    ss.extent_chosen = True


def export_panel(scenario: Scenario, view: MapView) -> None:
    """Download the current view: the same files `python -m geo export` makes."""
    with st.expander(t("Export snapshot")):
        frame = export_frame(scenario, view)
        sizes = st.columns(4)
        width = sizes[0].number_input(t("Width (px)"), 400, 6000, 1600, step=100, key="png_width")
        height = sizes[1].number_input(
            t("Height (px)"), 300, 4000, 1000, step=100, key="png_height"
        )
        scale = sizes[2].selectbox(
            t("Scale"),
            [1.0, 2.0, 3.125],
            key="png_scale",
            help=t("3.125 device pixels per CSS pixel = 300 dpi"),
        )
        paper = sizes[3].selectbox(t("PDF paper"), list(export.PAPER), key="pdf_paper")
        hxl = st.checkbox(
            t("HXL hashtags in the CSV (for HDX)"),
            key="csv_hxl",
            help=t("A row of HXL tags under each CSV's header, such as #geo+lat (hxlstandard.org)"),
        )
        snapshot = export.Snapshot(
            scenario,
            view,
            width=int(width),
            height=int(height),
            scale=float(scale),
            paper=str(paper),
            hxl=hxl,
            frame=frame,
        )
        labels = export.FORMAT_LABELS
        for column, fmt in zip(st.columns(len(labels)), labels, strict=True):
            column.download_button(
                t(labels[fmt]),
                data=lambda fmt=fmt: export.render(snapshot, fmt),
                file_name=export.file_name(snapshot, fmt),
                mime=export.MEDIA_TYPES[fmt],
                on_click="ignore",
                key=f"download_{fmt}",
            )
        pictures = st.columns(2)
        for column, fmt in zip(pictures, ("png", "pdf"), strict=True):
            _picture(column, snapshot, fmt)


def _picture(column: Any, snapshot: export.Snapshot, fmt: str) -> None:
    """PNG and PDF need Chromium: made on request, with a spinner, then offered for download."""
    name = export.download_name(snapshot, fmt)
    if column.button(t("Make {format}", format=fmt.upper()), key=f"make_{fmt}"):
        try:
            with st.spinner(t("Chromium is drawing the map…")):
                ss[f"made_{fmt}"] = (name, export.render(snapshot, fmt), snapshot.frame)
        except CorridorError as error:
            column.error(str(error))
    made = ss.get(f"made_{fmt}")  # (a picture of another view is not offered as this one's)
    if made and made[0] == name and made[2] == snapshot.frame:
        column.download_button(
            t("Download {format}", format=fmt.upper()),
            data=made[1],
            file_name=name,
            mime=export.MEDIA_TYPES[fmt],
            on_click="ignore",
            key=f"download_{fmt}",
        )


def convoys(scenario: Scenario, view: MapView) -> None:
    st.subheader(t("Convoys"))
    shown = {convoy.id for convoy in mapview.visible_convoys(scenario, view)}
    risks = mapview.alerts(scenario, view)
    frame = tables.shown_convoys(scenario, view.at, shown, selected=view.selected, risks=risks)
    event: Any = st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config=headings(frame),
        on_select="rerun",
        selection_mode="single-row",
        key="convoy_table",
    )
    rows = list(event.selection.rows) if event else []
    picked = str(frame.iloc[rows[0]]["id"]) if rows else None
    if picked and picked != ss.get("table_pick"):
        ss.table_pick = picked
        _select_and_zoom(scenario, picked)
        st.rerun()
    ss.table_pick = picked
    if view.selected:
        details(scenario, view)


def risk_panel(scenario: Scenario, view: MapView) -> None:
    """Each route's figures and the rule that made its level (switch on the risk layer)."""
    risks = mapview.alerts(scenario, view)
    with st.expander(t("Route risk"), expanded=False):
        if risks is None:
            st.caption(t("Switch on the “Route risk” layer to analyse this many routes."))
            return
        st.caption(markdown_literal((view.risk_rules or RiskRules()).describe()))
        table = tables.risk_table(list(risks.values()))
        st.dataframe(
            table, hide_index=True, width="stretch", column_config=headings(table), key="risk_table"
        )


def _select_and_zoom(scenario: Scenario, convoy_id: str, *, popup: str = "") -> None:
    """Select a convoy and ask the map, once, to frame its route and where it is (and to open
    again the popup of what was clicked)."""
    ss.selected = convoy_id
    frame = mapview.convoy_frame(scenario, convoy_id, owner("at"), popup=popup)
    if frame is not None:
        ss.view_request = frame


def details(scenario: Scenario, view: MapView) -> None:
    convoy = next(c for c in scenario.convoys if c.id == view.selected)
    frame = tables.convoy_details(scenario, convoy.id, view.at)
    st.markdown(f"**{t('Selected:')}** {markdown_literal(convoy.label)}")
    note = mapview.state_note(timeline.convoy_at(scenario, convoy, view.at))
    if note:
        st.caption(markdown_literal(note))
    st.table(frame.rename(index=messages.headings(language(), frame.index)))
    if st.button(t("Clear selection"), key="clear"):
        ss.selected = None
        st.rerun()


def sources(scenario: Scenario) -> None:
    with st.expander(t("Sources, places, figures and zones"), expanded=False):
        tabs = st.tabs([t("Sources"), t("Figures"), t("Places"), t("Zones")])
        frames = (
            tables.sources_table(scenario),
            tables.figures_table(scenario),
            tables.places_table(scenario),
            tables.zones_table(scenario),
        )
        for tab, frame in zip(tabs, frames, strict=True):
            tab.dataframe(frame, hide_index=True, width="stretch")
    st.caption(t("Disclaimer: {text}", text=markdown_literal(scenario.disclaimer)))


def ways_out() -> None:
    """A broken or locked workspace: read the shipped scenario, or rebuild from the last dump."""
    workspace = open_workspace(workspace_location())
    saved = changes.dumps(workspace)
    columns = st.columns(2)
    if columns[0].button(t("Open the shipped scenario read-only"), key="open_read_only"):
        ss.read_only = True
        st.rerun()
    if workspace.shared:  # a team's database: never written over
        st.caption("The team workspace is in PostGIS: ask its admin to look at it (QGIS or "
                   "psql), or open the shipped scenario read-only.")  # fmt: skip
        return
    what = (
        f"the last saved state of {', '.join(folder.name for folder in saved)}"
        if saved
        else "the shipped scenario (no saved state was found)"
    )
    columns[1].caption(f"Rebuild sets the file aside (renamed, not deleted) and loads {what}.")
    if columns[1].button(t("Rebuild the workspace"), key="rebuild_workspace"):
        try:
            restored = changes.recover(workspace, fallback=SETTINGS.default_scenario_dir)
        except CorridorError as error:
            st.error(f"The workspace could not be rebuilt:\n\n{error}")
            return
        st.cache_data.clear()
        ss.flash = f"Rebuilt {workspace.path} with {', '.join(restored)}."
        st.rerun()


def main() -> None:
    languages()
    try:
        scenario = choose_scenario()
    except CorridorError as error:
        st.error(f"{t('Corridor could not load the scenario:')}\n\n{error}")
        sign_in_form()  # (a team workspace the server's own URL may not open)
        ways_out()
        return
    sign_in_form()
    notice = st.container()  # (always there: what follows keeps its place when it goes)
    if "flash" in ss:
        notice.success(ss.pop("flash"))
    watch_workspace()
    init_state(scenario)
    apply_pending()
    view = sidebar(scenario)
    st.title(scenario.title)
    moment = t(
        "As of {local} ({utc})",
        local=tables.local_time(view.at, scenario.timezone),
        utc=tables.utc_time(view.at),
    )
    st.caption(f"{moment} · {isolated(markdown_literal(scenario.summary[:160]) + '…')}")
    headline(scenario, view.at)
    try:
        show_map(scenario, view)
    except CorridorError as error:
        st.error(f"{t('The map could not be drawn:')}\n\n{error}")
        ss.page_shown = True  # no map will report back: show the rest now
    if ss.get("page_shown"):
        below_the_map(scenario, view)
    else:  # a session's first run: the map first; its first report reruns with the rest
        ss.page_shown = True
    write_url(view)
    play(scenario)


def below_the_map(scenario: Scenario, view: MapView) -> None:
    """Exports, the convoy table, route risk and sources.

    Left out of a session's first run: their page code (the data grid's alone is 1.2 MB of
    JavaScript) would hold the map back by about half a second. The map reports its first
    centre and zoom as soon as it has drawn, which reruns the script with them in.
    """
    export_panel(scenario, view)
    convoys(scenario, view)
    risk_panel(scenario, view)
    sources(scenario)


main()
