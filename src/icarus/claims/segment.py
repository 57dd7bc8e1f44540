"""Cut captured text into sentences and atomic clauses, as character offsets into the text.

Nothing here rewrites text. Every function returns ``(start, end)`` offsets into the string it was given,
so a claim is always ``text[start:end]`` (G0). The splitter is a set of careful regular expressions, not a
language model:

* a sentence ends at ``.``, ``!``, ``?`` or ``…`` (with any closing quotes or brackets) followed by space
  and a character that is not a lower-case letter; at a blank line; at a line break before a line that
  does not continue in lower case; and after a run of emoji followed by a new capitalised sentence;
* it does not end after a title (``Dr.``, ``Mr.``), a single initial (``John F. Kennedy``), a numbered
  abbreviation before a number (``No. 5``, ``Jan. 6``), inside a URL, or inside a quotation that closes
  later on the same line; after an initialism (``U.S.``, ``a.m.``, ``Inc.``) only when a common
  sentence opener follows (``in the U.S. The …``); decimals (``3.5``) never end one, having no space;
* a sentence is split into clauses only at ``;`` or at ``, and`` / ``, but`` / ``, while`` /
  ``, whereas`` / ``, yet`` when both sides have at least three words and a verb, the right side does not
  start with a pronoun that needs the left side to be understood, and the split is not inside quotes,
  brackets or a URL.

``trim_span`` then takes decoration off the edges of a span (space, URLs, @handles, #hashtags, emoji,
bullets, list and thread numbers, labels such as ``BREAKING:`` and a retweet's ``RT``, leading
conjunctions, trailing ``.,;:``) without touching the words between.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

__all__ = [
    "EMOJI",
    "VERB_CUES",
    "Regions",
    "has_letter",
    "quote_regions",
    "split_clauses",
    "split_sentences",
    "trim_span",
    "url_spans",
]

EMOJI = (
    "\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\u200d\ufe0f\u20e3"
    "\U000e0020-\U000e007f\U0001f1e6-\U0001f1ff"
)
"""Character ranges treated as emoji (pictographs, symbols, joiners, variation selectors, flags, tags)."""

_EMOJI_RUN = re.compile(f"[{EMOJI}]+")
_URL = re.compile(r"(?:https?://|www\.)[^\s<>\"“”]+", re.IGNORECASE)
_URL_TAIL = ".,;:!?'\"’”)]}…"

# Sentence-break candidates, tried in this order at each position.
_BREAK = re.compile(
    r"(?P<para>\n[^\S\n]*\n)"
    r"|(?P<nl>\n)"
    r"|(?P<punct>[.!?…‽]+)(?P<close>[\"'”’»)\]]*)(?=\s|$)"
    f"|(?P<emoji>[{EMOJI}]+)(?=[^\\S\\n]+\\S)"
)

_TITLES = frozenset(
    "mr mrs ms mx dr prof sr jr st mt ft rev hon sen rep gov pres gen col lt maj sgt capt cmdr adm "
    "supt insp det fr sra sr srta mme mlle messrs vs v cf".split()
)
_BEFORE_NUMBER = frozenset(
    "no nos vol vols fig figs art sec ch chap p pp para op ed rev est approx jan feb mar apr jun jul aug "
    "sep sept oct nov dec".split()
)
_INITIALISM = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
_COMPANY = frozenset("inc ltd co corp bros llc plc llp ag gmbh sa nv".split())
_STARTERS = frozenset(
    "the this that these those it its he she they we i you in on at but and so a an there here our their "
    "his her my as if when while after before meanwhile however yet also still now then according "
    "since for with by from".split()
)

_WORD = re.compile(r"[^\W\d_][\w'’.-]*|\d[\d.,]*%?")
_PRONOUN_START = frozenset(
    "it its they them their he him his she her this that these those which who whom whose "
    "there such so".split()
)
# Words that make a span a clause rather than a phrase: auxiliaries and common reporting/change verbs.
VERB_CUES = frozenset(
    """is are was were be been being am has have had do does did will would can could shall should may
    might must rose rise rises risen fell fall falls fallen grew grow grows grown increased increases
    decreased decreases dropped drops declined declines climbed climbs jumped jumps doubled tripled
    halved reached reaches hit hits stood stands stand ran runs run said says say told tells announced
    announces reported reports killed kills died dies won wins lost loses passed passes voted votes signed
    signs opened opens closed closes cut cuts raised raises spent spends paid pays made makes found finds
    shows show showed confirmed confirms denied denies banned bans approved approves launched launches
    became becomes remain remains remained got gets received receives sold sells bought buys owns owned
    leads led hold holds held costs cost totals totalled totaled account accounts contain contains
    ranked ranks fell""".split()
)
_CLAUSE_SPLIT = re.compile(r";\s+|,\s+(?:and|but|while|whereas|yet)\s+", re.IGNORECASE)

_LEAD_TRIMS = (
    re.compile(r"\s+"),
    re.compile(r"(?:https?://|www\.)\S*", re.IGNORECASE),
    re.compile(r"[@＠]\w{1,50}"),
    re.compile(r"[#＃]\w+"),
    _EMOJI_RUN,
    re.compile(r"[-–—•·*>▪►▶→|:;,.~=_](?!\d)"),
    re.compile(r"(?:\(\d{1,3}(?:/\d{1,3})?\)|\d{1,2}[.)]|\d{1,3}/)(?=\s|$)"),
    re.compile(r"(?:breaking|just in|update|updated|new|thread|live|developing|watch|fact)\s*:", re.I),
    re.compile(r"RT(?=\s+@)"),
    re.compile(
        r"(?:and|but|or|so(?!\s+(?:far|much|many|long)\b)|also|plus|meanwhile|however)\b,?(?=\s)", re.I
    ),
)
_TRAIL_PUNCT = ".,;:—–-|·•~=_…"
_TRAIL_MARKER = re.compile(r"(?:\s|^)(?:\(\d{1,3}/\d{0,3}\)|\d{1,3}/)$")


@dataclass(frozen=True, slots=True)
class Regions:
    """Sorted, non-overlapping half-open ranges ``[start, end)`` with fast membership tests."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @classmethod
    def of(cls, spans: Sequence[tuple[int, int]]) -> Regions:
        starts: list[int] = []
        ends: list[int] = []
        for start, end in sorted(spans):
            if ends and start < ends[-1]:
                continue  # nested in an earlier range: the outer one already covers it
            starts.append(start)
            ends.append(end)
        return cls(tuple(starts), tuple(ends))

    def end_of(self, position: int) -> int | None:
        """End of the range that holds ``position`` strictly after its start, or None."""
        index = bisect.bisect_left(self.starts, position) - 1
        if index >= 0 and self.starts[index] < position < self.ends[index]:
            return self.ends[index]
        return None

    def covers(self, position: int) -> bool:
        index = bisect.bisect_right(self.starts, position) - 1
        return index >= 0 and self.starts[index] <= position < self.ends[index]


def url_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Offsets of URLs in ``text[start:end]``, without trailing sentence punctuation."""
    spans = []
    for match in _URL.finditer(text, start, len(text) if end is None else end):
        stop = match.end()
        while stop > match.start() and text[stop - 1] in _URL_TAIL:
            # Keep a closing bracket that closes one opened inside the URL (Wikipedia-style links).
            if text[stop - 1] == ")" and text.count("(", match.start(), stop) >= text.count(
                ")", match.start(), stop
            ):
                break
            stop -= 1
        spans.append((match.start(), stop))
    return spans


def quote_regions(text: str) -> Regions:
    """Double-quoted passages that open and close on one line, from opening mark to past the closing one."""
    pairs: list[tuple[int, int]] = []
    curly: list[tuple[int, str]] = []
    straight: int | None = None
    for index, char in enumerate(text):
        if char == "\n":
            curly.clear()
            straight = None
        elif char == '"':
            if straight is None:
                straight = index
            else:
                pairs.append((straight, index + 1))
                straight = None
        elif char in "“«„" and not (char == "“" and curly and curly[-1][1] == "„"):
            curly.append((index, char))
        elif char in "”»“" and curly:
            pairs.append((curly.pop()[0], index + 1))
    return Regions.of(pairs)


def has_letter(text: str) -> bool:
    return any(char.isalpha() for char in text)


def _next_visible(text: str, position: int) -> int | None:
    for index in range(position, min(len(text), position + 200)):
        if not text[index].isspace():
            return index
    return None


def _token_before(text: str, position: int) -> str:
    start = position
    while start > 0 and not text[start - 1].isspace() and position - start < 40:
        start -= 1
    return text[start:position].lstrip("([{\"'“‘«")


def _next_word(text: str, position: int) -> str:
    match = re.compile(r"[^\W\d_]+").match(text, position)
    return match.group(0) if match else ""


def _at_line_start(text: str, position: int) -> bool:
    before = text.rfind("\n", 0, position)
    return not text[before + 1 : position].strip()


def _dot_ends_sentence(text: str, dot: int, following: int) -> bool:
    """Whether a single ``.`` at ``dot`` ends a sentence, given the next visible character's offset."""
    token = _token_before(text, dot)
    lower = token.lower()
    if lower in _TITLES:
        return False
    if lower in _BEFORE_NUMBER:
        return not text[following].isdigit()
    if len(token) == 1 and token.isupper():
        return False  # a middle initial
    if token.isdigit() and len(token) <= 2 and _at_line_start(text, dot - len(token)):
        return False  # a numbered list item: "1. Prices rose."
    if _INITIALISM.fullmatch(token) or lower in _COMPANY:
        return _next_word(text, following).lower() in _STARTERS
    return True


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentences of ``text`` as ``(start, end)`` offsets, without surrounding white space."""
    urls = Regions.of(url_spans(text))
    quotes = quote_regions(text)
    cuts = [0]
    for match in _BREAK.finditer(text):
        kind = next(name for name in ("para", "nl", "punct", "emoji") if match.group(name) is not None)
        if kind == "para":
            cuts.append(match.start())
        elif kind == "nl":
            following = _next_visible(text, match.end())
            if following is None or not text[following].islower():
                cuts.append(match.start())
        elif kind == "punct":
            mark = match.start("punct")
            quote_end = quotes.end_of(mark)
            if urls.covers(mark) or (quote_end is not None and quote_end > match.end()):
                continue  # inside a URL, or inside a quotation that goes on after this mark
            following = _next_visible(text, match.end())
            if following is None:
                cuts.append(match.end())
            elif text[following].islower():
                continue
            elif match.group("punct") != "." or _dot_ends_sentence(text, mark, following):
                cuts.append(match.end())
        elif kind == "emoji":
            following = _next_visible(text, match.end())
            if following is None or quotes.end_of(match.start()) is not None:
                continue
            char = text[following]
            if char.isupper() or char.isdigit() or char in "\"“'‘(":
                cuts.append(match.end())
    cuts.append(len(text))
    sentences = []
    for start, end in pairwise(cuts):
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            sentences.append((start, end))
    return sentences


def _words(text: str, start: int, end: int) -> list[str]:
    return [m.group(0).lower().strip(".'’-") for m in _WORD.finditer(text, start, end)]


def _clause_stats(words: Sequence[str]) -> tuple[int, bool]:
    verb = any(word in VERB_CUES or (len(word) > 4 and word.endswith("ed")) for word in words)
    return len(words), verb


def _split_points(text: str, start: int, end: int, quotes: Regions) -> list[tuple[int, int]]:
    """Candidate clause joints outside URLs, quotations and brackets, as (start, end) of the joint."""
    urls = Regions.of(url_spans(text, start, end))
    points = []
    depth = 0
    scanned = start
    for match in _CLAUSE_SPLIT.finditer(text, start, end):
        at = match.start()
        for char in text[scanned:at]:
            if char in "([{":
                depth += 1
            elif char in ")]}" and depth:
                depth -= 1
        scanned = at
        if depth or urls.covers(at) or quotes.end_of(at) is not None:
            continue
        points.append(match.span())
    return points


def split_clauses(text: str, start: int, end: int, *, quotes: Regions | None = None) -> list[tuple[int, int]]:
    """Split the sentence ``text[start:end]`` into coordinated clauses where that is safe (see module)."""
    if quotes is None:
        quotes = quote_regions(text)
    points = _split_points(text, start, end, quotes)
    # Words of each stretch between joints, read once so that long sentences stay linear.
    bounds = [start, *(p for joint in points for p in joint), end]
    stretches = [_words(text, bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
    pieces = []
    current = start
    left_count, left_verb = _clause_stats(stretches[0])
    for index, (joint_start, joint_end) in enumerate(points):
        right = stretches[index + 1]
        right_count, right_verb = _clause_stats(right)
        safe = left_count >= 3 and left_verb and right_count >= 3 and right_verb
        if safe and right[0] not in _PRONOUN_START:
            pieces.append((current, joint_start))
            current = joint_end
            left_count, left_verb = right_count, right_verb
        else:
            left_count, left_verb = left_count + right_count, left_verb or right_verb
    pieces.append((current, end))
    return pieces


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Narrow ``[start, end)`` past decoration at either edge; the words between are left alone."""
    changed = True
    while changed and start < end:
        changed = False
        for pattern in _LEAD_TRIMS:
            match = pattern.match(text, start, end)
            if match and match.end() > start:
                start = match.end()
                changed = True
                break
    changed = True
    while changed and start < end:
        changed = False
        new_end = _trim_end_once(text, start, end)
        if new_end != end:
            end = new_end
            changed = True
    return start, max(start, end)


def _trim_end_once(text: str, start: int, end: int) -> int:
    char = text[end - 1]
    if char.isspace():
        return end - 1
    if _EMOJI_RUN.match(char):
        return end - 1
    space = end - 1
    while space > start and not text[space - 1].isspace():
        space -= 1
    token = text[space:end]
    if token[:1] in "@＃#＠" or token.lower().startswith(("http://", "https://", "www.")):
        return space
    marker = _TRAIL_MARKER.search(text, start, end)
    if marker:
        return marker.start()
    if char in _TRAIL_PUNCT:
        if char == "." and (_INITIALISM.fullmatch(token[:-1]) or token[:-1].lower() in _TITLES | _COMPANY):
            return end  # "the U.S." keeps its last dot
        return end - 1
    return end
