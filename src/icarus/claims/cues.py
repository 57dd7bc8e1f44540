"""Deterministic cues read from a claim's words: checkworthiness, disposition, temporal scope, type, date.

Everything here is a documented surface pattern, so the same text always gets the same answer and a
reviewer can see why. The cues are English; ``extract_claims`` leaves non-English subjects out of scope.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

from icarus.claims.segment import EMOJI, VERB_CUES, quote_regions
from icarus.ledger.claims import ClaimType, Disposition, TemporalScope

__all__ = [
    "CHECKWORTHINESS_FEATURES",
    "MONTHS",
    "Checkworthiness",
    "Feature",
    "checkworthiness",
    "claim_type",
    "clause_disposition",
    "credits_satire",
    "event_date",
    "explicit_dates",
    "joke_marker",
    "marker_only",
    "normalize",
    "temporal_scope",
]

_I = re.IGNORECASE


@dataclass(frozen=True, slots=True)
class Feature:
    """One checkworthiness feature: its name, the points it adds (or takes away) and what it looks for."""

    name: str
    points: int
    looks_for: str


CHECKWORTHINESS_BASE = 20
CHECKWORTHINESS_FEATURES: tuple[Feature, ...] = (
    Feature("number", 20, "a digit, or a number word (million, half, twice, doubled)"),
    Feature("percent", 15, "'%', 'percent', 'per cent' or 'percentage'"),
    Feature("unit", 10, "a number with a unit, magnitude or currency (km, tonnes, $, million)"),
    Feature("date", 10, "a year, month, weekday, or 'last year' / 'yesterday' / 'since 2008'"),
    Feature("named_entity", 15, "a capitalised word or acronym after the first word"),
    Feature("comparison", 10, "a comparative, superlative or change word (more, highest, rose, record)"),
    Feature("attribution", 10, "a source: 'said', 'according to', 'reported', 'study', 'data', 'census'"),
    Feature("assertion", 5, "a finite verb (is, was, has, rose, said, …)"),
    Feature("question", -35, "the claim is a question"),
    Feature("first_person_feeling", -25, "'I think', 'I love', 'we hope', 'I'm so …'"),
    Feature("imperative", -20, "starts with a command (look, check, share, vote, don't …)"),
    Feature("too_short", -20, "fewer than four words"),
    Feature("too_long", -15, "more than eighty words: likely several claims run together"),
)
"""The features ``checkworthiness`` adds to a base of 20 points, clamped to 0–100 and read as 0–1."""

_NUMBER = re.compile(
    r"\d|\b(?:hundreds?|thousands?|millions?|billions?|trillions?|dozens?|half|twice|doubled?|tripled?|"
    r"halved|quadrupled)\b",
    _I,
)
_PERCENT = re.compile(r"%|\bper\s?cent\b|\bpercentage\b", _I)
_UNIT_WORDS = (
    r"hundred|thousand|million|billion|trillion|bn|m|k|dollars?|euros?|pounds?|yen|yuan|rupees?|km|"
    r"kilomet(?:er|re)s?|miles?|kg|kilo(?:gram)?s?|grams?|tonnes?|tons?|mph|km/h|degrees|°[CF]?|acres?|"
    r"hectares?|barrels?|gallons?|litres?|liters?|met(?:er|re)s?|feet|ft|inches|hours?|days?|weeks?|"
    r"months?|years?|people|deaths|cases|votes|jobs|homes|schools|TEU|MW|GW|kW|kWh|GWh|points?|pp"
)
_UNIT = re.compile(rf"[$€£¥₹]\s?\d|\d[\d,.]*\s?(?:{_UNIT_WORDS})\b", _I)
_MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
# Month names and their short forms: a number's "unit" never (``icarus.claims.figures`` reads "12 October"
# as a date).
MONTHS = frozenset(_MONTHS)
_MONTH_NAMES = "january|february|march|april|may|june|july|august|september|october|november|december"
_MONTH_ANY = r"jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec"
# "May" and "March" are also a verb and a walk: as a date cue they need a number next to them.
_PLAIN_MONTHS = "january|february|april|june|july|august|september|october|november|december"
_DATE_CUE = re.compile(
    rf"\b(?:1[89]\d\d|2[01]\d\d)\b|\b(?:{_PLAIN_MONTHS})\b|\b(?:{_MONTH_ANY})\.?\s+\d|"
    rf"\d\s+(?:{_MONTH_ANY})\b|"
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|today|tonight|"
    r"(?:last|this|next)\s+(?:year|month|week|night|spring|summer|autumn|fall|winter|decade|century|quarter)|"
    r"since\s+\d{4})\b",
    _I,
)
# Capitalised words that are not names when they open a quotation or follow a colon.
_NOT_NAMES = frozenset(
    """i i'm i've i'd i'll ok breaking live update just new wow lol lmao omg rt the a an we he she they it
    this that these those in on at but and so if when my our their his her you your there here""".split()
)
_COMPARISON = re.compile(
    r"\b(?:more|less|fewer|higher|lower|larger|smaller|bigger|greater|most|least|than|highest|lowest|"
    r"largest|smallest|biggest|record|rose|risen|rises?|fell|fallen|falls|increase[sd]?|decrease[sd]?|"
    r"grew|grown|growth|declined?|declines|dropped|doubled|tripled|halved|surged|jumped|plunged|"
    r"strongest|weakest|fastest|slowest|first|only)\b",
    _I,
)
_ATTRIBUTION = re.compile(
    r"\b(?:said|says|according\s+to|reported|reports|announced|confirmed|stated|told|study|studies|"
    r"survey|poll|data|figures|census|report|statistics|records|release|estimates?)\b",
    _I,
)
_FEELING = re.compile(
    r"\b(?:i|we)(?:'m|’m|'re|’re|\s+am|\s+are)?\s+(?:so\s+|really\s+|just\s+)?(?:feel|felt|love|loved|hate|"
    r"hated|think|believe|hope|wish|miss|want|can't\s+wait|cannot\s+wait|glad|happy|sad|angry|sick\s+of|"
    r"tired\s+of|so\s+proud|proud)\b",
    _I,
)
_IMPERATIVES = frozenset(
    "look check read share follow watch stop go vote click see join listen remember imagine tell ask help "
    "sign retweet rt subscribe don't dont do please let's lets get make try call think wake rise".split()
)
_WORDS = re.compile(r"[^\W_][\w'’.-]*")


@dataclass(frozen=True, slots=True)
class Checkworthiness:
    """How worth checking a claim is: ``points`` in 0–100 and the features that fired, in table order."""

    points: int
    features: tuple[str, ...]

    @property
    def score(self) -> float:
        return self.points / 100


def _words(text: str) -> list[str]:
    return _WORDS.findall(text)


def checkworthiness(text: str) -> Checkworthiness:
    """Score ``text`` against ``CHECKWORTHINESS_FEATURES``; deterministic, no model involved."""
    words = _words(text)
    lowered = [word.lower().strip(".'’") for word in words]
    fired = {
        "number": bool(_NUMBER.search(text)),
        "percent": bool(_PERCENT.search(text)),
        "unit": bool(_UNIT.search(text)),
        "date": bool(_DATE_CUE.search(text)),
        "named_entity": any(
            word[0].isupper() and word.lower().strip(".'’") not in _NOT_NAMES for word in words[1:]
        ),
        "comparison": bool(_COMPARISON.search(text)),
        "attribution": bool(_ATTRIBUTION.search(text)),
        "assertion": any(word in VERB_CUES for word in lowered),
        "question": text.rstrip().endswith(("?", "？")),
        "first_person_feeling": bool(_FEELING.search(text)),
        "imperative": bool(lowered) and lowered[0] in _IMPERATIVES,
        "too_short": len(words) < 4,
        "too_long": len(words) > 80,
    }
    points = CHECKWORTHINESS_BASE
    features = []
    for feature in CHECKWORTHINESS_FEATURES:
        if fired[feature.name]:
            points += feature.points
            features.append(feature.name)
    return Checkworthiness(max(0, min(100, points)), tuple(features))


# Dispositions. Joke and satire markers are read on the whole sentence (a trailing "lol" colours every
# clause of it); the others on the clause itself, with quoted words blanked out.
_LAUGH_EMOJI = "😂🤣😆😅😜🤪😝🙃😹🤡😛😏"
_JOKE = re.compile(
    r"\b(?:lol+|lmao+|lmfao|rofl|roflmao|ha(?:ha)+h?|he(?:he)+|jk|j/k|just\s+kidding|joking)\b"
    rf"|[{_LAUGH_EMOJI}]",
    _I,
)
_SATIRE = re.compile(r"(?:^|\s)/s\b|[#＃](?:satire|parody)\b|\((?:satire|parody)\)|\bsatire:", _I)
_ADVICE = re.compile(
    r"\byou(?:'d|’d|\s+would)?\s+(?:really\s+)?(?:should|shouldn't|should\s+not|need\s+to|must|ought\s+to|"
    r"have\s+to|gotta)\b|\bmake\s+sure\s+(?:you|to)\b|\bi(?:'d|’d)?\s+(?:strongly\s+)?(?:recommend|suggest|"
    r"advise)\b|\b(?:don't|don’t|do\s+not|never)\s+(?:take|eat|drink|buy|use|get|give|let|trust)\b",
    _I,
)
_PRIVATE = re.compile(
    r"\bmy\s+(?:next-door\s+)?(?:neighbou?rs?|cousins?|aunts?|uncles?|sisters?|brothers?|mum|mom|dad|"
    r"father|mother|wife|husband|partner|son|daughter|boss|co-?workers?|colleagues?|friends?|landlord|"
    r"landlady|ex|roommates?|flatmates?|kids?|children|teacher|nephew|niece|grandma|grandpa|grandmother|"
    r"grandfather|in-laws?|classmates?)\b|\b(?:a|this|some)\s+(?:guy|woman|man|girl|lady|bloke|person|kid)"
    r"\s+i\s+know\b|\bsomeone\s+i\s+know\b|\ba\s+friend\s+of\s+mine\b",
    _I,
)
_OPINION_EXPLICIT = re.compile(
    r"\b(?:i\s+think|i\s+believe|i\s+feel|i\s+reckon|i\s+guess|in\s+my\s+(?:humble\s+)?opinion|imo|imho|"
    r"personally|frankly|if\s+you\s+ask\s+me)\b",
    _I,
)
_OPINION_EVALUATIVE = re.compile(
    r"\b(?:should(?:n't|\s+not)?|ought\s+to|must\s+be|deserves?|best(?!-)|worst(?!-)|greatest(?!-)|terrible|"
    r"awful|horrible|amazing|fantastic|disgrace(?:ful)?|disgusting|pathetic|ridiculous|stupid|idiot(?:s|ic)?|"
    r"moron(?:s|ic)?|overrated|underrated|incompetent|brilliant|useless|shameful|beautiful)\b",
    _I,
)
# A superlative with a measurable frame is a factual claim: "the worst drought since 1976".
_RECORD_FRAME = re.compile(
    r"\b(?:since\s+(?:\d{4}|records\s+began)|on\s+record|ever\s+recorded|in\s+(?:\d+|a|over\s+a)\s+"
    r"(?:years?|decades?|century)|in\s+history|to\s+date)\b",
    _I,
)
_REPORTED = re.compile(
    r"\b(?:said|says|say|told|tells|announced|announces|stated|claimed|claims|wrote|writes|tweeted|"
    r"promised|promises|pledged|pledges|predicted|predicts|forecast|forecasts|warned|warns|according\s+to|"
    r"argued|argues|called)\b",
    _I,
)
_PREDICTION = re.compile(
    r"\b(?:will|won't|won’t|shall|gonna|(?:is|are|am|'s|’s|'re|’re|'m|’m)\s+(?:going|set|expected|"
    r"projected|forecast|poised|likely|about|due)\s+to|going\s+to(?!\s+(?:the|a|an|my|his|her|their|our|your|"
    r"its|school|work|church|bed)\b)|next\s+(?:year|month|week|decade|season|quarter|election|time))\b",
    _I,
)
_WILL_AS_NOUN = re.compile(
    r"\b(?:the|a|his|her|their|free|good|ill|political|popular|own)\s+will\b"
    r"|\bwill\s+(?:was|were|is|has|had|of)\b",
    _I,
)
_YEAR = re.compile(r"\b(1[89]\d\d|2[01]\d\d)\b")


def _blank_quotes(text: str) -> str:
    regions = quote_regions(text)
    chars = list(text)
    for start, end in zip(regions.starts, regions.ends, strict=True):
        for index in range(start, end):
            chars[index] = " "
    return "".join(chars)


# A clause that credits its words to a source it calls satirical ("…, says satirical site The Onion"): the
# claim is about what the satire published, not about the event it describes (H6, G0).
_SATIRE_SOURCE = re.compile(
    r"\b(?:satirical|satire|parody|spoof)\s+(?:news\s+)?(?:site|website|outlet|newspaper|paper|"
    r"publication|magazine|account|page|blog|show|column)s?\b|\bsatirists?\b",
    _I,
)


_PUBLISHED = re.compile(
    r"\b(?:reports?|reported|publishe[sd]|headlines?|ran\s+(?:a|the)\s+(?:story|piece))\b", _I
)


def credits_satire(clause: str) -> bool:
    """The clause credits what it says to a source it calls satirical and reports it ("says", "according
    to"): a claim about the satire itself, which G0 does not bar and for which the satire's own piece is
    admissible evidence (H6)."""
    return bool(_SATIRE_SOURCE.search(clause) and (_REPORTED.search(clause) or _PUBLISHED.search(clause)))


def joke_marker(sentence: str) -> Disposition | None:
    """``satire`` for sarcasm or satire tags ("/s", "#satire"), ``joke`` for laughter markers, else None."""
    if _SATIRE.search(sentence):
        return Disposition.SATIRE
    if _JOKE.search(sentence):
        return Disposition.JOKE
    return None


_MARKER_RESIDUE = re.compile(
    rf"(?:https?://\S+|www\.\S+|[@#]\w+|[{EMOJI}]|/s\b|\b(?:lol+|lmao+|lmfao|rofl|ha(?:ha)+h?|he(?:he)+|jk|"
    r"j/k|just\s+kidding)\b|[\s\W_])+",
    _I,
)


def marker_only(sentence: str) -> bool:
    """A sentence that is only a joke or satire marker ("lol.", "😂", "/s"): it colours the one before."""
    return joke_marker(sentence) is not None and not _MARKER_RESIDUE.sub("", sentence)


def clause_disposition(clause: str, as_of: date) -> Disposition:
    """The clause-level disposition: personal advice, private individual, opinion, prediction or checkable.

    ``as_of`` is the capture date: a stated year after it marks a prediction. Reported speech ("the
    minister said taxes will fall") is a checkable claim about what was said, so evaluative and
    predictive cues are not read when the clause attributes its content to someone.
    """
    text = _blank_quotes(clause)
    if _ADVICE.search(text):
        return Disposition.PERSONAL_ADVICE
    if _PRIVATE.search(text):
        return Disposition.PRIVATE_INDIVIDUAL
    if _OPINION_EXPLICIT.search(text):
        return Disposition.OPINION
    reported = bool(_REPORTED.search(text))
    if not reported and _is_prediction(text, as_of):
        return Disposition.PREDICTION
    if not reported:
        for match in _OPINION_EVALUATIVE.finditer(text):
            superlative = match.group(0).lower() in ("best", "worst", "greatest")
            if not (superlative and _RECORD_FRAME.search(text)):
                return Disposition.OPINION
    return Disposition.CHECKABLE


def _is_prediction(text: str, as_of: date) -> bool:
    for match in _PREDICTION.finditer(text):
        window = (max(0, match.start() - 20), min(len(text), match.end() + 6))
        if match.group(0).lower() == "will" and _WILL_AS_NOUN.search(text, *window):
            continue
        return True
    if any(int(year) > as_of.year for year in _YEAR.findall(text)):
        return True
    return any(day > as_of for day, _, _ in explicit_dates(text))


_ONGOING = re.compile(
    r"\b(?:breaking|developing|ongoing|underway|under\s+way|unfolding|right\s+now|as\s+we\s+speak|"
    r"continues?\s+to|continuing|live\s+(?:updates|blog|coverage)|live:)|"
    r"\b(?:is|are|am)\s+(?:still\s+|now\s+|currently\s+)?(?!going\b|during\b|(?:no|some|any|every)?thing\b|"
    r"(?:morn|even|build|ceil|wedd|spr|str|k|interest|amaz|bor|shock|surpris|alarm|worry|concern|"
    r"disappoint|astonish|stagger|outstand|mislead|lov)ing\b)[a-z]+ing\b",
    _I,
)
_LIVE = re.compile(r"\bLIVE\b")
_CURRENT = re.compile(
    r"\b(?:is|are|am|isn't|aren't|has|have|hasn't|haven't|now|currently|today|tonight|this\s+(?:week|month|"
    r"year)|at\s+present|presently|remains?|stands?\s+at|so\s+far)\b",
    _I,
)


def temporal_scope(clause: str, sentence: str) -> TemporalScope:
    """``ongoing`` for live or still-unfolding wording anywhere in the sentence ("BREAKING", "still",
    "is spreading"); ``current`` for a present-tense or "now" clause; otherwise ``historical``."""
    if _ONGOING.search(sentence) or _LIVE.search(sentence):
        return TemporalScope.ONGOING
    if _CURRENT.search(clause):
        return TemporalScope.CURRENT
    return TemporalScope.HISTORICAL


_STATISTIC = re.compile(rf"[$€£¥₹]\s?\d|\d[\d,.]*\s?(?:%|per\s?cent\b|percentage\b|(?:{_UNIT_WORDS})\b)", _I)


def claim_type(clause: str) -> ClaimType:
    """``quote`` when it quotes two or more words, ``statistic`` for a number with a unit or percent, else
    ``event``."""
    regions = quote_regions(clause)
    for start, end in zip(regions.starts, regions.ends, strict=True):
        if len(_words(clause[start:end])) >= 2:
            return ClaimType.QUOTE
    if _STATISTIC.search(clause):
        return ClaimType.STATISTIC
    return ClaimType.EVENT


_ORDINAL = r"(?:st|nd|rd|th)?"
_FULL_DATES = (
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"),
    re.compile(
        rf"\b(?P<d>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<mon>{_MONTH_NAMES}|{_MONTH_ANY})\.?,?\s+"
        r"(?P<y>\d{4})\b",
        _I,
    ),
    re.compile(
        rf"\b(?P<mon>{_MONTH_NAMES}|{_MONTH_ANY})\.?\s+(?P<d>\d{{1,2}}){_ORDINAL},?\s+(?P<y>\d{{4}})\b", _I
    ),
)


def explicit_dates(text: str) -> list[tuple[date, int, int]]:
    """Full calendar dates written out in ``text`` (ISO, "3 March 2026", "March 3, 2026"), with offsets.

    Dates without a year, or with slashes (day and month order unknown), are not read.
    """
    found: dict[int, tuple[date, int, int]] = {}
    for pattern in _FULL_DATES:
        for match in pattern.finditer(text):
            groups = match.groupdict()
            month = int(groups["m"]) if groups.get("m") else _MONTHS[groups["mon"].lower()]
            try:
                day = date(int(groups["y"]), month, int(groups["d"]))
            except ValueError:
                continue
            found.setdefault(match.start(), (day, match.start(), match.end()))
    return [found[start] for start in sorted(found)]


def event_date(clause: str) -> date | None:
    """The first full date the clause states, taken as the date of the event it reports."""
    dates = explicit_dates(clause)
    return dates[0][0] if dates else None


_NORMALIZE_DROP = re.compile(r"https?://\S+|www\.\S+|[@＠]\w+", _I)
_QUOTE_FOLD = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'"})


def normalize(text: str) -> str:
    """Search text for a claim (never shown): NFKC, quotes folded, URLs and @handles dropped, '#' dropped
    from hashtags, invisible and control characters removed, case-folded, white space collapsed."""
    folded = unicodedata.normalize("NFKC", text).translate(_QUOTE_FOLD)
    folded = _NORMALIZE_DROP.sub(" ", folded).replace("#", "")
    folded = "".join(
        " " if unicodedata.category(char) in ("Cc", "Zl", "Zp") else char
        for char in folded
        if unicodedata.category(char) not in ("Cf", "Cs", "Co")
    )
    return " ".join(folded.casefold().split())
