"""Safe HTML for maps and pages: every user string escaped, also for folium's JavaScript
template literals."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

_INERT = str.maketrans(
    {"`": "&#96;", "$": "&#36;", "\\": "&#92;", "{": "&#123;", "}": "&#125;", "\n": " "}
)


def esc(value: object) -> str:
    """Text made inert in HTML and attributes, in JS template literals, and for Jinja.

    folium writes popup and tooltip HTML as raw HTML inside backquoted JavaScript strings, and
    branca compiles every rendered script again as a Jinja template (so "{{ ... }}" in user text
    would run on the server). Beyond <, >, &, quotes, a backquote, '$', a backslash and the
    braces are turned into character references.
    """
    return html.escape(str(value), quote=True).translate(_INERT)


def rows(pairs: Iterable[tuple[str, object]]) -> str:
    """A small two-column table of label/value pairs; empty values are left out."""
    cells = "".join(
        f'<tr><th>{esc(label)}</th><td dir="auto">{esc(value)}</td></tr>'
        for label, value in pairs
        if value not in (None, "", ())
    )
    return f'<table class="corridor-facts">{cells}</table>'


def card(
    title: str,
    pairs: Iterable[tuple[str, object]],
    *,
    note: str = "",
    quote: str = "",
    direction: str = "ltr",
) -> str:
    """Popup content: a title, facts, an optional note (approximate geometry) and the quote;
    its labels run in `direction` (the HTML dir of the reader's language)."""
    opened = '<div class="corridor-card">' if direction == "ltr" else (
        f'<div class="corridor-card" dir="{esc(direction)}">'
    )  # fmt: skip
    parts = [f'{opened}<b dir="auto">{esc(title)}</b>', rows(pairs)]
    if note:
        parts.append(f'<p class="corridor-note">{esc(note)}</p>')
    if quote:
        parts.append(f'<blockquote dir="auto">{esc(quote)}</blockquote>')
    parts.append("</div>")
    return "".join(parts)


def times(moment: datetime | None, zone: str) -> str:
    """'15 Dec 2016 14:30 EET (12:30 UTC)', or '' for an unknown time.

    The UTC side carries its own date where it falls on another day than the local one:
    '16 Dec 2016 00:00 EET (15 Dec 22:00 UTC)'.
    """
    if moment is None:
        return ""
    local, utc = moment.astimezone(ZoneInfo(zone)), moment.astimezone(UTC)
    utc_text = f"{utc:%H:%M}" if utc.date() == local.date() else f"{utc:%d %b %H:%M}"
    return f"{local:%d %b %Y %H:%M} {local.tzname()} ({utc_text} UTC)"


FONTS = 'system-ui,"Noto Sans Arabic","DejaVu Sans",sans-serif'
"""Every font stack of the map: the system's; for Arabic letters a font that shapes them."""
CARD_CSS = (
    f".corridor-card{{font:12px/1.35 {FONTS};max-width:340px}}"
    """
.corridor-facts{border-collapse:collapse;margin:4px 0}
.corridor-facts th{text-align:start;padding:1px 8px 1px 0;color:#555;font-weight:normal;
  vertical-align:top}
.corridor-facts td{padding:1px 0}
.corridor-note{margin:4px 0;color:#8a4b00}
.corridor-card blockquote{margin:4px 0 0;padding-inline-start:6px;border-inline-start:3px solid
  #ccc;color:#333;font-style:italic}
.leaflet-tooltip{unicode-bidi:plaintext}
"""
)


def markdown_literal(text: str) -> str:
    """User text for Markdown (Streamlit captions): shown as typed, never as formatting."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$])", r"\\\1", text)


REPORT_CSS = (
    "<style>mark.place{background:#cde4f6}mark.figure{background:#ffe2b3}"
    ".report{font:15px/1.55 system-ui,sans-serif;max-height:420px;overflow:auto}</style>"
)


def marked_text(text: str, marks: Iterable[tuple[int, int, str, str]]) -> str:
    """A text as HTML, every character escaped, with spans marked: each mark is (start, end,
    class, title); a mark overlapping an earlier one is left out. Line breaks are kept."""
    out, at = [], 0
    for start, end, kind, title in sorted(marks):
        if start < at:
            continue
        out.append(html.escape(text[at:start]))
        kind, title = html.escape(kind, quote=True), html.escape(title, quote=True)
        out.append(f'<mark class="{kind}" title="{title}">{html.escape(text[start:end])}</mark>')
        at = end
    out.append(html.escape(text[at:]))
    body = "".join(out).replace("\n", "<br>")
    return f'{REPORT_CSS}<div class="report">{body}</div>'
