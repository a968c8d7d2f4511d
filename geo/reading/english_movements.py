"""English movements: a convoy draft per sentence that moves people, its places given roles."""

from __future__ import annotations

import re
from typing import Any

from geo.reading.mentions import ConvoyDraft, FigureMention, PlaceMention, Skipped, TimeMention
from geo.reading.rules import UNREADABLE, between, counts_of, skip

_CONVOY_WORDS = re.compile(
    r"\b(?:convoys?|bus(?:es|ed|loads?)?|buss(?:ed|ing)|ambulances|evacu\w*|vehicles"
    r"|left|leav(?:e|es|ing)|depart\w*|transfer\w*|transport\w*|relocat\w*|safe\s+passage"
    r"|arriv\w*|driv(?:en|ing|es?)|drove|tak(?:en|ing)|brought|sent|mov(?:e|ed|ing)|fle(?:d|e|eing)"
    r"|return\w*|travel\w*|emptied|push\w*\s+(?:\w+\s+)?out|set(?:ting)?\s+(?:off|out)"
    r"|head(?:ed|ing)|bound|reach\w*|exit\w*"
    r"|cross(?:ed|es|ing)?|walk\w*|trek\w*|flown|flew|fl(?:y|ying|ights?)|airlift\w*"
    r"|corridors?|exodus|escap\w*|board(?:ed|ing)|sail\w*|ferr(?:y|ied)|rescu\w*"
    r"|stream(?:ed|ing)|pour(?:ed|ing)|refugees|enter(?:ed|ing)|journeys?|dock(?:ed|ing)"
    r"|landed|deport\w*|expel\w*|stopped|forc(?:e|es|ed|ing)(?=(?:\s+[\w,]+){1,6}\s+out\b)"
    r"|carr(?:y|ies|ied|ying)|took|takes?|went|gone|came|trips?|trucks?|lorr(?:y|ies)"
    r"|minibus(?:es)?|boats?|trains?|ships?|shuttl\w*|helicopters?|lift(?:ed|ing)"
    r"|(?:given|found)\s+shelter)\b",
    re.IGNORECASE,
)
"""What a sentence about a movement of people says: vehicles, evacuations, leaving, arriving."""


def find_convoys(
    sentences: list[tuple[int, str]],
    places: list[PlaceMention],
    figures: list[FigureMention],
    times: list[TimeMention],
    skipped: list[Skipped] | None = None,
) -> list[ConvoyDraft]:
    """A draft per sentence about convoys, buses, ambulances or evacuations, for review."""
    drafts = []
    starts = [[item.start for item in items] for items in (places, figures, times)]
    for offset, sentence in sentences:
        if not _CONVOY_WORDS.search(sentence):
            continue
        end = offset + len(sentence)
        nearby = between(places, starts[0], offset, end, before=12)  # and the last before
        try:
            draft = _draft(offset, sentence, nearby, between(figures, starts[1], offset, end),
                           between(times, starts[2], offset, end))  # fmt: skip
        except UNREADABLE as error:
            skip(skipped, "convoy", sentence, offset, error)
            continue
        if draft:
            drafts.append(draft)
    return drafts


def _draft(
    offset: int,
    sentence: str,
    places: list[PlaceMention],
    figures: list[FigureMention],
    times: list[TimeMention],
) -> ConvoyDraft | None:
    end = offset + len(sentence)
    inside = [p for p in places if offset <= p.start < end]
    counted = [f for f in figures if offset <= f.start < end]
    moments = [t for t in times if offset <= t.start < end]
    roles = _roles(sentence, offset, inside)
    if not roles["origin"]:
        roles["origin"] = _people_of(sentence, offset, inside)
    _named_first(sentence, offset, inside, roles)
    if not roles["destination"]:
        roles["destination"] = _hosts(sentence, offset, inside)
    for role in ("origin", "destination"):
        if not roles.get(role):
            roles[role] = _named_before(sentence, offset, role, places)
    if not (inside or counted or roles["origin"] or roles["destination"]):
        return None
    return ConvoyDraft(
        sentence=sentence.strip(),
        start=offset,
        origin=roles["origin"],
        destination=roles["destination"],
        via=roles.get("via", []),
        vehicles=counts_of(counted, "vehicles"),
        people=counts_of(counted, "people"),
        time=moments[0].text if moments else "",
    )


_ROLE_WORDS = {
    "via": r"via|through|crossing into|crossed into|by way of",
    "origin": r"fle\w*\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+)?(?:attacks?|assaults?|offensives?"
    r"|fighting|violence|raids?|clashes)\s+(?:on|in|around)"  # "fled an attack on Palma"
    r"|from|out of|left|leave|leaves|leaving|departed|departing|depart|quit|fled"
    r"|flee|flees|fleeing|exit(?:ed|ing)?"
    r"|(?:anchored|moored|lying)\s+off"  # "a ship anchored off Tripoli took ..."
    r"|cleared|emptied",  # "police cleared the camp at Idomeni and bussed the people to ..."
    "destination": r"to|for|towards?|reach|reached|reaches|reaching|as far as|entered|entering"
    r"|(?<!crossing\s)(?<!crossed\s)into"
    r"|(?:arriv|enter|end|dock|land(?!fall)|stopp)\w*(?:\s+[\w-]+|\s+\([^()]{1,40}\)){0,5}?\s+(?:in|at)"
    r"|cross(?:ed|ing)(?:\s+[\w-]+){0,3}?\s+at"  # "were crossing each day at Hamdayet"
    r"|spent\s+the\s+night(?:\s+[\w'’-]+){0,5}?\s+(?:in|at)"  # "spent the night ... in Chico"
    r"|(?:given|found)\s+shelter\s+(?:in|at)",
}
"""Words that give a place its part in a movement; the nearest one before the place decides.
A place after 'in' or 'at' alone ('a source in Homs') is no endpoint."""
_NOT_A_ROLE = re.compile(
    r"\b(?:according|due|able|going|used|has|have|had|said)\s+to\s+$"
    r"|\b(?:roads?|routes?|highways?|tracks?|railways?|lines?)\s+end(?:s|ed)?\s+(?:in|at)\s+$"
    r"|\b(?:re)?(?:open|clos|block|cut)\w*\s+(?:the|a)\s+(?:[\w-]+\s+)?(?:road|route|highway)"
    r"(?:\s+[\w-]+)?\s+(?:into|to|towards?)\s+(?:the\s+|a\s+)?$"  # "opened the road north into X"
)
"""'According to', 'had to'; 'where the road ends at Jacmel' and 'opened the road north into
New South Wales' say where a road goes."""


def _roles(sentence: str, offset: int, places: list[PlaceMention]) -> dict[str, Any]:
    """Each place's part in a convoy sentence, by the nearest role word before it.

    "left Aleppo for Idlib": Idlib follows "for", nearer than "left", so it is the destination;
    "crossing into a district in southern Aleppo" keeps "into" (via) over the weaker "in".
    "from Fuaa and Kafraya": both follow "from"; the first is the origin, as "to A and B" makes
    A the destination; a later role word ("to Rashidin, then on to Idlib") makes the last one.
    """
    roles: dict[str, Any] = {"via": [], "origin": "", "destination": ""}
    destination_word = -1  # where the role word of the destination so far stands
    destination_end = -1  # and where its name ends
    country_end: PlaceMention | None = None  # "fled to Armenia", "crossed into Chad"
    passed: list[PlaceMention] = []
    where_clause = _WHERE.search(sentence)
    previous_end = 0  # a role word before the previous place is that place's, or a list's
    for place in places:
        if where_clause and roles["destination"] and place.start - offset > where_clause.end():
            break  # "to Port Sudan, where ships carry evacuees on to Jeddah": another movement
        tail = sentence[: place.start - offset].lower()[-80:]
        tail_start = place.start - offset - len(tail)
        after = sentence[place.end - offset : place.end - offset + 3]
        if re.match(r"['’ ]s\b", after):
            continue  # "fighters from Lebanon's Hezbollah": whose, not where from
        listed = _LISTED.fullmatch(sentence, previous_end, place.start - offset) is not None
        floor = -1 if listed else previous_end - tail_start
        last_end, previous_end = previous_end, place.end - offset
        found = [
            (match.start(), kind)
            for kind, words in _ROLE_WORDS.items()
            for match in re.finditer(rf"\b(?:{words})\s+(?:the\s+|a\s+)?", tail)
            if re.fullmatch(r"(?:[\w'’-]+\s+|\([^()]{1,40}\)\s+){0,6}", tail[match.end() :])
            and not _NOT_A_ROLE.search(tail[: match.end()])
            and match.start() >= floor
        ]
        where, role = max(found) if found else (-1, "")
        arrived = _ARRIVED_FROM.search(tail)
        if (arrived and role != "destination"  # "arrive from Lviv at Przemysl": at is the end
                and arrived.start() < last_end - tail_start <= arrived.start("at")):  # fmt: skip
            where, role = arrived.start("at"), "destination"
        crossed = role == "via" and _CROSSED_INTO.match(tail, where)
        if (place.kind == "country" and role == "destination") or (
            crossed and place.kind in ("country", "region")  # "crossed into the Andijan region"
        ):
            country_end = country_end or place
        elif role == "via":
            roles["via"].append(place.name)
            passed.append(place)
        elif not role and country_end and re.search(r"\bat\s+(?:the\s+)?$", tail):
            roles["via"].append(place.name)  # "crossed into Chad at Adre"
            passed.append(place)
        elif role == "origin" and not roles["origin"]:
            roles["origin"] = place.name
        elif (role == "destination" and place.kind != "country"
              and tail_start + where != destination_word  # not "to A and B"
              and _onward(sentence, destination_end, tail_start + where)
              and not _other_country(sentence, offset, country_end, place, tail_start + where)
              ):  # fmt: skip
            roles["destination"] = place.name
            destination_word, destination_end = tail_start + where, place.end - offset
    if not roles["destination"] and country_end and country_end.name != roles["origin"]:
        # "crossed into Chad at Adre": the border town in that country, else the country
        inside = [p for p in passed if p.country_code == country_end.country_code]
        roles["destination"] = inside[0].name if inside else country_end.name
        if inside:
            roles["via"].remove(inside[0].name)
    return roles


_ARRIVED_FROM = re.compile(
    r"\b(?:arriv|land|dock|cross)\w*\s+(?:by\s+\w+\s+)?from\s+[^,;:]{1,60}?\s+(?P<at>at|in)\s+(?:the\s+)?"
    r"(?:[\w'’-]+\s+){0,2}$"
)
"""'arrive from Lviv (Львів) at the station in Przemysl', 'crossed from Libya at Ras Ajdir':
the place after 'at' is the end."""
_WHERE = re.compile(r",\s+where\b")
_ONWARD = re.compile(r"\b(?:then|on|onward|onwards|later|before|continu\w*|finally|eventually)\b")
"""What makes a second destination the end of one journey ("to Rashidin, then on to Idlib")
rather than another group's ("to Sana'a, and smaller numbers towards Aden"; "to Zabid and to
Hays": the first of a list)."""


def _other_country(
    sentence: str, offset: int, country: PlaceMention | None, place: PlaceMention, role_word: int
) -> bool:
    """Whether a country already ends the movement and `place`, in another country, is a
    later group's end: "took 300 foreigners to Cyprus, with others to follow to Valletta"
    (whereas "crossed into Chad at Adre" ends in that country, and "into Poland, then on to
    Berlin" goes on)."""
    if country is None or place.country_code == country.country_code:
        return False
    return not _onward(sentence, country.end - offset, role_word)


def _onward(sentence: str, previous_end: int, role_word: int) -> bool:
    """Whether a destination word at `role_word` replaces the one whose name ends at
    `previous_end` (-1: there is none yet)."""
    return previous_end < 0 or bool(_ONWARD.search(sentence, previous_end, role_word))


_LISTED = re.compile(r"\s*(?:,|,?\s*and|,?\s*or|/)?\s*(?:the\s+)?", re.IGNORECASE)
"""What stands between the names of a list ('Fuaa and Kafraya', 'A, B or C')."""
_CROSSED_INTO = re.compile(r"cross(?:ed|ing)\s+into\b")


_LEAVING = re.compile(
    r"\b(?:left|leaving|leave|fled|fleeing|departed|departing|evacuated|bussed|bused"
    r"|transferred|taken\s+out|pulled\s+out|emptied|exodus"
    r"|moved|took|taken|carried|flown|flew|relocated"  # "residents of Futaba were moved"
    r"|driven|lifted|brought|rescued|move|moving)\b",
    re.IGNORECASE,
)
_OF_A_PLACE = re.compile(
    r"\b(?:residents|people|civilians|fighters|rebels|inhabitants|families|population|"
    r"evacuees|wounded|gunmen|terrorists|patients|tourists|visitors|holidaymakers|guests|inmates"
    r"|villagers|workers)\s+(?:of|from|in|(?:staying|living|sheltering)\s+(?:in|at))\s+"
    r"(?:the\s+)?(?:[\w-]+\s+)?"
    r"(?:(?:(?:an?|the)\s+)?(?:[\w-]+\s+){1,2}(?:in|at)\s+)?$",  # "of a care home in X"
    re.IGNORECASE,
)


_IN_FIRST = re.compile(r"\s*In\s+$")
"""'In La Lima, rescue teams took ...': the sentence opens on where it happens."""
_ARRIVALS_FROM = re.compile(
    r"\b(?:cross(?:ed|ing)|arriv\w*|fled|fleeing|came)\s+(?:[\w-]+\s+){0,2}?from\b"
    r"|\b(?:registered|arrivals|newcomers)\b",
    re.IGNORECASE,
)
"""'In Niger, 500 arrivals from Ménaka were registered': the place named first is the end."""
_TAKEN_AWAY = re.compile(
    r"\b(?:took|taken|moved|brought|evacuated|lifted|airlifted|carried|flown|flew|bus(?:s)?ed"
    r"|transferred|relocated|rescued|ferried)\b",
    re.IGNORECASE,
)
"""'In Jalal-Abad, 2,000 people were taken by bus to ...': the place named first is left."""


def _named_first(sentence: str, offset: int, places: list[PlaceMention], roles: Any) -> None:
    """A sentence that opens on its place ("In Rwanda, 26,000 people who crossed from Kirundo
    province ...", "In La Lima, rescue teams took 1,200 people ... to San Pedro Sula"): the
    country or region of arrival when people came from elsewhere, else the place left when
    people were taken away from it."""
    if not places or not _IN_FIRST.fullmatch(sentence, 0, places[0].start - offset):
        return
    place = places[0]
    if not re.match(r"(?:\s+and\s+[^,]{1,40})?,", sentence[place.end - offset :]):
        return  # "In Goma's camps ...", "In Kyiv on Monday ..."
    if place.name in (roles["origin"], roles["destination"]):
        return
    if _ARRIVALS_FROM.search(sentence) and place.kind in ("country", "region"):
        if not roles["destination"]:
            roles["destination"] = place.name
    elif not roles["origin"] and _TAKEN_AWAY.search(sentence):
        roles["origin"] = place.name


_HOSTS = re.compile(
    r"\b(?:centres?|centers?|shelters?|camps?|schools?|hotels?|hosts?|families|churches)\s+"
    r"(?:in|at)\s+$",
    re.IGNORECASE,
)
_TOOK_IN = re.compile(
    r"(?:\s+(?:and|or)\s+[\w'’ -]{1,30}?)?\s+(?:took\s+in|received|welcomed|housed|hosted"
    r"|(?:are|were|have\s+been)\s+(?:housing|hosting|sheltering))\b",
    re.IGNORECASE,
)


def _hosts(sentence: str, offset: int, places: list[PlaceMention]) -> str:
    """'Relief centres in Bairnsdale and Orbost took in 900 people': where people came to."""
    for place in places:
        if _HOSTS.search(sentence[: place.start - offset]) and _TOOK_IN.match(
            sentence, place.end - offset
        ):
            return place.name
    return ""


_ITS_DISPLACED = re.compile(r"\s+(?:refugees|evacuees|displaced)\b")
"""'Thousands of Srebrenica refugees reach Tuzla': where the refugees come from."""
_EMPTIED_OR_ITS_PEOPLE = re.compile(
    r"\s+(?:was\s+|were\s+|(?:had|has|have)\s+(?:to\s+be|been)\s+)?emptied\b"
    r"|['’]s\s+(?:[\w-]+\s+)?(?:residents|people|civilians|fighters|rebels|families|gunmen)\b"
)
"""'as Madaya emptied', "Douma's last rebels leave": the place is the one left."""


def _people_of(sentence: str, offset: int, places: list[PlaceMention]) -> str:
    """'the last residents of Fuaa and Kafraya began leaving', 'as Madaya emptied': the
    place people leave, named as where they are from rather than after 'from'."""
    for place in places:
        if place.kind != "country" and _ITS_DISPLACED.match(sentence, place.end - offset):
            return place.name
    if not _LEAVING.search(sentence):
        return ""
    for place in places:
        before = sentence[: place.start - offset]
        after = sentence[place.end - offset :]
        if _OF_A_PLACE.search(before) or _EMPTIED_OR_ITS_PEOPLE.match(after):
            return place.name
    return ""


_BACK_REFERENCE = re.compile(
    r"\b(?P<role>from|out\s+of|left|leaving|leave|departed|departing|quit|fled|fleeing"
    r"|escaped|exited|to|for|towards?"
    r"|reached|reaching|arrived\s+(?:in|at)|(?<!crossing\s)(?<!crossed\s)into|entered)\s+"
    r"(?:(?P<there>there)\b|(?:the|this|that|these)\s+(?P<count>two\s+|three\s+|four\s+)?"
    r"(?:[\w-]+\s+)?(?P<kind>villages?|towns?|city|districts?|neighbou?rhoods?|enclave|pocket"
    r"|area|camp|crossing|valley)\b(?!\s+of\s+(?-i:[A-Z])))",  # "the village of X" names X
    re.IGNORECASE,
)
_REFERRED_KINDS = {
    "village": ("village", "town"), "villages": ("village", "town"),
    "town": ("town", "city", "village"), "towns": ("town", "city", "village"),
    "city": ("city", "town"), "crossing": ("crossing",), "camp": ("district", "point"),
    "districts": ("district", "point"), "neighbourhoods": ("district", "point"),
    "enclave": ("region", "district", "point", "town"), "pocket": ("region", "district",
    "point"), "valley": ("region",), "area": ("region", "district", "point"),
}  # fmt: skip
_ORIGIN_WORDS = {"from", "out of", "left", "leaving", "leave", "departed", "departing", "quit",
                 "fled", "fleeing", "escaped", "exited"}  # fmt: skip
_COUNTS = {"two": 2, "three": 3, "four": 4}


def _named_before(sentence: str, offset: int, role: str, known: list[PlaceMention]) -> str:
    """'left the two villages', 'arrived in the town', 'from there': the place the report
    named last of that kind (of two villages, the first named; "Fuaa and Kafraya" names two;
    of "the three towns" just listed, the first of the three)."""
    for match in _BACK_REFERENCE.finditer(sentence):
        is_origin = re.sub(r"\s+", " ", match["role"].lower()) in _ORIGIN_WORDS
        if is_origin != (role == "origin"):
            continue
        earlier = [p for p in known if p.end <= offset + match.start()]
        places = [p for p in reversed(earlier) if p.kind != "country"]
        count = _COUNTS.get((match["count"] or "").strip().lower(), 1)
        if count > 2 and len(places) >= count:
            return places[count - 1].name  # "Yalda, Babila and Beit Sahm ... the three towns"
        if match["there"]:
            spots = [p for p in places if p.kind != "region"]
            return spots[0].name if spots else ""
        kind = match["kind"].lower()
        kinds = _REFERRED_KINDS.get(kind, ("district", "point", "crossing"))
        if kind.endswith("s"):  # a place named as two ("Fuaa and Kafraya") counts for both
            pair = [p for p in places if " and " in p.mention]
            if pair and (not places or places.index(pair[0]) <= 1):
                return pair[0].name
        named = [p for p in places if p.kind in kinds]
        if named:
            return named[count - 1].name if len(named) >= count else named[0].name
    return ""
