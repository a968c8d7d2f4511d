"""Map elements whose script is plain text: big data without Jinja, and safe inside <script>."""

from __future__ import annotations

from typing import Any

import folium
import orjson
from branca.element import Element, MacroElement
from folium.elements import JSCSSMixin
from jinja2 import Template


class ScriptElement(JSCSSMixin, MacroElement):
    """A map element whose JavaScript is made in Python by `script_text`.

    folium renders an element's script macro and then compiles that output as a Jinja template
    again, which is slow for megabytes of data and would run any "{{ … }}" in it; `render`
    here adds the text as it is. streamlit-folium calls the `script` macro itself, which hands
    the same text over unchanged.
    """

    _template = Template("{% macro script(this, kwargs) %}{{ this.script_text() }}{% endmacro %}")

    _text: str | None = None

    def script_text(self) -> str:
        """The script, made once (folium's render and streamlit-folium both ask for it)."""
        if self._text is None:
            self._text = self.make_script()
        return self._text

    def make_script(self) -> str:
        raise NotImplementedError

    def render(self, **kwargs: Any) -> str:
        figure: Any = self.get_root()
        figure.script.add_child(Text(self.script_text()), name=self.get_name())
        return ""

    @property
    def parent_name(self) -> str:
        parent: Any = self._parent
        return str(parent.get_name())

    @property
    def map_name(self) -> str:
        """The name of the map this element is drawn on, however deep in groups it sits."""
        element: Any = self._parent
        while not isinstance(element, folium.Map):
            element = element._parent
        return str(element.get_name())


class ScriptCall(ScriptElement):
    """`(FUNCTION)(parent, arg, ...);`: a constant JavaScript function called with JSON values.

    For map elements whose script is fixed text with a few values: no template is compiled,
    neither by folium nor by branca's second pass (about half a millisecond each, every rerun).
    Subclasses set FUNCTION, a `function(map, ...) { ... }` expression.
    """

    FUNCTION = ""

    def __init__(self, *values: Any) -> None:
        super().__init__()
        self._name = type(self).__name__
        self.values = values

    def make_script(self) -> str:
        given = "".join(f", {script_json(value)}" for value in self.values)
        return f"({self.FUNCTION})({self.parent_name}{given});\n"


class Text(Element):
    """Text rendered as it is (never compiled as a template)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def render(self, **kwargs: Any) -> str:
        return self.text


CANVAS_PADDING = 0.3
"""Share of a pannable map's size that its canvas draws past each edge (a pan shows no gap)."""


def shared_canvas(map_name: str, *, still: bool) -> str:
    """JavaScript for the map's one canvas renderer, made by the first layer that asks for it.

    Chromium copies every canvas's pixels at each frame (about 10 ms for a padded 1600 × 1000
    map here), so the layers drawn on a canvas share one; a still map never pans, so its
    canvas draws nothing past the edges.
    """
    padding = 0 if still else CANVAS_PADDING
    made = f"{map_name}.corridorCanvas"
    return f"({made} || ({made} = L.canvas({{padding: {padding}}})))"


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element (no '</script>', no HTML comment, numpy welcome).

    Strings keep every character; a few are written as \\u escapes, which JavaScript reads back
    as the same text: never markup, a closing tag or a template literal.
    """
    text = orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")
    for char in "<>&'`$":  # str.replace runs in C; str.translate is ten times slower here
        if char in text:
            text = text.replace(char, f"\\u{ord(char):04x}")
    return text
