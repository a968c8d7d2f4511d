"""The words of English news copy the reader knows: counted nouns, units, months, stop words."""

from __future__ import annotations

COUNT_NOUNS = {
    "people", "civilians", "wounded", "injured", "sick", "fighters", "rebels", "rebel",
    "families", "children", "women", "residents", "vehicles", "buses", "ambulances",
    "convoys", "trucks", "soldiers", "militants", "refugees", "patients", "evacuees",
    "dead", "members", "persons", "men", "gunmen", "displaced", "inhabitants", "cars",
    "busloads", "lorries", "elderly", "detainees", "prisoners", "hostages", "captives",
    "individuals", "households", "casualties", "victims", "students", "workers", "staff",
    "volunteers", "orphans", "infants", "babies", "palestinians", "syrians", "kurds",
    "iraqis", "christians", "alawites", "combatants", "insurgents", "jihadists", "militiamen",
    "defectors", "minibuses", "microbuses", "coaches", "tents", "terrorists", "relatives",
    "dependants", "dependents", "loyalists", "policemen", "militias",
    # humanitarian and wire copy of other crises: who is moved, and how
    "passengers", "nationals", "citizens", "employees", "holders", "foreigners", "pilgrims",
    "migrants", "asylum-seekers", "internally", "idps", "survivors", "youngsters",
    "flights", "planes", "aircraft", "boats", "ships", "ferries", "trains", "carriages",
    "minivans", "vans", "pickups", "tractors", "carts",
    "ukrainians", "russians", "armenians", "azerbaijanis", "israelis", "egyptians",
    "sudanese", "chadians", "afghans", "pakistanis", "yazidis", "lebanese", "bosniaks",
    "bosnians", "serbs", "croats", "muslims", "ethiopians", "eritreans", "tigrayans",
    "somalis", "yemenis", "libyans", "rohingya", "haitians", "congolese", "mozambicans",
    "americans", "britons", "germans", "french", "chinese", "indians", "filipinos", "turks",
    "iranians", "jordanians", "saudis", "canadians", "australians", "italians", "poles",
    "moldovans", "romanians", "georgians", "belarusians", "nigerians", "kenyans", "gazans",
    "bangladeshis", "indonesians", "malaysians", "koreans", "japanese", "europeans",
    "africans", "arabs", "westerners", "masalit", "darfuris", "rohingyas", "arrivals",
    "newcomers", "newly-arrived", "returnees", "deportees",
    "others", "sons", "daughters", "grandchildren", "grandsons", "granddaughters", "siblings",
    "brothers", "sisters", "nephews", "nieces", "grandparents", "parents",
    "inmates", "tourists", "holidaymakers", "visitors", "guests", "villagers",
}  # fmt: skip
VEHICLES = {
    "vehicles", "buses", "ambulances", "convoys", "trucks", "cars", "busloads", "lorries",
    "flights", "planes", "aircraft", "boats", "ships", "ferries", "trains", "carriages",
    "minivans", "vans", "pickups", "tractors", "carts", "minibuses", "microbuses", "coaches",
}  # fmt: skip
CONVOYS = {"convoy", "convoys"}
"""A count of convoys ("three convoys left") is neither vehicles nor people."""
UNITS = {
    "km", "kilometres", "kilometers", "kilometre", "kilometer", "miles", "mile", "metres",
    "meters", "years", "year", "months", "month", "days", "day", "hours", "hour", "minutes",
    "percent", "pm", "am", "gmt", "per", "times", "o'clock", "kg", "tonnes", "dollars",
}  # fmt: skip
MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
STOPWORDS = {
    # capitalised words of news prose that are also somebody's place name somewhere
    "a", "an", "the", "and", "but", "or", "in", "on", "at", "of", "for", "to", "by", "with",
    "as", "many", "some", "most", "more", "all", "one", "two", "three", "four", "five",
    "first", "last", "next", "new", "state", "president", "secretary", "foreign", "minister",
    "ministry", "government", "army", "forces", "un", "us", "eu", "uk", "icrc", "sana",
    "red", "cross", "crescent", "council", "security", "union", "european", "nations",
    "united", "front", "observatory", "human", "rights", "monitoring", "group", "defence",
    "regime", "rebels", "rebel", "opposition", "deal", "agreement", "kremlin", "thursday",
    "friday", "saturday", "sunday", "monday", "tuesday", "wednesday", "january", "february",
    "march", "april", "may", "june", "july", "august", "september", "october", "november",
    "december", "there", "they", "he", "she", "it", "we", "his", "her", "their", "this",
    "that", "these", "those", "after", "before", "during", "while", "without",
    "gmt", "day", "will", "return", "shiite", "sunni", "islamic", "syrian", "russian",
    "turkish", "iranian", "french", "american", "lebanese", "israeli", "iraqi", "jordanian",
    "kurdish", "arab", "british", "western", "eastern", "northern", "southern",
    "task", "force", "envoy", "head", "governor", "source", "media", "agency", "television",
    "villages", "village", "city", "town", "province", "region", "district", "east", "west",
    "north", "south", "liberation", "history", "making", "video", "message", "massacre",
    "war", "bosnian", "ceasefire", "alliance", "affiliate", "al", "sham", "fateh", "qaeda",
    "from", "into", "toward", "towards", "via", "through", "across", "near", "outside",
    "about", "around", "nearly", "almost", "another", "others",
    # peoples whose word is not their country's name with an ending ("Thai officials")
    "thai", "filipino", "filipina", "swiss", "dutch", "greek", "afghan", "welsh", "danish",
    "swedish", "finnish", "polish", "spanish", "portuguese", "norwegian",
}  # fmt: skip


def noun_kind(what: str) -> str:
    """'convoys', 'vehicles' or 'people': what the noun of an English figure counts."""
    words = what.lower().split()
    if any(word in CONVOYS for word in words):
        return "convoys"
    return "vehicles" if any(word in VEHICLES for word in words) else "people"
