"""The map's moment drawn apart: what changes with time, a layer swapped in the standing map."""

from __future__ import annotations

import folium
from branca.element import MacroElement
from jinja2 import Template

from geo.mapview._script import ScriptCall, ScriptElement, script_json

MOMENT_EVENT = "corridor-moment"
"""Fired on the map when a moment's layers and panels are in (labels are placed again)."""


class Standing(MacroElement):
    """A stand-in for a feature group of the standing map: its children draw into that group.

    It writes no script of its own; its name is the group's, as streamlit-folium renames it
    (read when its children are rendered, after the standing map's script was made).
    """

    _template = Template("{% macro script(this, kwargs) %}{% endmacro %}")

    def __init__(self, group: folium.FeatureGroup) -> None:
        super().__init__()
        self._name = "Standing"
        self.group = group

    def get_name(self) -> str:
        return str(self.group.get_name())


class Emptied(ScriptElement):
    """Empties the standing groups before a moment fills them (their layers told first, so
    that a layer that listens to the map lets go: see geo.mapview.event_points.EventPoints)."""

    def __init__(self, groups: list[folium.FeatureGroup]) -> None:
        super().__init__()
        self._name = "Emptied"
        self.groups = groups

    def make_script(self) -> str:
        names = ", ".join(group.get_name() for group in self.groups)
        return (
            f"[{names}].forEach(function(group) {{\n"
            "    group.fire('corridor-clear');\n"
            "    group.clearLayers();\n"
            "});\n"
        )


class Furnished(ScriptElement):
    """The moment's panels (title, legend) written into the standing map's, then the map told."""

    def __init__(self, panels: dict[str, str]) -> None:
        super().__init__()
        self._name = "Furnished"
        self.panels = panels

    def make_script(self) -> str:
        return (
            "(function(map, panels) {\n"
            "    Object.keys(panels).forEach(function(cssClass) {\n"
            "        var div = map.getContainer().querySelector('.' + cssClass);\n"
            "        if (div && div.corridorFill) { div.corridorFill(panels[cssClass]); }\n"
            "    });\n"
            "    map.corridorMomentDrawn = true;\n"
            f"    map.fire('{MOMENT_EVENT}');\n"
            f"}})({self.map_name}, {script_json(self.panels)});\n"
        )


class Released(ScriptCall):
    """Lets go of the moment layers taken off the standing map.

    streamlit-folium keeps every layer it was sent in `window.feature_group` and only takes the
    old ones off the map: during Play the array grew by a layer a step, each held for good.
    Here a layer taken off the map leaves the array too, once the new one is in (a task later,
    so that streamlit-folium's own walk over the array is not cut short). Without the array
    (another streamlit-folium, a page of its own) it does nothing.
    """

    FUNCTION = """function(map) {
    var pending = false;
    function release() {
        pending = false;
        var groups = window.feature_group;
        if (!Array.isArray(groups)) { return; }
        for (var i = groups.length - 1; i >= 0; i--) {
            if (!map.hasLayer(groups[i])) { groups.splice(i, 1); }
        }
    }
    map.on('layerremove', function(event) {
        var groups = window.feature_group;
        if (pending || !Array.isArray(groups) || groups.indexOf(event.layer) < 0) { return; }
        pending = true;
        setTimeout(release, 0);
    });
}"""


def moment_layer(
    groups: dict[str, folium.FeatureGroup],
    fills: dict[str, MacroElement],
    panels: dict[str, str],
) -> folium.FeatureGroup:
    """The moment as one layer for streamlit-folium's `feature_group_to_add`.

    The standing map (its base, controls, empty overlay groups and empty panels) does not
    change while time moves, so its component is not mounted again (which showed a blank map
    for a moment); this layer, swapped at every step, empties the overlay groups, fills them
    with the moment's `fills` and writes the `panels` (CSS class → HTML).
    """
    moment = folium.FeatureGroup(name="Moment", control=False)
    Emptied(list(groups.values())).add_to(moment)
    for key, fill in fills.items():
        standing = Standing(groups[key])
        standing.add_to(moment)
        fill.add_to(standing)
    Furnished(panels).add_to(moment)
    return moment
