"""Run one evaluation set: build and score a ledger per claim, judge the stance pairs, collect the numbers.

Claims with gold passages are scored on those passages; a set with a corpus (SciFact) is researched through
the local-corpus provider first, as ``icarus check`` researches on the embedded default. A set that brings
its own documents (AVeriTeC with open retrieval) has them indexed into a temporary corpus, and each claim is
checked by the check itself (``pipeline.check.check_claims``) with that corpus as its only search provider,
no network, no store, and a clock that never runs out (so a slow machine cannot skip searches). Everything
but the timing is a function of (data, judge, policy): the as-of time is fixed and no clock enters a ledger.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icarus.evaluation import metrics
from icarus.evaluation.blockers import blocker_summary
from icarus.evaluation.cases import ClaimCase, CorpusRecord, EvalSet, StancePair
from icarus.evaluation.ledgers import (
    AS_OF,
    case_claim,
    case_ledger,
    excerpt_span,
    passage_item,
    snapshot_ref,
)
from icarus.fetching import SnapshotStore
from icarus.judges import Judge, JudgeRequest, judge_all
from icarus.judges.metrics import side_calls
from icarus.judges.parallel import expect_requests
from icarus.ledger import EvidenceItem, Ledger
from icarus.pipeline.check import DOCUMENTS_PER_QUERY, CheckOutput, CheckServices, check_claims
from icarus.pipeline.evidence import RetrievedDocument, build_evidence_item, evidence_id_for
from icarus.reputation import Registry
from icarus.reputation.review import enqueue_from_result
from icarus.research import (
    LocalCorpus,
    LocalCorpusProvider,
    PlannedQuery,
    ProviderResult,
    SearchHit,
    SearchProvider,
    plan_queries,
)
from icarus.scoring.icarus.config import PolicyConfig
from icarus.scoring.icarus.engine import score_ledger

__all__ = [
    "MAX_QUERIES",
    "MAX_RESEARCH_DOCUMENTS",
    "ClaimResult",
    "EvalReport",
    "PooledChecker",
    "StanceResult",
    "blocker_codes",
    "run_evaluation",
]

MAX_QUERIES = 24  # the check's default query budget for a one-claim subject (ICARUS_CHECK_MAX_QUERIES)
MAX_RESEARCH_DOCUMENTS = 12  # documents kept per claim, as CheckServices.max_documents_per_claim

Advance = Callable[[], None]


@dataclass(frozen=True)
class ClaimResult:
    case_id: str
    gold: str
    predicted: str
    band: str
    confidence: float
    codes: tuple[str, ...]  # rule and gate codes in the claim's published reasons
    evidence: int
    gold_document_found: bool | None = None  # open retrieval: a gold evidence document was retrieved
    blockers: tuple[str, ...] = ()  # codes of the claim's published blockers (what kept it ❔ or below high)
    seconds: float = 0.0  # wall-clock time to research (where the set researches), judge and score it
    own_evidence: int | None = None  # pooled open retrieval: evidence items from the claim's own documents


@dataclass(frozen=True)
class StanceResult:
    pair_id: str
    gold: str
    predicted: str
    failed: bool
    confidence: float = 0.0  # the judge's stated confidence in ``predicted``


@dataclass
class EvalReport:
    """Everything one run measured, with what it ran on."""

    dataset: str
    source: Path
    selection: str
    available: int
    policy: str
    judge: str
    claims: list[ClaimResult] = field(default_factory=list)
    stances: list[StanceResult] = field(default_factory=list)
    judge_failures: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        """The JSON object ``icarus eval --json`` prints."""
        gold = [c.gold for c in self.claims]
        predicted = [c.predicted for c in self.claims]
        codes = [c.codes for c in self.claims]
        fired = metrics.firing_counts(codes)
        stance_gold = [s.gold for s in self.stances]
        stance_predicted = [s.predicted for s in self.stances]
        retrieval = [c.gold_document_found for c in self.claims if c.gold_document_found is not None]
        own = [(c.own_evidence, c.evidence) for c in self.claims if c.own_evidence is not None]
        own_items, all_items = sum(o for o, _ in own), sum(e for _, e in own)
        counted = len(self.claims) or len(self.stances)
        decided, right = metrics.decided_counts(gold, predicted)
        return {
            "dataset": self.dataset,
            "source": str(self.source),
            "selection": self.selection,
            "available": self.available,
            "policy": self.policy,
            "judge": self.judge,
            "n": len(self.claims) if self.claims else len(self.stances),
            "claims": len(self.claims),
            "accuracy": metrics.accuracy(gold, predicted),
            "macro_f1": metrics.macro_f1(gold, predicted),
            "confusion": metrics.confusion(gold, predicted) if self.claims else None,
            "coverage": metrics.coverage(predicted),
            "decided_precision": metrics.decided_precision(gold, predicted),
            "decided": decided,
            "decided_right": right,
            "coverage_interval": metrics.wilson_interval(decided, len(predicted)),
            "decided_precision_interval": metrics.wilson_interval(right, decided),
            "unverifiable_rate": metrics.unverifiable_rate(predicted),
            "per_band": metrics.per_band(gold, predicted, [c.band for c in self.claims])
            if self.claims
            else None,
            "reliability": [
                vars(b) for b in metrics.reliability(gold, predicted, [c.confidence for c in self.claims])
            ]
            if self.claims
            else None,
            "gold_labels": dict(sorted(_count(gold).items())),
            "predicted_labels": dict(sorted(_count(predicted).items())),
            "stance_n": len(self.stances),
            "stance_accuracy": metrics.accuracy(stance_gold, stance_predicted),
            "stance_macro_f1": metrics.macro_f1(stance_gold, stance_predicted) if self.stances else None,
            "stance_confusion": metrics.confusion(stance_gold, stance_predicted, STANCE_ORDER)
            if self.stances
            else None,
            "retrieval_recall": sum(retrieval) / len(retrieval) if retrieval else None,
            "own_evidence_share": own_items / all_items if all_items else None,
            "side_calls": side_calls(stance_gold, stance_predicted, [s.confidence for s in self.stances])
            if self.stances
            else None,
            "rules_fired": {code: n for code, n in fired.items() if not _is_gate(code)},
            "gates_fired": {code: n for code, n in fired.items() if _is_gate(code)},
            "blockers": blocker_summary(self.claims) if self.claims else None,
            "judge_failures": self.judge_failures,
            "seconds": round(self.seconds, 3),
            "seconds_per_claim": round(self.seconds / counted, 4) if counted else None,
            "claim_seconds_p50": round(statistics.median(c.seconds for c in self.claims), 4)
            if self.claims
            else None,
        }


STANCE_ORDER = ("support", "refute", "neutral")


def _count(values: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts


def _is_gate(code: str) -> bool:
    return len(code) > 1 and code[0] == "G" and code[1:].isdigit()


def _codes(claim_result: dict[str, Any]) -> tuple[str, ...]:
    """Rule and gate codes of a published claim, without versions, each once, in reason order."""
    seen: list[str] = []
    for reason in claim_result.get("reasons", []):
        code = str(reason.get("code", "")).split("@", 1)[0]
        if code and code != "penalty" and code not in seen:
            seen.append(code)
    return tuple(seen)


def blocker_codes(claim_result: dict[str, Any]) -> tuple[str, ...]:
    """The codes of a published claim's blockers, each once, in the order the result lists them."""
    return tuple(dict.fromkeys(str(b["code"]) for b in claim_result.get("blockers", [])))


def _confidence(result: dict[str, Any]) -> float:
    claims = result["trace"]["claims"]
    return float(claims[0]["confidence"]["score"]) if claims else 0.0


def _failures(ledger: Ledger) -> int:
    return sum(j.stance.failure is not None for item in ledger.evidence for j in item.judgments)


def run_evaluation(
    evalset: EvalSet,
    judge: Judge,
    judge_name: str,
    policy: PolicyConfig,
    registry: Registry,
    *,
    advance: Advance | None = None,
    workdir: Path | None = None,
    review_queue: Path | None = None,
) -> EvalReport:
    """Score every claim and judge every stance pair of ``evalset``; ``advance`` is called once per
    claim and once per pair. A corpus, when the set has one, is indexed under ``workdir`` (a temporary
    folder by default). With ``review_queue``, each scored claim's H4 review requests are queued there."""
    tick = advance or (lambda: None)
    report = EvalReport(
        dataset=evalset.name,
        source=evalset.source,
        selection=evalset.selection,
        available=evalset.available,
        policy=policy.ref,
        judge=judge_name,
    )
    started = time.perf_counter()
    expect_requests(judge, len(evalset.cases) + len(evalset.stance_pairs))  # at least one request each
    if evalset.documents and evalset.cases:
        with tempfile.TemporaryDirectory(dir=workdir) as folder:
            _check_cases(report, evalset, judge, policy, registry, Path(folder), tick, review_queue)
    elif evalset.corpus is not None and evalset.cases:
        with tempfile.TemporaryDirectory(dir=workdir) as folder:
            corpus = LocalCorpus(Path(folder) / "corpus.sqlite")
            try:
                corpus.add([_addressed_corpus(evalset, Path(folder))])
                researcher = _Researcher(corpus, registry)
                for case in evalset.cases:
                    started_case = time.perf_counter()
                    items, found = researcher.items(case)
                    _score_case(report, case, items, judge, policy, found, review_queue, started_case)
                    tick()
            finally:
                corpus.close()
    else:
        for case in evalset.cases:
            started_case = time.perf_counter()
            items = [
                passage_item(p, case.claim, registry, f"ev-{index}") for index, p in enumerate(case.passages)
            ]
            _score_case(report, case, items, judge, policy, None, review_queue, started_case)
            tick()
    stances = judge_all(judge, _judge_pair, evalset.stance_pairs, tick)
    report.stances.extend(stances)
    report.judge_failures += sum(result.failed for result in stances)
    report.seconds = time.perf_counter() - started
    return report


def _score_case(
    report: EvalReport,
    case: ClaimCase,
    items: list[EvidenceItem],
    judge: Judge,
    policy: PolicyConfig,
    gold_document_found: bool | None,
    review_queue: Path | None = None,
    started: float | None = None,
) -> None:
    ledger, judged = case_ledger(case, items, judge)
    result = score_ledger(ledger, policy)
    if review_queue is not None:
        enqueue_from_result(result, ledger, review_queue)
    seconds = time.perf_counter() - started if started is not None else 0.0
    _record(report, case, ledger, result, len(items), gold_document_found, seconds)
    for passage, item in zip(case.passages, judged if case.passages else [], strict=True):
        if passage.gold_stance is None or not item.judgments:
            continue
        answer = item.judgments[0].stance
        report.stances.append(
            StanceResult(
                pair_id=f"{case.case_id}:{passage.key}",
                gold=passage.gold_stance.value,
                predicted=answer.stance.value,
                failed=answer.failure is not None,
                confidence=float(answer.confidence),
            )
        )


def _record(
    report: EvalReport,
    case: ClaimCase,
    ledger: Ledger,
    result: dict[str, Any],
    evidence: int,
    gold_document_found: bool | None,
    seconds: float,
    own_evidence: int | None = None,
) -> None:
    """Add the case's published label (its claim's) and what led to it to ``report``."""
    published = result["claims"][0]
    report.judge_failures += _failures(ledger)
    report.claims.append(
        ClaimResult(
            case_id=case.case_id,
            gold=case.gold.value,
            predicted=str(published["label"]),
            band=str(published["band"]),
            confidence=_confidence(result),
            codes=_codes(published),
            evidence=evidence,
            gold_document_found=gold_document_found,
            blockers=blocker_codes(published),
            seconds=seconds,
            own_evidence=own_evidence,
        )
    )


def _never_late() -> float:
    """The check's clock in an evaluation: always 0, so its time budget never cuts research short."""
    return 0.0


def _check_cases(
    report: EvalReport,
    evalset: EvalSet,
    judge: Judge,
    policy: PolicyConfig,
    registry: Registry,
    folder: Path,
    tick: Advance,
    review_queue: Path | None,
) -> None:
    """Check every case of ``evalset`` as ``icarus check`` would, over a corpus of its documents only."""
    with PooledChecker(evalset.documents, folder) as checker:
        services = checker.services(judge, policy, registry)
        for case in evalset.cases:
            started = time.perf_counter()
            outcome = checker.check(case, services)
            seconds = time.perf_counter() - started
            if review_queue is not None:
                enqueue_from_result(outcome.result, outcome.ledger, review_queue)
            evidence, own, gold_found = checker.found(case, outcome.ledger)
            _record(report, case, outcome.ledger, outcome.result, evidence, gold_found, seconds, own)
            tick()


class PooledChecker:
    """The check over a corpus of a set's own documents (AVeriTeC with open retrieval): the documents are
    indexed once under ``folder``; ``check`` runs ``pipeline.check.check_claims`` on one case's claim with
    that corpus as the only search provider. With ``remember_searches``, each distinct search is run once
    and its hits reused (the threshold selection rescores the same claims many times; the corpus never
    changes, so a remembered search is the search)."""

    def __init__(
        self, documents: list[CorpusRecord], folder: Path, *, remember_searches: bool = False
    ) -> None:
        self.folder = folder
        self.corpus = LocalCorpus(folder / "corpus.sqlite")
        try:
            self.corpus.add([_write_documents(documents, folder / "documents.jsonl")])
        except BaseException:
            self.corpus.close()
            raise
        plain = LocalCorpusProvider(self.corpus)
        self.provider: SearchProvider = _RememberedSearches(plain) if remember_searches else plain
        self.snapshots = SnapshotStore(folder / "snapshots")
        self._doc_of_url = {document.url: document.doc_id for document in documents}

    def __enter__(self) -> PooledChecker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.corpus.close()

    def services(self, judge: Judge, policy: PolicyConfig, registry: Registry) -> CheckServices:
        """The check's services: this corpus, no network, no store, a clock that never runs out."""
        return CheckServices(
            judge=judge,
            providers=[self.provider],
            registry=registry,
            snapshots=self.snapshots,
            policy=policy,
            max_claims=1,
            max_queries=MAX_QUERIES,
            max_documents_per_claim=MAX_RESEARCH_DOCUMENTS,
            clock=_never_late,
        )

    def check(self, case: ClaimCase, services: CheckServices) -> CheckOutput:
        subject, claim = case_claim(case)
        return check_claims(subject, [claim], services, AS_OF)

    def found(self, case: ClaimCase, ledger: Ledger) -> tuple[int, int, bool | None]:
        """Evidence items in ``ledger``, how many are from the case's own documents, and whether any is
        (None when the case has none)."""
        doc_ids = [self._doc_of_url.get(item.url, "") for item in ledger.evidence]
        own = sum(doc_id in case.relevant_docs for doc_id in doc_ids)
        return len(doc_ids), own, (bool(own) if case.relevant_docs else None)


class _RememberedSearches:
    """A search provider that runs each distinct (query, limit) once on ``provider`` and reuses the result."""

    def __init__(self, provider: LocalCorpusProvider) -> None:
        self.provider = provider
        self.name = provider.name
        self._results: dict[tuple[PlannedQuery, int], ProviderResult] = {}

    def search(self, query: PlannedQuery, limit: int) -> ProviderResult:
        key = (query, limit)
        if key not in self._results:
            self._results[key] = self.provider.search(query, limit)
        return self._results[key]


def _write_documents(documents: list[CorpusRecord], path: Path) -> Path:
    """The documents as JSON Lines the corpus reads (``id``, ``url``, ``title``, ``text``, ``publisher``)."""
    with path.open("w", encoding="utf-8") as out:
        for document in documents:
            record = {
                "id": document.doc_id,
                "url": document.url,
                "title": document.title,
                "text": document.text,
                "publisher": document.publisher,
            }
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def _judge_pair(judge: Judge, pair: StancePair) -> StanceResult:
    span = excerpt_span(pair.evidence, pair.claim)
    verdict = judge.stance(
        JudgeRequest(
            claim_id=CLAIM_PAIR_ID,
            claim_text=pair.claim,
            evidence_id=evidence_id_for(f"eval-pair:{pair.pair_id}"),
            excerpt=span.slice(pair.evidence),
            evidence_text=pair.evidence,
        )
    )
    return StanceResult(
        pair.pair_id,
        pair.gold.value,
        verdict.stance.value,
        verdict.failure is not None,
        float(verdict.confidence),
    )


CLAIM_PAIR_ID = "c1"


def _addressed_corpus(evalset: EvalSet, folder: Path) -> Path:
    """The corpus file to index: the set's own, or, when the set names an address for its documents, a copy
    of it in ``folder`` in which each document without a ``url`` has that address (its id filled in)."""
    assert evalset.corpus is not None
    if not evalset.corpus_address:
        return evalset.corpus
    addressed = folder / evalset.corpus.name
    with evalset.corpus.open(encoding="utf-8") as lines, addressed.open("w", encoding="utf-8") as out:
        for line in lines:
            if not line.strip():
                continue
            row = json.loads(line)
            if isinstance(row, dict) and "url" not in row and "doc_id" in row:
                row["url"] = evalset.corpus_address.format(id=row["doc_id"])
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return addressed


class _Researcher:
    """Open retrieval for one claim: the check's query plan, run on the local-corpus provider."""

    def __init__(self, corpus: LocalCorpus, registry: Registry) -> None:
        self.corpus = corpus
        self.provider = LocalCorpusProvider(corpus)
        self.registry = registry
        self._source_ids: dict[str, str] = {}

    def items(self, case: ClaimCase) -> tuple[list[EvidenceItem], bool | None]:
        _, claim = case_claim(case)
        ranked: dict[str, SearchHit] = {}
        for query in plan_queries(claim, AS_OF, MAX_QUERIES):
            result = self.provider.search(query, DOCUMENTS_PER_QUERY)
            for hit in result.hits:
                ranked.setdefault(hit.url, hit)
        hits = list(ranked.values())[:MAX_RESEARCH_DOCUMENTS]
        items = [self._item(hit, case.claim) for hit in hits if (hit.text or hit.quotable_snippet).strip()]
        found = {self._source_id(hit) for hit in hits}
        return items, (bool(found & set(case.relevant_docs)) if case.relevant_docs else None)

    def _item(self, hit: SearchHit, claim_text: str) -> EvidenceItem:
        text = hit.text or hit.quotable_snippet
        document = RetrievedDocument(
            url=hit.url, title=hit.title, text=text, publisher=hit.publisher, published_at=hit.published_at
        )
        return build_evidence_item(document, claim_text, self.registry, snapshot_ref(text), AS_OF)

    def _source_id(self, hit: SearchHit) -> str:
        if hit.doc_id not in self._source_ids:
            document = self.corpus.get(hit.doc_id)
            self._source_ids[hit.doc_id] = document.source_id if document is not None else ""
        return self._source_ids[hit.doc_id]
