"""Who is editing (for the change log), the map assets, and saving edits: shared by every page."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Any

import streamlit as st

from geo import changes, messages
from geo.errors import ConflictError, CorridorError, ValidationError
from geo.mapview import assets, event_points, permalink
from geo.settings import Settings
from geo.store import Workspace, open_workspace


@st.cache_resource(show_spinner=False)
def published_assets() -> str:
    """Leaflet, plugins and the base map copied once into Streamlit's static folder."""
    assets.publish(assets.STREAMLIT_STATIC)
    return assets.STREAMLIT_URL


SERVED_EVENTS = event_points.Served(assets.STREAMLIT_EVENTS, assets.STREAMLIT_EVENTS_URL)
"""Where a page's map publishes more events than its HTML should carry (see event_points)."""


def who(page: str) -> str:
    """The name written in the change log: what the user typed, or this session's own label.

    The same on every page, so that a change made on one page can be undone from another.
    Streamlit keeps a widget's value only while its page is shown, so each page has its own
    field (`who:<page>`), filled from the name kept for the session.
    """
    ss = st.session_state
    if "session_label" not in ss:
        ss.session_label = f"session-{uuid.uuid4().hex[:6]}"
    key = f"who:{page}"
    if key not in ss:
        ss[key] = ss.get("user_name", "")
    typed = st.sidebar.text_input(
        t("Your name (for the change log)"),
        key=key,
        help=t("Written beside each change; “Undo my last change” undoes only yours"),
    ).strip()
    ss.user_name = typed
    return typed or str(ss.session_label)


OWNED = "owned:{key}"
"""Where the session keeps the value of the widget `key` (a key Streamlit never drops)."""
NAMED_IN = "named-in:{key}"
"""The language the widget `key`'s choices were last named in."""


def owned(key: str, *, named_in: str = "", among: Sequence[Any] | None = None) -> dict[str, Any]:
    """The keyword arguments of a widget whose value the session owns.

    Streamlit drops a widget's value when a page run does not draw it (another page was
    opened), and the browser holds a choice by the name it was shown under, so a choice
    named in another language since is lost there. The value lives under OWNED instead: it
    is taken back when the user changes it, and given to the widget when the widget has
    none, another (set by the app), or was last drawn otherwise (`named_in`: the language
    of its choices, the page it is on). Otherwise the browser's value is left alone: a run
    outpaced by the user's next move does not set the widget back.

    The value is the widget's default as well (`index` in `among`, the choices of a radio or
    select box; else `value`): a page link clicked during the run a language switch began
    lets the browser draw the widgets again from their defaults and send those back as
    changes (the moment at the span's start, every layer off, English: seen in Chromium,
    stop 52), which would be taken back as the user's.
    """
    ss = st.session_state
    value = ss[OWNED.format(key=key)]
    named = NAMED_IN.format(key=key)
    if key not in ss or ss[key] != value or ss.get(named) != named_in:
        ss[key] = value
    ss[named] = named_in
    given: dict[str, Any] = {"key": key, "on_change": _take_back, "args": (key,)}
    if among is None:
        given["value"] = value
    else:
        given["index"] = list(among).index(value) if value in among else 0
    return given


def _take_back(key: str) -> None:
    st.session_state[OWNED.format(key=key)] = st.session_state[key]


def own(key: str, value: object) -> None:
    """Set the value of the owned widget `key` (drawn with it from the next drawing on)."""
    st.session_state[OWNED.format(key=key)] = value


def owner(key: str, default: Any = None) -> Any:
    """The value of the owned widget `key`, `default` while it has none."""
    return st.session_state.get(OWNED.format(key=key), default)


def language() -> str:
    """The interface language this session chose (until it chose, the one its link asks for)."""
    return str(owner("language") or permalink.read(st.query_params).language)


def t(message: str, **values: object) -> str:
    """A message in the interface language chosen in the sidebar (English when untranslated),
    its {placeholders} filled with `values` (kept in their own direction in Arabic)."""
    return messages.say(language(), message, **values)


def named(choice: object) -> str:
    """A choice's code shown as a word in the interface language: 'under_way' as 'under way'
    (in Arabic, its Arabic), '' as ''."""
    return t(str(choice).replace("_", " ")) if str(choice) else ""


def namer() -> Callable[[object], str]:
    """`named` in the language of this run: a widget's format function, which Streamlit (and
    AppTest, between runs) calls again later, outside the run that drew it."""
    said = messages.words(language())
    return lambda choice: said(str(choice).replace("_", " ")) if str(choice) else ""


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")  # fmt: skip


def day_said(day: date, *, short: bool = False) -> str:
    """A date as '3 March 2025' ('03 Mar 2025' when `short`), its month in the interface's
    language."""
    month = MONTHS[day.month - 1]
    if short:
        return f"{day:%d} {t(month[:3])} {day:%Y}"
    return f"{day.day} {t(month)} {day:%Y}"


def headed(columns: Iterable[object], config: dict[str, Any] | None = None) -> dict[str, Any]:
    """A table's column_config with each column's heading in the interface language (its
    column names stay English): `config`'s entries keep what they set, a label added."""
    config = dict(config or {})
    for column, heading in messages.headings(language(), columns).items():
        given = config.get(column)
        if given is None:
            config[column] = heading
        elif isinstance(given, dict) and not given.get("label"):
            config[column] = {**given, "label": heading}
    return config


def language_choice(page: str) -> str:
    """The interface's language, chosen at the top of the sidebar on every page and kept for
    the session (on its first run, the language its link asks for). Each `page` draws a
    widget of its own, which Streamlit starts at its first choice: it is given the session's."""
    if OWNED.format(key="language") not in st.session_state:
        own("language", permalink.read(st.query_params).language)
    st.sidebar.radio(
        "Interface · الواجهة",
        list(messages.LANGUAGES),
        format_func=messages.LANGUAGES.__getitem__,
        horizontal=True,
        **owned("language", named_in=page, among=list(messages.LANGUAGES)),
    )
    chosen = language()
    st.sidebar.markdown(COMPACT_CSS, unsafe_allow_html=True)  # (in the sidebar: no gap above)
    if messages.direction(chosen) == "rtl":
        st.markdown(RIGHT_TO_LEFT_CSS, unsafe_allow_html=True)
    return chosen


COMPACT_CSS = """<style>
[data-testid="stMainBlockContainer"] {padding-top: 1.75rem; padding-bottom: 2rem}
[data-testid="stMetricValue"] {font-size: 1.75rem}
</style>"""
"""The page's top margin and the headline figures made smaller, so that at 1440 x 900 the
map fits under the title and figures whole (Streamlit leaves 6rem above the title)."""


RIGHT_TO_LEFT_CSS = """<style>
.stApp, [data-testid="stSidebar"] {direction: rtl}
[data-testid="stSidebar"] [data-baseweb="slider"], .stApp iframe {direction: ltr}
</style>"""


def workspace_location() -> str:
    """The workspace this session works in: the one the server was started on, or, for a team
    workspace in PostGIS, the same database as the role this session signed in with."""
    signed: str | None = st.session_state.get("signed_in_url")
    return signed or Settings.from_environment().workspace


def sign_in_form() -> None:
    """For a team workspace: sign this session in with one's own database role and password
    (checked by PostgreSQL, kept in this session only and never shown). Drawn once per run."""
    settings = Settings.from_environment()
    if not open_workspace(settings.workspace).shared:
        return
    ss = st.session_state
    with st.sidebar.expander(t("Sign in with your database role"), expanded=False):
        with st.form("sign_in", clear_on_submit=True, border=False):
            role = st.text_input(t("Database role"), key="sign_in_role").strip()
            password = st.text_input(t("Password"), type="password", key="sign_in_password")
            submitted = st.form_submit_button(t("Sign in"))
        if submitted:
            del ss["sign_in_password"]  # (kept in the URL of this session alone)
            _sign_in(settings, role, password)
        if ss.get("signed_in_url") and st.button(t("Sign out"), key="sign_out"):
            _signed_in_as(None)


def _sign_in(settings: Settings, role: str, password: str) -> None:
    try:
        url = open_workspace(settings.workspace).sign_in(
            role, password, unchecked=settings.sign_in_unchecked
        )
        open_workspace(url).signed_in()
    except CorridorError as error:
        st.error(t("Not signed in as {role}: {error}", role=role or t("(no role)"), error=error))
    else:
        _signed_in_as(url)


def _signed_in_as(url: str | None) -> None:
    """Open the workspace as another role from the next run on, forgetting what the last one
    read (its marks in the change log, an import checked under its rights)."""
    ss = st.session_state
    if url is None:
        signed_out = ss.pop("signed_in_url", None)
        if signed_out:
            open_workspace(signed_out).sign_out()  # (its login, password and all, kept no longer)
    else:
        ss.signed_in_url = url
    forget_read_marks()
    for key in ("prepared_read", "prepared_key"):
        ss.pop(key, None)
    st.rerun(scope="app")


READ_MARK = "convoys_read:{scenario}"
"""Where the change log stood when the convoy table shown was read (the session's key)."""


def forget_read_marks() -> None:
    """Forget where the log stood for every scenario: the next table shown is read anew."""
    ss = st.session_state
    for key in [k for k in ss if str(k).startswith(READ_MARK.format(scenario=""))]:
        del ss[key]


def viewer_only(workspace: Workspace) -> bool:
    """Whether the workspace is a team's in PostGIS opened by a viewer, who may not edit (the
    database refuses its writes: `geo.store.team`); says so on the page when it is."""
    if not workspace.shared:
        return False
    try:
        role, team_role = workspace.signed_in()
    except CorridorError:  # (unreachable: the page says so when it reads or writes)
        return False
    if team_role != "viewer":
        return False
    st.info(t("Signed in to the team workspace as {role}, a viewer: editing is for editors.",
              role=role))  # fmt: skip
    return True


def save(
    workspace: Workspace,
    scenario_id: str,
    edits: list[changes.Edit],
    user: str,
    *,
    note: str,
    refused: str = "",
    read: changes.ReadMark | None = None,
) -> Sequence[changes.Change] | None:
    """Commit the edits and return the changes logged; on a problem, say what it was (refused
    edits by `refused`, "Nothing was saved" unless told, records someone changed since they
    were `read`, a workspace that cannot be written otherwise) and return None: the edits
    stay in the page to try again."""
    try:
        return changes.commit(workspace, scenario_id, edits, who=user, note=note, read=read)
    except ConflictError as error:
        st.error(f"{error}\n\n" + t("Press “Read the latest” to see what changed, then make "
                                    "your edit again."))  # fmt: skip
    except ValidationError as error:
        st.error(f"{refused or t('Nothing was saved')}:\n\n{error}")
    except CorridorError as error:
        st.error(t("The workspace could not be updated:") + f"\n\n{error}")
    return None
