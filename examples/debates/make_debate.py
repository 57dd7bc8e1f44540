"""Write ``debate-90min.srt``: a 90-minute televised debate between two invented candidates.

The province of Norvale and everyone in it are fictional. SPEAKER_1 is the moderator, Ruth Calloway;
SPEAKER_2 is the incumbent, Governor Helena Marsh; SPEAKER_3 is the challenger, Councillor Daniel Okoro.
The captions carry diarization labels only (``SPEAKER_2: …`` where the voice changes), so a newsroom has
to name the voices before claims are checked, as with a real diarized recording.

What they say is a mix a fact-checking desk meets on a debate night: checkable statements with figures,
dates and comparisons, first-person records ("I voted…"), opinions, promises and predictions, courtesy
and floor management, and the moderator's questions. Every sentence is drawn from the templates below
by a seeded generator, so running this script again writes the same file byte for byte::

    python examples/debates/make_debate.py            # rewrites examples/debates/debate-90min.srt
    python examples/debates/make_debate.py --check    # exits 1 when the committed file differs

``build_debate()`` returns the cues together with each sentence's kind, which the detection tests use
as ground truth.
"""

from __future__ import annotations

import argparse
import random
import sys
import textwrap
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import srt

SEED = 20261014
DEBATE_SECONDS = 90 * 60
CLOSING_SECONDS = 150  # left for the closing statements once the topic rounds end
OUTPUT = Path(__file__).with_name("debate-90min.srt")
WORDS_PER_SECOND = 2.6  # about 155 words a minute, a brisk but ordinary debate pace
LINE_CHARS = 32  # a broadcast caption line (the CEA-608 width)
CUE_LINES = 2
SENTENCE_CUE_WORDS = 5  # a cue this long that reaches the end of a sentence ends there
CUE_GAPS = (0.08, 0.12, 0.2, 0.24)
BREATH = (0.3, 1.2)  # seconds between two speakers' turns

MODERATOR, MARSH, OKORO = "SPEAKER_1", "SPEAKER_2", "SPEAKER_3"
CANDIDATES = (MARSH, OKORO)
TITLE = {MARSH: "Governor Marsh", OKORO: "Councillor Okoro"}
FIRST = {MARSH: "Governor", OKORO: "Councillor"}

# Sentence kinds: what a fact-checking desk would do with each.
FACT = "fact"  # checkable as it stands
FACT_FIRST_PERSON = "fact_first_person"  # checkable once the speaker is named
OPINION = "opinion"
PREDICTION = "prediction"
SMALL_TALK = "small_talk"
QUESTION = "question"

TOWNS = ("Port Ellery", "Greyhaven", "Lindmere", "Ashford Bay", "Calder Falls", "Wrenfield")
MONTHS = ("January", "February", "March", "April", "June", "July", "September", "October", "November")


@dataclass(frozen=True, slots=True)
class Sentence:
    speaker: str
    kind: str
    text: str


@dataclass(frozen=True, slots=True)
class Debate:
    cues: list[srt.Subtitle]
    sentences: list[Sentence]


def _facts(rng: random.Random) -> dict[str, list[str]]:
    """Checkable statements per topic, with fresh figures each time they are drawn."""

    def pct(low: float, high: float) -> str:
        return f"{rng.uniform(low, high):.1f}"

    def year(low: int = 2014, high: int = 2025) -> int:
        return rng.randint(low, high)

    def town() -> str:
        return rng.choice(TOWNS)

    y1 = year(2014, 2019)
    y2 = year(2020, 2025)
    return {
        "economy": [
            f"Unemployment in Norvale fell from {pct(6, 8)} percent in {y1} to {pct(3.5, 5)} percent in {y2}.",
            f"The province added {rng.randint(18, 64)},{rng.randint(100, 999)} jobs between {y1} and {y2}, according to the Norvale Statistics Office.",
            f"Median household income in Norvale was {rng.randint(52, 71)},{rng.randint(100, 900)} dollars in {y2}, up {pct(3, 12)} percent since {y1}.",
            f"Manufacturing employment dropped by {rng.randint(4, 15)},{rng.randint(100, 999)} jobs after the {town()} plant closed in {y2}.",
            f"Norvale's economy grew {pct(1, 3.5)} percent last year, faster than the national average of {pct(0.5, 2)} percent.",
            f"Small business registrations rose {pct(5, 20)} percent in {y2}, the highest number since records began.",
            f"The minimum wage in Norvale was raised to {rng.randint(13, 17)}.{rng.choice(('00', '25', '50', '75'))} dollars an hour in {MONTHS[rng.randrange(len(MONTHS))]} {y2}.",
        ],
        "housing": [
            f"The average rent in {town()} rose {pct(6, 19)} percent in {y2}, according to the provincial housing agency.",
            f"Norvale approved {rng.randint(7, 14)},{rng.randint(100, 999)} new homes in {y2}, twice as many as in {y1}.",
            f"Housing starts fell to {rng.randint(3, 6)},{rng.randint(100, 999)} last year, the lowest figure since {y1}.",
            f"The median home price in Norvale reached {rng.randint(310, 460)},000 dollars in {y2}.",
            f"More than {rng.randint(2, 9)},{rng.randint(100, 999)} families were on the social housing waiting list in {MONTHS[rng.randrange(len(MONTHS))]} {y2}.",
            f"Homelessness in {town()} increased {pct(8, 30)} percent between {y1} and {y2}, the city's own count shows.",
        ],
        "health": [
            f"Emergency room patients in Norvale waited an average of {rng.randint(4, 9)} hours in {y2}, compared with {rng.randint(2, 4)} hours in {y1}.",
            f"The province spent {pct(31, 44)} percent of its budget on health care in {y2}.",
            f"{rng.randint(5, 14)} rural clinics closed between {y1} and {y2}, according to the health ministry.",
            f"Norvale had {rng.randint(180, 260)} family doctors per 100,000 residents in {y2}, fewer than any neighbouring province.",
            f"The waiting list for hip and knee surgery grew from {rng.randint(4, 8)},{rng.randint(100, 999)} patients in {y1} to {rng.randint(9, 15)},{rng.randint(100, 999)} in {y2}.",
            f"The new {town()} General Hospital opened in {MONTHS[rng.randrange(len(MONTHS))]} {y2} with {rng.randint(180, 420)} beds.",
        ],
        "education": [
            f"The high school graduation rate in Norvale reached {pct(82, 93)} percent in {y2}, a record for the province.",
            f"Average class sizes grew from {rng.randint(21, 24)} to {rng.randint(26, 31)} students between {y1} and {y2}.",
            f"Teacher salaries in Norvale were {pct(4, 11)} percent below the national average in {y2}.",
            f"The province closed {rng.randint(9, 30)} rural schools between {y1} and {y2}.",
            f"Tuition at Norvale University rose {pct(10, 35)} percent over the last {rng.randint(4, 8)} years.",
            f"Only {pct(38, 61)} percent of four-year-olds in Norvale had a preschool place in {y2}.",
        ],
        "energy": [
            f"Wind and solar supplied {pct(18, 41)} percent of Norvale's electricity in {y2}.",
            f"Carbon emissions in the province fell {pct(6, 22)} percent between {y1} and {y2}.",
            f"Household electricity prices rose {pct(7, 24)} percent in {y2}, more than in any neighbouring province.",
            f"The {town()} coal plant closed in {y2}, {rng.randint(2, 6)} years ahead of schedule.",
            f"The province issued {rng.randint(1, 4)},{rng.randint(100, 999)} rooftop solar permits in {y2}, up from {rng.randint(200, 900)} in {y1}.",
        ],
        "transport": [
            f"The Harbor Line extension opened in {MONTHS[rng.randrange(len(MONTHS))]} {y2}, {rng.randint(8, 30)} months behind schedule.",
            f"The Harbor Line extension cost {rng.randint(1, 3)}.{rng.randint(1, 9)} billion dollars, {pct(20, 60)} percent more than the original estimate.",
            f"Bus ridership in {town()} dropped by {rng.randint(4, 19)},{rng.randint(100, 999)} trips a day after the {y2} fare increase.",
            f"Road deaths in Norvale declined from {rng.randint(95, 140)} in {y1} to {rng.randint(60, 94)} in {y2}.",
            f"The average commute in Port Ellery was {rng.randint(31, 47)} minutes in {y2}, the longest in the province.",
        ],
        "safety": [
            f"Reported burglaries in Norvale declined {pct(8, 25)} percent in {y2}, according to provincial police data.",
            f"The province hired {rng.randint(120, 480)} new police officers in {y2}.",
            f"Violent crime in {town()} rose {pct(3, 14)} percent between {y1} and {y2}.",
            f"Norvale's prison population was {rng.randint(4, 7)},{rng.randint(100, 999)} in {y2}, up from {rng.randint(3, 4)},{rng.randint(100, 999)} in {y1}.",
            f"Emergency response times in rural Norvale averaged {rng.randint(14, 26)} minutes in {y2}.",
        ],
        "budget": [
            f"The provincial sales tax was raised from {rng.randint(5, 6)} percent to {rng.randint(7, 8)} percent in {y1}.",
            f"The provincial budget grew by {rng.randint(2, 9)}.{rng.randint(1, 9)} billion dollars between {y1} and {y2}.",
            f"Norvale's debt reached {rng.randint(38, 61)} billion dollars in {y2}, the highest level since {rng.randint(1990, 2005)}.",
            f"The province ran a surplus of {rng.randint(110, 890)} million dollars in {y2}.",
            f"Interest payments on the debt cost Norvale {rng.randint(1, 3)}.{rng.randint(1, 9)} billion dollars last year, more than the entire transport budget.",
        ],
    }


def _first_person(rng: random.Random, speaker: str) -> list[str]:
    """A speaker's own record: checkable only once we know who is speaking."""
    y = rng.randint(2014, 2025)
    if speaker == MARSH:
        return [
            f"My administration cut the small business tax rate from {rng.randint(11, 14)} percent to {rng.randint(8, 10)} percent in {y}.",
            f"I signed the Clean Rivers Act in {MONTHS[rng.randrange(len(MONTHS))]} {y}.",
            f"I balanced the provincial budget {rng.randint(2, 4)} years in a row.",
            f"Under my government, Norvale hired {rng.randint(900, 2400)} new nurses between {y - 2} and {y}.",
            f"I served {rng.randint(6, 12)} years on the {rng.choice(TOWNS)} city council before I was elected governor in {rng.randint(2018, 2022)}.",
            f"My opponent voted against the {y} hospital funding bill.",
        ]
    return [
        f"I voted against the {y} transit levy on the provincial council.",
        f"I ran a construction company with {rng.randint(40, 220)} employees for {rng.randint(8, 15)} years.",
        f"When I chaired the {rng.choice(TOWNS)} housing committee, we approved {rng.randint(1, 4)},{rng.randint(100, 999)} affordable units in {y}.",
        f"I introduced the rent transparency bill in {MONTHS[rng.randrange(len(MONTHS))]} {y}.",
        f"My opponent raised the sales tax in {rng.randint(2015, 2019)} after promising not to.",
        f"My family has farmed near {rng.choice(TOWNS)} for {rng.randint(3, 5)} generations.",
    ]


OPINIONS = (
    "I think families in this province deserve better.",
    "Frankly, that plan is a disaster for working people.",
    "I believe Norvale's best days are ahead of us.",
    "We should be investing in people, not in slogans.",
    "Personally, I find that answer ridiculous.",
    "The people of this province deserve a government that listens.",
    "I think my opponent simply doesn't understand {topic}.",
    "In my opinion, {topic} is the defining issue of this election.",
    "That record on {topic} is shameful.",
    "I believe we can do much better on {topic}.",
    "Frankly, the approach to {topic} has been incompetent.",
    "We must be honest with voters about {topic}.",
    "This is a terrible plan for {topic}, and everyone knows it.",
    "Nobody should have to choose between rent and groceries.",
)
PREDICTIONS = (
    "If I am elected, we will build {n},000 new homes by 2030.",
    "Prices are going to keep rising under that plan.",
    "Next year every four-year-old in Norvale will have a preschool place.",
    "We will cut emergency room waits in half within four years.",
    "My plan will create {n},000 jobs by 2029.",
    "Electricity bills will fall as soon as the new wind farms come online.",
    "Under my plan, the budget will be balanced by 2028.",
    "His tax plan will cost the province {n} billion dollars.",
    "We're going to fix {topic}, and we're going to do it quickly.",
    "Class sizes will come down in my first term.",
)
REBUTTALS = (
    "That's not what I said.",
    "Let me finish, please.",
    "That is simply not true.",
    "With respect, that's not the whole story.",
    "The governor knows that's not accurate.",
    "Those numbers are misleading, and she knows it.",
    "He keeps saying that, but it doesn't make it so.",
    "Let me respond to that.",
)
OPENERS = (
    "Thank you, Ruth.",
    "Thank you.",
    "Well, look.",
    "Thanks, Ruth, and thank you to everyone watching tonight.",
    "It's a fair question.",
    "Let me be clear about this.",
)
TOPIC_WORDS = {
    "economy": "the economy",
    "housing": "housing",
    "health": "health care",
    "education": "our schools",
    "energy": "energy",
    "transport": "transit",
    "safety": "public safety",
    "budget": "the budget",
}
QUESTIONS = {
    "economy": "Our first topic is the economy. {who}, what would you do for workers who lost their jobs?",
    "housing": "Let's turn to housing. {who}, how would you make rent affordable?",
    "health": "Next, health care. {who}, why are emergency rooms so crowded?",
    "education": "Let's talk about schools. {who}, how would you keep teachers in the province?",
    "energy": "Our next topic is energy. {who}, how would you keep power bills down?",
    "transport": "Let's move to transit. {who}, was the Harbor Line worth the money?",
    "safety": "Next, public safety. {who}, do people in rural Norvale feel safe?",
    "budget": "Finally, the budget. {who}, how would you pay for your promises?",
}


def _answer(rng: random.Random, speaker: str, topic: str, facts: dict[str, list[str]]) -> list[Sentence]:
    sentences: list[Sentence] = []
    if rng.random() < 0.5:
        sentences.append(Sentence(speaker, SMALL_TALK, rng.choice(OPENERS)))
    for _ in range(rng.randint(4, 8)):
        roll = rng.random()
        if roll < 0.42:
            pool = facts[topic] if rng.random() < 0.8 else facts[rng.choice(sorted(facts))]
            sentences.append(Sentence(speaker, FACT, rng.choice(pool)))
        elif roll < 0.55:
            sentences.append(Sentence(speaker, FACT_FIRST_PERSON, rng.choice(_first_person(rng, speaker))))
        elif roll < 0.77:
            text = rng.choice(OPINIONS).format(topic=TOPIC_WORDS[topic])
            sentences.append(Sentence(speaker, OPINION, text))
        elif roll < 0.92:
            text = rng.choice(PREDICTIONS).format(topic=TOPIC_WORDS[topic], n=rng.randint(2, 40))
            sentences.append(Sentence(speaker, PREDICTION, text))
        else:
            sentences.append(Sentence(speaker, SMALL_TALK, rng.choice(REBUTTALS)))
    return sentences


def _script(rng: random.Random) -> list[list[Sentence]]:
    """The debate as turns of sentences, long enough to fill ninety minutes."""
    turns: list[list[Sentence]] = [
        [
            Sentence(MODERATOR, SMALL_TALK, "Good evening, and welcome to the Norvale governor's debate."),
            Sentence(MODERATOR, SMALL_TALK, "I'm Ruth Calloway, and I'll be your moderator tonight."),
            Sentence(
                MODERATOR,
                SMALL_TALK,
                "Joining me are Governor Helena Marsh and Councillor Daniel Okoro.",
            ),
            Sentence(MODERATOR, SMALL_TALK, "Each candidate has two minutes for an opening statement."),
            Sentence(MODERATOR, SMALL_TALK, "Governor Marsh, you won the coin toss. Please begin."),
        ]
    ]
    facts = _facts(rng)
    for speaker in CANDIDATES:
        turns.append(_answer(rng, speaker, "economy", facts))
        if speaker == MARSH:
            turns.append([Sentence(MODERATOR, SMALL_TALK, "Thank you, Governor. Councillor Okoro.")])
    topics = list(QUESTIONS)
    rounds = 0
    elapsed = _seconds(turns)
    while elapsed < DEBATE_SECONDS - CLOSING_SECONDS:
        before = len(turns)
        topic = topics[rounds % len(topics)]
        facts = _facts(rng)
        first, second = CANDIDATES if rounds % 2 == 0 else CANDIDATES[::-1]
        question = QUESTIONS[topic].format(who=TITLE[first])
        turns.append([Sentence(MODERATOR, QUESTION, question)])
        turns.append(_answer(rng, first, topic, facts))
        turns.append([Sentence(MODERATOR, SMALL_TALK, f"{TITLE[second]}, your response.")])
        turns.append(_answer(rng, second, topic, facts))
        for _ in range(rng.randint(1, 3)):
            speaker = rng.choice(CANDIDATES)
            turns.append(_answer(rng, speaker, topic, facts)[: rng.randint(2, 4)])
        if rng.random() < 0.3:
            turns.append([Sentence(MODERATOR, SMALL_TALK, "Thank you both. We need to move on.")])
        rounds += 1
        elapsed += _seconds(turns[before:])
    turns.append([Sentence(MODERATOR, SMALL_TALK, "That brings us to closing statements. Councillor Okoro.")])
    for speaker in (OKORO, MARSH):
        closing = _answer(rng, speaker, rng.choice(topics), _facts(rng))
        closing.append(Sentence(speaker, SMALL_TALK, "Thank you, and good night."))
        turns.append(closing)
    turns.append(
        [
            Sentence(MODERATOR, SMALL_TALK, "Thank you both, and thank you for watching."),
            Sentence(MODERATOR, SMALL_TALK, "Good night from Port Ellery."),
        ]
    )
    return turns


def _seconds(turns: list[list[Sentence]]) -> float:
    """How long the turns take on air, as ``build_debate`` times them (average pauses)."""
    return sum(_turn_seconds(turn) for turn in turns)


def _turn_seconds(turn: list[Sentence]) -> float:
    gap = sum(CUE_GAPS) / len(CUE_GAPS)
    return sum(_cue_seconds(text) + gap for text in _cue_texts(turn)) + sum(BREATH) / 2


def _cue_seconds(text: str) -> float:
    return max(1.2, len(text.split()) / WORDS_PER_SECOND)


def _cue_texts(turn: list[Sentence]) -> list[str]:
    """A turn cut into caption cues of at most two 42-character lines, label on the first."""
    speaker = turn[0].speaker
    words = f"{speaker}: {' '.join(sentence.text for sentence in turn)}".split()
    cues: list[str] = []
    current: list[str] = []
    for word in words:
        attempt = _wrap([*current, word])
        if current and len(attempt) > CUE_LINES:
            cues.append("\n".join(_wrap(current)))
            current = []
        current.append(word)
        if len(current) >= SENTENCE_CUE_WORDS and word.endswith((".", "?", "!")):
            cues.append("\n".join(_wrap(current)))
            current = []
    if current:
        cues.append("\n".join(_wrap(current)))
    return cues


def _wrap(words: list[str]) -> list[str]:
    # Captioners do not break "four-year-olds" at its hyphens.
    return textwrap.wrap(" ".join(words), LINE_CHARS, break_on_hyphens=False)


def build_debate(seed: int = SEED) -> Debate:
    """The debate's cues and, as ground truth, every sentence with its speaker and kind."""
    turns = _script(random.Random(seed))
    timing = random.Random(seed + 1)  # its own stream, so the timing never changes what is said
    cues: list[srt.Subtitle] = []
    clock = 5.0
    for turn in turns:
        for text in _cue_texts(turn):
            start, end = clock, clock + _cue_seconds(text)
            cues.append(
                srt.Subtitle(
                    index=len(cues) + 1,
                    start=timedelta(milliseconds=round(start * 1000)),
                    end=timedelta(milliseconds=round(end * 1000)),
                    content=text,
                )
            )
            clock = end + timing.choice(CUE_GAPS)
        clock += timing.uniform(*BREATH)
    return Debate(cues=cues, sentences=[sentence for turn in turns for sentence in turn])


def render(debate: Debate) -> str:
    return str(srt.compose(debate.cues, reindex=False))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead")
    args = parser.parse_args(argv)
    text = render(build_debate())
    if args.check:
        same = OUTPUT.exists() and OUTPUT.read_text(encoding="utf-8") == text
        print(f"{OUTPUT.name}: {'up to date' if same else 'differs from the generator'}")
        return 0 if same else 1
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT} ({len(text.encode()):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
