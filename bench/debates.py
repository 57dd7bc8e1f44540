"""Debates end to end: a 90-minute caption file to one answer per claim, and a live stream of segments.

1. File. The 90-minute debate in ``examples/debates/debate-90min.srt`` goes into a debate researched with
   ``["two_step"]``: ingest, detection (timed on its own), then two worker processes (two cores) research
   every claim until each has its claim_verdict. The local corpus is the sample corpus plus N synthetic
   documents (100,000 by default; ``--quick`` 10,000), the judge the default offline judge. The baseline,
   measured in the same run, is the same debate against the sample corpus alone. Target: every claim
   answered within 5 minutes of the file arriving.
2. Live. 200 caption segments of the same debate sent one by one at 10 per second to a live debate, with a
   subscriber polling the event feed as the live page does. Every claim the whole transcript holds must be
   detected (none lost) and every segment stored once; p50 from a claim's last segment being sent to the
   claim appearing in the feed must be under 1 s. The baseline is the detector alone on one segment.

3. Feed. 50 subscribers follow the feed of a debate (the first 200 segments, two_step on the sample corpus)
   while two worker threads research it, polling as the live page's stream does; each must receive every
   event (a pending and an answered event per panel, every answer), in order.

Beside the generated debate, a real one runs through the same file path: the first presidential debate of
2016 from the CheckThat! 2019 training transcripts, written as an SRT file with its speakers when the bench
runs (``icarus.evaluation.checkthat.to_srt``; never committed, the transcripts are for research use), against
the sample corpus. It is skipped when the datasets folder (``ICARUS_DATASETS``, else ``../shared/datasets``)
does not hold the transcripts.

``--debates-small`` runs all three at a size for the test suite (500 documents, the first 120 cues, 40 live
segments at 40 per second). The store is SQLite in a temporary folder.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from sqlalchemy import func, select

from bench.check import _synthetic_corpus
from icarus.debates import repository as repo
from icarus.debates.access import Caller
from icarus.debates.detection import detect_claims
from icarus.debates.model import DebateSettings, DetectedClaim, Panel, ResearchMode, Segment
from icarus.debates.research.base import ClaimToResearch, ResearchServices, run_method
from icarus.debates.service import DebatePipeline, DebateService
from icarus.debates.transcripts import parse_transcript
from icarus.evaluation.checkthat import load_transcripts, to_srt
from icarus.fetching import SnapshotStore
from icarus.judges import create_judge
from icarus.reputation import load_registry
from icarus.research import LocalCorpus, LocalCorpusProvider
from icarus.scoring.icarus.config import load_policy
from icarus.settings import Settings
from icarus.store import Store
from icarus.store.debate_tables import ClaimVerdictRecord, DebateClaimRecord, DebatePanelRecord, PanelState

ROOT: Final = Path(__file__).parents[1]
DEBATE: Final = ROOT / "examples" / "debates" / "debate-90min.srt"
REAL_DEBATE: Final = "20160926_1pres.tsv"  # a training-part transcript: three speakers, 1,403 sentences
SAMPLE: Final = ROOT / "examples" / "sample-corpus"
OPERATOR: Final = Caller.operator()
WORKERS: Final = 2
TARGET_ALL_ANSWERED_S: Final = 300.0
TARGET_LIVE_P50_S: Final = 1.0
POLL_S: Final = 0.01  # how often the live subscriber looks at the feed
FEED_POLL_S: Final = 0.5  # as the live page's event stream polls
WORKER_IDLE_S: Final = 0.05


@dataclass(frozen=True)
class Size:
    documents: int
    cues: int | None  # None: the whole file
    live_segments: int
    live_rate: float  # segments per second
    subscribers: int


FULL: Final = Size(100_000, None, 200, 10.0, 50)
QUICK: Final = Size(10_000, None, 200, 10.0, 50)
SMALL: Final = Size(500, 120, 40, 40.0, 5)


def _caption(cues: int | None) -> bytes:
    text = DEBATE.read_text(encoding="utf-8").strip()
    if cues is not None:
        text = "\n\n".join(text.split("\n\n")[:cues])
    return (text + "\n").encode()


def _detect(
    segments: Sequence[Segment], speaker_names: Mapping[str, str], *, as_of: date
) -> list[DetectedClaim]:
    return detect_claims(segments, speaker_names, as_of=as_of)  # as_of: the debate's date, from the service


# --- 1. the file -----------------------------------------------------------------------------------------


def _services(corpus_path: Path, folder: Path, judge: str) -> ResearchServices:
    local = LocalCorpusProvider(LocalCorpus(corpus_path))
    return ResearchServices(
        providers=[local],
        local_provider=local,
        judge=create_judge(judge),
        registry=load_registry(SAMPLE / "reputation.json"),
        snapshots=SnapshotStore(folder / "snapshots"),
        policy=load_policy(),
    )


def _worker(url: str, corpus_path: str, folder: str, judge: str, ready: Any, stop: Any) -> None:
    """One worker process: lease and research due panels until told to stop."""
    services = _services(Path(corpus_path), Path(folder), judge)

    def research(mode: ResearchMode, claim: ClaimToResearch, debate_settings: DebateSettings) -> Panel:
        return run_method(mode, claim, services)

    store = Store(url).open()
    service = DebateService(store, DebatePipeline(detect=_detect, research=research))
    rng = random.Random()
    ready.set()
    while not stop.is_set():
        with store.reading() as session:
            due = repo.runnable_panel_ids(session, datetime.now(UTC), limit=1000)
        if not due:
            time.sleep(WORKER_IDLE_S)
            continue
        rng.shuffle(due)  # two workers walking the same list in the same order would collide at every step
        for panel_id in due:
            service.research_panel(panel_id)
    store.close()


def _unanswered(store: Store, debate_id: str) -> tuple[int, int]:
    with store.reading() as session:
        claims = session.scalar(
            select(func.count())
            .select_from(DebateClaimRecord)
            .where(DebateClaimRecord.debate_id == debate_id)
        )
        answered = session.scalar(
            select(func.count())
            .select_from(ClaimVerdictRecord)
            .join(DebateClaimRecord, DebateClaimRecord.id == ClaimVerdictRecord.claim_id)
            .where(DebateClaimRecord.debate_id == debate_id, ClaimVerdictRecord.verdict_json.is_not(None))
        )
    return int(claims or 0), int(answered or 0)


def _real_caption(size: Size) -> tuple[str, bytes] | None:
    """A real debate (a CheckThat! training transcript) as an SRT file, written here and never kept; None
    when the datasets folder does not hold it."""
    datasets = Path(os.environ.get("ICARUS_DATASETS", ROOT.parent / "shared" / "datasets"))
    try:
        transcripts = {t.name: t for t in load_transcripts(datasets)}
    except FileNotFoundError:
        return None
    transcript = transcripts.get(REAL_DEBATE)
    return None if transcript is None else (transcript.name, to_srt(transcript, limit=size.cues))


def _file_run(
    corpus_path: Path, folder: Path, size: Size, judge: str, caption: bytes | None = None
) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    url = f"sqlite:///{folder / 'icarus.db'}"
    store = Store(url).open()
    service = DebateService(store, DebatePipeline(detect=_detect, research=_never))
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    readies = [context.Event() for _ in range(WORKERS)]
    workers = [
        context.Process(target=_worker, args=(url, str(corpus_path), str(folder), judge, ready, stop))
        for ready in readies
    ]
    for process in workers:
        process.start()
    for ready in readies:  # warm workers, as in a running deployment: judge loaded, corpus open
        ready.wait(600)
    try:
        debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[ResearchMode.TWO_STEP]))
        caption = _caption(size.cues) if caption is None else caption
        start = time.perf_counter()
        ingested = service.ingest_transcript(OPERATOR, debate.id, caption, "srt")
        ingest_s = time.perf_counter() - start
        detect_start = time.perf_counter()
        service.detect(debate.id)
        detection_s = time.perf_counter() - detect_start
        while True:
            claims, answered = _unanswered(store, debate.id)
            if answered >= claims:
                break
            time.sleep(0.1)
        all_answered_s = time.perf_counter() - start
        with store.reading() as session:
            panels = session.scalar(
                select(func.count())
                .select_from(DebatePanelRecord)
                .where(
                    DebatePanelRecord.debate_id == debate.id, DebatePanelRecord.state == PanelState.DONE.value
                )
            )
            verdicts = [
                v.verdict.value
                for v in repo.claim_verdicts(
                    session, [c.id for c in repo.claim_rows(session, debate.id)]
                ).values()
            ]
    finally:
        stop.set()
        for process in workers:
            process.join(60)
        store.close()
    return {
        "segments": ingested.segments,
        "claims": claims,
        "panels_done": int(panels or 0),
        "ingest_s": round(ingest_s, 2),
        "detection_s": round(detection_s, 2),
        "all_answered_s": round(all_answered_s, 1),
        "verdicts": {v: verdicts.count(v) for v in sorted(set(verdicts))},
    }


def _never(mode: ResearchMode, claim: ClaimToResearch, debate_settings: DebateSettings) -> Panel:
    raise RuntimeError("the bench's main process only ingests and detects; the workers research")


# --- 2. the live stream ------------------------------------------------------------------------------------


def _live_run(size: Size, folder: Path) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    segments = parse_transcript(_caption(None), "srt")[: size.live_segments]
    now = datetime.now(UTC)
    offset = [timedelta(0)]
    store = Store(f"sqlite:///{folder / 'icarus.db'}").open()
    service = DebateService(
        store,
        DebatePipeline(detect=_detect, research=_never),
        clock=lambda: datetime.now(UTC) + offset[0],
    )
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[]))
    sent_at: dict[str, float] = {}
    seen_at: dict[int, float] = {}
    done = threading.Event()

    def subscribe() -> None:
        last = 0
        while True:
            finished = done.is_set()
            for event in service.events_after(OPERATOR, debate.id, last, 1000):
                last = event.id
                if event.kind == "claim":
                    seen_at.setdefault(int(event.data["claim_id"]), time.perf_counter())
            if finished:
                return
            time.sleep(POLL_S)

    subscriber = threading.Thread(target=subscribe)
    subscriber.start()
    interval = 1.0 / size.live_rate
    start = time.perf_counter()
    for n, segment in enumerate(segments):
        pause = start + n * interval - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        sent_at[segment.segment_id] = time.perf_counter()
        service.add_segments(OPERATOR, debate.id, [segment])
    offset[0] = timedelta(minutes=5)  # the stream ended: an unfinished last sentence is read after a while
    service.dispatch_due()
    time.sleep(5 * POLL_S)
    done.set()
    subscriber.join()
    claims = service.list_claims(OPERATOR, debate.id)
    expected = detect_claims(segments, {}, as_of=now.date())
    latencies = sorted(
        seen_at[c.claim_id] - sent_at[c.segment_ids[-1]]
        for c in claims
        if c.claim_id in seen_at and c.segment_ids
    )
    stored = service.get_debate(OPERATOR, debate.id).segment_count
    store.close()
    found = {c.text for c in claims}
    one_segment = []
    for segment in segments[:50]:
        begin = time.perf_counter()
        detect_claims([segment], {}, as_of=now.date())
        one_segment.append(time.perf_counter() - begin)
    p50 = statistics.median(latencies) if latencies else float("nan")
    return {
        "segments_sent": len(segments),
        "segments_stored": stored,
        "claims": len(claims),
        "claims_expected": len(expected),
        "claims_missing": len({c.text for c in expected} - found),
        "p50_s": round(p50, 3),
        "p95_s": round(latencies[int(0.95 * (len(latencies) - 1))], 3) if latencies else None,
        "detector_alone_s": round(statistics.median(one_segment), 4),
    }


# --- 3. the feed: many subscribers ---------------------------------------------------------------------------


def _feed_run(size: Size, folder: Path, judge: str) -> dict[str, Any]:
    """Subscribers follow a debate's feed, polling as the live page's stream does, while two worker threads
    research its claims; each subscriber must receive every panel and every answer, in order, none twice."""
    folder.mkdir(parents=True, exist_ok=True)
    corpus = LocalCorpus(folder / "sample.db")
    corpus.add(sorted(SAMPLE.glob("*.html")))
    services = _services(folder / "sample.db", folder, judge)

    def research(mode: ResearchMode, claim: ClaimToResearch, debate_settings: DebateSettings) -> Panel:
        return run_method(mode, claim, services)

    store = Store(f"sqlite:///{folder / 'icarus.db'}").open()
    service = DebateService(store, DebatePipeline(detect=_detect, research=research))
    debate = service.create_debate(OPERATOR, DebateSettings(research_modes=[ResearchMode.TWO_STEP]))
    segments = parse_transcript(_caption(None), "srt")[: size.live_segments]
    service.add_segments(OPERATOR, debate.id, segments)
    claims = len(service.list_claims(OPERATOR, debate.id))
    received: list[list[tuple[int, str]]] = [[] for _ in range(size.subscribers)]
    done = threading.Event()

    def subscribe(inbox: list[tuple[int, str]]) -> None:
        last = 0
        while True:
            finished = done.is_set()
            for event in service.events_after(OPERATOR, debate.id, last, 200):
                last = event.id
                inbox.append((event.id, event.kind))
            if finished:
                return
            time.sleep(FEED_POLL_S)

    def work() -> None:
        while True:
            with store.reading() as session:
                due = repo.runnable_panel_ids(session, datetime.now(UTC), limit=1000)
            if not due:
                return
            random.shuffle(due)
            for panel_id in due:
                service.research_panel(panel_id)

    subscribers = [threading.Thread(target=subscribe, args=(inbox,)) for inbox in received]
    for thread in subscribers:
        thread.start()
    start = time.perf_counter()
    workers = [threading.Thread(target=work) for _ in range(WORKERS)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    research_s = time.perf_counter() - start
    time.sleep(2 * FEED_POLL_S)
    done.set()
    for thread in subscribers:
        thread.join()
    everything = [(e.id, e.kind) for e in service.events_after(OPERATOR, debate.id, 0, 1_000_000)]
    store.close()
    panels = sum(1 for _, kind in everything if kind == "panel")
    complete = sum(1 for inbox in received if inbox == everything)
    return {
        "claims": claims,
        "events": len(everything),
        "panel_events": panels,
        "subscribers": size.subscribers,
        "subscribers_with_every_event": complete,
        "research_s": round(research_s, 1),
    }


def main(argv: list[str]) -> dict[str, Any]:
    size = SMALL if "--debates-small" in argv else QUICK if "--quick" in argv else FULL
    judge = Settings().offline_judge
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        small = LocalCorpus(folder / "sample.db")
        small.add(sorted(SAMPLE.glob("*.html")))
        baseline = _file_run(folder / "sample.db", folder / "baseline", size, judge)
        runs.append({"run": "file, sample corpus (baseline)", "corpus_documents": len(small), **baseline})

        synthetic = _synthetic_corpus(folder, size.documents)
        large = LocalCorpus(folder / "large.db")
        index_start = time.perf_counter()
        large.add([*sorted(SAMPLE.glob("*.html")), synthetic])
        index_s = time.perf_counter() - index_start
        measured = _file_run(folder / "large.db", folder / "large", size, judge)
        ratio = (
            measured["all_answered_s"] / baseline["all_answered_s"] if baseline["all_answered_s"] else None
        )
        runs.append(
            {
                "run": f"file, sample + {size.documents:,} synthetic",
                "corpus_documents": len(large),
                "index_s": round(index_s, 1),
                **measured,
                "x_baseline": round(ratio, 2) if ratio else None,
            }
        )

        real = _real_caption(size)
        if real is not None:
            name, caption = real
            measured = _file_run(folder / "sample.db", folder / "real", size, judge, caption)
            runs.append({"run": f"file, real transcript {name}, sample corpus", **measured})

        live = _live_run(size, folder / "live")
        runs.append(
            {
                "run": f"live, {live['segments_sent']} segments at {size.live_rate:g}/s",
                **live,
                "x_baseline": round(live["p50_s"] / live["detector_alone_s"], 1)
                if live["detector_alone_s"]
                else None,
            }
        )
        feed = _feed_run(size, folder / "feed", judge)
        runs.append({"run": f"feed, {feed['subscribers']} subscribers", **feed})
    file_row, live_row, feed_row = runs[1], runs[-2], runs[-1]
    return {
        "runs": runs,
        "judge": judge,
        "workers": WORKERS,
        "file_target_met": file_row["all_answered_s"] < TARGET_ALL_ANSWERED_S
        and file_row["claims"] == file_row["panels_done"],
        "live_target_met": live_row["p50_s"] < TARGET_LIVE_P50_S
        and live_row["claims_missing"] == 0
        and live_row["segments_stored"] == live_row["segments_sent"],
        "feed_target_met": feed_row["subscribers_with_every_event"] == feed_row["subscribers"]
        and feed_row["panel_events"] >= 2 * feed_row["claims"],
    }


if __name__ == "__main__":
    import json

    print(json.dumps(main(sys.argv[1:]), indent=2, default=str))
