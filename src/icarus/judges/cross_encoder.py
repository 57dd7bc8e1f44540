"""The cross-encoder offline judge: a fine-tuned MiniLM reads claim and passage together, int8 ONNX on CPU.

Stance. The same candidate passages as the WordLlama judge (``trained.candidate_passages``: the excerpt, or
the sentences sharing most words with the claim) are each read with the claim by the shipped model
(``weights/<name>.onnx``, tokenizer ``<name>.tokenizer.json``), which gives three logits in ``CLASSES``
order; the candidate taking the clearest side is kept. The shipped calibration (temperature, then an
isotonic map, fitted on held-out pairs) turns the logits into class probabilities and the winning one into
the verdict's confidence.

Each pair runs through the model on its own. The model's activations are quantized per run, with one scale
for the whole input tensor, so a pair read beside others (or padded to their length) would get slightly
different logits depending on its company; alone, a pair's answer depends on the pair only. It is also no
slower than a batch of three on two cores, since nothing is padded.

Inference hops count the claim's content words whose stem the kept passage lacks (``trained.unstated_words``
with no embedding alignment), one hop per ``trained.UNSTATED_WORDS_PER_HOP`` of them, so the judge needs no
embedding table beside its own model. On the training split that rule sends 3.7 % of supporting or refuting
pairs over the policy's three-hop limit (neutral pairs: 7.8 %), within the 5 % the WordLlama judge's
constants were set to. Scope is ``trained.scope_mismatches`` on the whole evidence, as for the WordLlama
judge. Attribution (H3) is parsed by the lexical judge's rules.

No torch at run time: onnxruntime and the ``tokenizers`` package only. The answers are deterministic: a
request put alone runs on a fixed number of threads (``INTRA_OP_THREADS``). Many requests put at once
(``judges.parallel.judge_all``) run one pair per core on a twin session of one thread each, which on two
cores judges more pairs a second than splitting each pair over both (docs/evaluation.md, "Stance judges");
each pair's logits are bit-identical either way, since a pair's integer products and float steps do not
depend on how many threads share them (``tests/judges/test_parallel_judging.py``).

The model file stores its integer weights as unsigned bytes, which every x86 CPU multiplies exactly. On a
CPU with VNNI the session runs them as signed bytes instead (``judges.signed_products``): the same integers,
a faster kernel, taken only when the probe pairs' logits come out bit-identical. ``load_weights`` does so at
once; a judge on the shared weights starts on the bytes as stored and changes over after
``SIGNED_WORTH_PAIRS`` requests, since the change costs what that many pairs win back.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from icarus.judges.calibration import Calibration
from icarus.judges.features import TokenMatch
from icarus.judges.figures import FigureCheck, figure_side
from icarus.judges.head import CLASSES
from icarus.judges.offline import parsed_attribution_verdicts
from icarus.judges.packaged import WeightsError
from icarus.judges.protocol import AttributionVerdict, Judge, JudgeRequest, StanceVerdict
from icarus.judges.signed_products import SignedModelError, cpu_has_vnni, signed_model
from icarus.judges.trained import calibrated_verdict, candidate_passages, clearest_side
from icarus.ledger.judgments import JudgeProvenance
from icarus.llm.quarantine import quarantine

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "FIGURES_CONFIDENCE",
    "FIGURES_VERSION",
    "INTRA_OP_THREADS",
    "MODEL_INPUTS",
    "MODEL_OUTPUT",
    "PROBE_PAIRS",
    "PROBE_TOLERANCE",
    "PROVIDER",
    "SIGNED_WORTH_PAIRS",
    "TWIN_WORTH_PAIRS",
    "VERSION",
    "WEIGHTS_NAME",
    "CrossEncoderWeights",
    "OfflineMiniLMJudge",
    "PairScorer",
    "WeightsError",
    "load_weights",
    "probe_logits",
    "sided_by_figures",
    "usable_cores",
    "weight_files",
]

PROVIDER = "offline-minilm"
VERSION = "1"
FIGURES_VERSION = "2"  # the same model, with the figure rule (OfflineMiniLMJudge's docstring)
# The confidence of a verdict whose side the figures settled is at most the rule's measured precision: of
# the labelled pairs of all seven sets (every split) where it settles a side, 6 of 7 are labelled that side
# (docs/evaluation.md, "Figures read by rule"). The model's isotonic map was fitted on the model's own
# winners, and summed sided mass would otherwise read as near-certainty.
FIGURES_CONFIDENCE = 0.85
WEIGHTS_NAME = "offline-minilm-1"
# Fixed, so speed does not depend on the machine's core count. On the idle two-core machine two threads
# judged about 1.6x the pairs per second of one; the int8 logits were bit-identical either way.
INTRA_OP_THREADS = 2
# Building the one-thread twin for many pairs at once takes about as long as judging 8 pairs (0.085 s here);
# judged one per core, pairs take a sixth to a fifth less time each, so it pays for itself in 40 to 50 pairs.
TWIN_WORTH_PAIRS = 48
# Changing over to the signed weight bytes (judges.signed_products) builds a second session and compares the
# probes on both: about 0.08 s on an idle two-core VNNI machine (0.2 s under load), which the faster kernel
# wins back in 30 to 50 pairs (2.4 to 4 ms a pair). A judge on the shared weights starts on the bytes as
# stored and changes over once it has been asked this many pairs, or that many at once: a check of one
# sentence (a handful of pairs) does not pay for it, a worker or an evaluation soon runs the faster kernel.
SIGNED_WORTH_PAIRS = 48
MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
MODEL_OUTPUT = "logits"
STEMS_ONLY: list[TokenMatch] = []  # hops from stems alone: no embedding alignment (module docstring)
_ORT_ERRORS_ONLY = 3  # onnxruntime's log level: its warnings about graph details are not for users
# Pool threads that wait for the next pair by blocking, not by spinning: a spinning thread holds a core
# between runs, which on two cores is the one that tokenises the next pair and runs the rest of the check.
# With spinning, one check's judging took about twice the CPU time; the logits are the same either way.
_SPIN_OPTION = "session.intra_op.allow_spinning"
# Pairs whose logits the weights' record keeps (``probe_logits``), so that loading can tell whether this
# machine computes the model as the machine that recorded it did. Invented sentences with large figures
# and long words: they exercise every layer's integer products.
PROBE_PAIRS: tuple[tuple[str, str], ...] = (
    (
        "Container traffic at Halden harbor fell 12% in October, the port says",
        "October traffic statistics: container throughput down 12%, the lowest since records began in 1990.",
    ),
    (
        "The vaccine reduced hospital admissions by half.",
        "Hospital admissions among vaccinated patients were 50% lower than among unvaccinated ones.",
    ),
    (
        "Global average temperature has increased by about 1.1 degrees Celsius since pre-industrial times.",
        "Satellite records since 1979 show a steady decrease in the extent of Arctic sea ice.",
    ),
)
# How far a probe's logit may move before the machine is said to compute the model differently. Float
# steps may round differently between instruction sets (far less than this); the int8 products that
# saturated on an AVX2 machine before the weights were stored unsigned moved these probes by 0.27 to 0.47.
PROBE_TOLERANCE = 0.05

FloatArray = npt.NDArray[np.float64]
_log = logging.getLogger(__name__)


def _session(model: bytes, threads: int) -> Any:
    # imported here: onnxruntime takes a fifth of a second to load, and most commands judge nothing
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = _ORT_ERRORS_ONLY
    options.add_session_config_entry(_SPIN_OPTION, "0")
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def _model_bytes(model: Path, expected_sha256: str | None) -> tuple[bytes, str]:
    """The model file's bytes and SHA-256, refused unless the digest is ``expected_sha256`` (when given).
    Sessions are built from these very bytes, so what was checked is what runs."""
    data = model.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if expected_sha256 is not None and digest != expected_sha256:
        raise WeightsError(
            f"{model.name} has SHA-256 {digest}, its metadata records {expected_sha256}: "
            "the model file is damaged or was replaced"
        )
    return data, digest


@dataclass(frozen=True)
class PairScorer:
    """A cross-encoder's ONNX session and tokenizer: (claim, passage) pairs in, ``CLASSES`` logits out.
    Safe to call from several threads at once (onnxruntime sessions and ``tokenizers`` encoders are)."""

    session: Any  # onnxruntime.InferenceSession (untyped)
    tokenizer: Tokenizer
    model: Path  # the file the session was built from, so that a twin with other threads can be made
    model_sha256: str  # and its digest then, which the twin's bytes must match
    signed_products: bool = False  # the session runs the weights as signed bytes (``from_files``)

    @classmethod
    def from_files(
        cls,
        model: Path,
        tokenizer: Path,
        max_length: int,
        expected_sha256: str | None = None,
        *,
        signed: bool | None = None,
    ) -> PairScorer:
        """Raises ``WeightsError`` when ``expected_sha256`` is given and the model's digest differs.

        ``signed``: run the weights as signed bytes where that gives bit-identical probe logits (None: where
        the CPU reports VNNI, the only CPUs on which that is exact and faster; ``judges.signed_products``)."""
        from tokenizers import Tokenizer

        data, digest = _model_bytes(model, expected_sha256)
        reader = Tokenizer.from_file(str(tokenizer))
        reader.enable_truncation(max_length=max_length, strategy="longest_first")
        # one pair per run, so nothing needs padding; a fixed length stored in the file would cost time and,
        # with int8 activations, change the logits
        reader.no_padding()
        scorer = cls(_session(data, INTRA_OP_THREADS), reader, model, digest)
        if signed is None:
            signed = cpu_has_vnni()
        return scorer._signed_if_identical(data) if signed else scorer

    def _signed_if_identical(self, data: bytes) -> PairScorer:
        """This scorer on the model's signed weight bytes (``judges.signed_products``) when that session's
        probe logits are bit-identical to this one's, else this scorer unchanged."""
        try:
            signed_bytes, _ = signed_model(data)
        except SignedModelError as exc:
            _log.info("keeping the unsigned weight bytes: %s", exc)
            return self
        signed = replace(self, session=_session(signed_bytes, INTRA_OP_THREADS), signed_products=True)
        claims, passages = (list(texts) for texts in zip(*PROBE_PAIRS, strict=True))
        if not np.array_equal(signed.logits(claims, passages), self.logits(claims, passages)):
            _log.info("keeping the unsigned weight bytes: the signed products differ on this CPU")
            return self
        return signed

    def with_threads(self, threads: int) -> PairScorer:
        """The same model and tokenizer, weight bytes as this scorer runs them, on a session of ``threads``
        threads. Raises ``WeightsError`` if the model file no longer holds the bytes this scorer was built
        from."""
        data, _ = _model_bytes(self.model, self.model_sha256)
        if self.signed_products:
            data, _ = signed_model(data)
        return replace(self, session=_session(data, threads))

    def logits(self, claims: list[str], passages: list[str]) -> FloatArray:
        """One row of three logits (``CLASSES`` order) per pair; each pair is run alone (module docstring)."""
        if len(claims) != len(passages):
            raise ValueError("claims and passages must pair up")
        out = np.zeros((len(claims), len(CLASSES)), dtype=np.float64)
        for row, (claim, passage) in enumerate(zip(claims, passages, strict=True)):
            encoding = self.tokenizer.encode(claim, passage)
            feed = {
                name: np.asarray([values], dtype=np.int64)
                for name, values in zip(
                    MODEL_INPUTS, (encoding.ids, encoding.attention_mask, encoding.type_ids), strict=True
                )
            }
            out[row] = self.session.run([MODEL_OUTPUT], feed)[0][0]
        return out


def probe_logits(scorer: PairScorer) -> list[list[float]]:
    """The logits of ``PROBE_PAIRS``, as the weights' record keeps them."""
    claims, passages = zip(*PROBE_PAIRS, strict=True)
    return [[round(float(v), 6) for v in row] for row in scorer.logits(list(claims), list(passages))]


def _check_probes(name: str, scorer: PairScorer, recorded: object) -> None:
    """Refuse a model this machine computes differently from the machine that recorded it (``recorded``:
    the record's ``probe_logits``; a record made before probes were kept has none, and is not checked)."""
    if recorded is None:
        return
    expected = np.asarray(recorded, dtype=np.float64)
    if expected.shape != (len(PROBE_PAIRS), len(CLASSES)):
        raise WeightsError(
            f"{name} records probe logits of shape {expected.shape}, expected {(len(PROBE_PAIRS), len(CLASSES))}"
        )
    moved = float(np.abs(np.asarray(probe_logits(scorer)) - expected).max())
    if moved > PROBE_TOLERANCE:
        raise WeightsError(
            f"{name}: this machine's onnxruntime computes the model differently from the machine that recorded "
            f"it (a probe logit moved by {moved:.3f}, more than {PROBE_TOLERANCE}), so its answers would not be "
            "the recorded judge's; choose another offline judge with ICARUS_OFFLINE_JUDGE"
        )


@dataclass(frozen=True)
class CrossEncoderWeights:
    scorer: PairScorer
    calibration: Calibration
    metadata: dict[str, Any]


def weight_files(name: str = WEIGHTS_NAME, folder: Path | None = None) -> tuple[Path, Path, Path]:
    """The model, tokenizer and metadata files of ``name`` (in the package by default)."""
    base = folder if folder is not None else Path(str(resources.files("icarus.judges") / "weights"))
    return base / f"{name}.onnx", base / f"{name}.tokenizer.json", base / f"{name}.json"


def load_weights(
    name: str = WEIGHTS_NAME, folder: Path | None = None, *, signed: bool | None = None
) -> CrossEncoderWeights:
    """The model, tokenizer, calibration and metadata stored as ``<name>.onnx``, ``<name>.tokenizer.json``
    and ``<name>.json``. Refuses a model whose SHA-256 differs from the one its metadata records, classes in
    another order, a model without the expected inputs and output, or one whose probe logits on this machine
    are not those recorded (``PROBE_TOLERANCE``). Reads no dataset. ``signed``: as ``PairScorer.from_files``
    (the benchmark sets it to compare both weight byte forms)."""
    model, tokenizer, meta = weight_files(name, folder)
    missing = [path.name for path in (model, tokenizer, meta) if not path.is_file()]
    if missing:
        raise WeightsError(
            f"judge weights {name!r} not found in {model.parent}: missing {', '.join(missing)}"
        )
    try:
        metadata = json.loads(meta.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise WeightsError(f"{meta.name} is not JSON: {exc}") from exc
    if tuple(metadata.get("classes", ())) != CLASSES:
        raise WeightsError(f"{name} orders its classes {metadata.get('classes')}, expected {list(CLASSES)}")
    max_length = metadata.get("max_length")
    if not isinstance(max_length, int) or isinstance(max_length, bool) or max_length < 1:
        raise WeightsError(f"{name} records no usable max_length ({max_length!r})")
    recorded = metadata.get("onnx_sha256")
    try:
        scorer = PairScorer.from_files(model, tokenizer, max_length, str(recorded), signed=signed)
    except WeightsError:
        raise
    except Exception as exc:  # onnxruntime and tokenizers raise bare Exception subclasses on unreadable files
        raise WeightsError(f"{name} cannot be read: {exc}") from exc
    inputs = {i.name for i in scorer.session.get_inputs()}
    outputs = {o.name for o in scorer.session.get_outputs()}
    if inputs != set(MODEL_INPUTS) or MODEL_OUTPUT not in outputs:
        raise WeightsError(
            f"{model.name} takes {sorted(inputs)} and gives {sorted(outputs)}; "
            f"expected {list(MODEL_INPUTS)} and {MODEL_OUTPUT!r}"
        )
    _check_probes(name, scorer, metadata.get("probe_logits"))
    try:
        calibration = Calibration.from_json(metadata["calibration"])
    except (KeyError, TypeError, ValueError, AssertionError) as exc:
        raise WeightsError(f"{name} records no usable calibration: {exc}") from exc
    return CrossEncoderWeights(scorer, calibration, metadata)


def sided_by_figures(probabilities: FloatArray, side: str) -> FloatArray:
    """``probabilities`` (``CLASSES`` order) with the support and refute mass moved onto ``side``."""
    sided = probabilities.copy()
    keep, drop = CLASSES.index(side), CLASSES.index("refute" if side == "support" else "support")
    sided[keep] += sided[drop]
    sided[drop] = 0.0
    return sided


@cache
def _shared() -> CrossEncoderWeights:
    """The shipped weights on the bytes as stored: what a judge starts on (``SIGNED_WORTH_PAIRS``)."""
    return load_weights(signed=False)


@cache
def _shared_signed() -> CrossEncoderWeights:
    """The shipped weights as ``load_weights()`` runs them: on signed bytes where the CPU reports VNNI and the
    probes' logits come out bit-identical (``PairScorer.from_files``), else as stored. Raises
    ``WeightsError`` if the model file no longer holds the bytes ``_shared`` was built from."""
    weights = _shared()
    if not cpu_has_vnni():
        return weights
    data, _ = _model_bytes(weights.scorer.model, weights.scorer.model_sha256)
    return replace(weights, scorer=weights.scorer._signed_if_identical(data))


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says, else all)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class OfflineMiniLMJudge:
    """A ``Judge`` on a fine-tuned cross-encoder: onnxruntime on CPU, no network, deterministic.

    With ``read_figures`` (version ``FIGURES_VERSION``), a candidate passage whose figures settle a side
    (``figures.figure_side``: the claim's "fell 12%" restated as "down 12%", or contradicted by "rose 12%")
    takes that side: the model's support and refute probabilities are summed onto it. The model still says
    how related the passage is (its neutral probability is kept); the rule says which way it points, which
    is what the model reads poorly (docs/evaluation.md, "Figures read by rule"). Such a verdict's
    confidence is at most ``FIGURES_CONFIDENCE``.
    """

    def __init__(self, weights: CrossEncoderWeights | None = None, *, read_figures: bool = False) -> None:
        self.weights = weights if weights is not None else _shared()
        self.read_figures = read_figures
        self._worker: OfflineMiniLMJudge | None = None
        self._worker_lock = threading.Lock()
        # weights handed in run as they are (a benchmark's unsigned baseline, a twin); the shared ones change
        # over to signed bytes after this many requests (``SIGNED_WORTH_PAIRS``), None once done
        self._requests_until_signed: int | None = SIGNED_WORTH_PAIRS if weights is None else None
        self._signed_lock = threading.Lock()
        self.calibration_id = self.weights.calibration.calibration_id
        self.provenance = JudgeProvenance(
            provider=PROVIDER,
            version=FIGURES_VERSION if read_figures else VERSION,
            calibration_id=self.calibration_id,
        )

    def __repr__(self) -> str:
        return f"OfflineMiniLMJudge({PROVIDER}@{self.provenance.version})"

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """A twin on a one-thread session, shared by one thread per usable core (``judges.parallel``).
        Built on first use, and only for at least ``TWIN_WORTH_PAIRS`` requests on at least two cores: a
        second session costs memory and time that a few requests, or one core, do not win back."""
        cores = usable_cores()
        with self._worker_lock:
            if self._worker is None:
                if requests < TWIN_WORTH_PAIRS or cores < 2:
                    return self, 1
                if requests >= SIGNED_WORTH_PAIRS:
                    self._count_requests(requests)  # so that the twin is made from the faster bytes
                try:
                    scorer = self.weights.scorer.with_threads(1)
                except WeightsError as exc:
                    # the model file changed since it was checked: keep judging with the checked session
                    _log.warning("judging one pair at a time: %s", exc)
                    return self, 1
                weights = replace(self.weights, scorer=scorer)
                self._worker = OfflineMiniLMJudge(weights, read_figures=self.read_figures)
        return self._worker, cores

    def _count_requests(self, requests: int) -> None:
        """Count ``requests`` towards ``SIGNED_WORTH_PAIRS``; on reaching it, run the shared weights as
        ``_shared_signed`` does. Every answer stays the same: the signed bytes are taken only where their
        logits are bit-identical."""
        if self._requests_until_signed is None:
            return
        with self._signed_lock:
            if self._requests_until_signed is None:
                return
            self._requests_until_signed -= requests
            if self._requests_until_signed > 0:
                return
            self._requests_until_signed = None
            try:
                self.weights = _shared_signed()
            except (
                Exception
            ) as exc:  # the signed bytes only run faster: failing them keeps the checked session
                _log.warning("keeping the unsigned weight bytes: %s", exc)

    def probabilities(self, claims: list[str], passages: list[str]) -> FloatArray:
        """Calibrated class probabilities (``CLASSES`` order), one row per pair; with ``read_figures``,
        sided by the pair's figures where they settle a side."""
        return self._sided(claims, passages)[0]

    def _sided(
        self, claims: list[str], passages: list[str]
    ) -> tuple[FloatArray, list[tuple[str, FigureCheck]]]:
        """The probabilities of ``probabilities`` and, with ``read_figures``, each pair's figure finding."""
        probabilities = self.weights.calibration.probabilities(self.weights.scorer.logits(claims, passages))
        if not self.read_figures:
            return probabilities, []
        findings = [figure_side(claim, passage) for claim, passage in zip(claims, passages, strict=True)]
        for row, (side, _) in enumerate(findings):
            if side:
                probabilities[row] = sided_by_figures(probabilities[row], side)
        return probabilities, findings

    def stance(self, request: JudgeRequest) -> StanceVerdict:
        self._count_requests(1)
        texts = claim, excerpt, text = (
            quarantine(request.claim_text),
            quarantine(request.excerpt),
            quarantine(request.evidence_text),
        )
        chosen = candidate_passages(claim.text, excerpt.text, text.text)
        probabilities, findings = self._sided([claim.text] * len(chosen), chosen)
        best = clearest_side(probabilities)
        passage = chosen[best]
        notes: dict[str, object] = {}
        cap = 1.0
        if findings:
            side, check = findings[best]
            notes["figures"] = {**check.to_json(), "side": side}
            if side:
                cap = FIGURES_CONFIDENCE
        return calibrated_verdict(
            request,
            texts,
            passage,
            probabilities[best],
            STEMS_ONLY,
            self.weights.calibration,
            self.provenance,
            notes,
            confidence_cap=cap,
        )

    def attribution(self, request: JudgeRequest) -> list[AttributionVerdict]:
        return parsed_attribution_verdicts(request, PROVIDER, VERSION, self.calibration_id)
