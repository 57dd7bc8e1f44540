"""The cross-encoder's sessions wait for work without spinning, and compute the same logits as a spinning
session would."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import onnxruntime as ort

from icarus.judges.cross_encoder import INTRA_OP_THREADS, PROBE_PAIRS, PairScorer, load_weights

CLAIMS = [claim for claim, _ in PROBE_PAIRS] + ["Container traffic at Halden harbor fell 12% in October."] * 3
PASSAGES = [passage for _, passage in PROBE_PAIRS] + [
    "The port of Halden said container traffic fell 12 percent in October.",
    "Container volumes at Halden rose 12% in October, the harbour authority said.",
    "The weather in October was mild along the coast.",
]


def _spinning(scorer: PairScorer) -> PairScorer:
    options = ort.SessionOptions()
    options.intra_op_num_threads = INTRA_OP_THREADS
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(scorer.model.read_bytes(), options, providers=["CPUExecutionProvider"])
    return replace(scorer, session=session)


def test_sessions_do_not_spin() -> None:
    scorer = load_weights(signed=False).scorer
    for session in (scorer.session, scorer.with_threads(1).session):
        assert (
            session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"
        )


def test_logits_are_those_of_a_spinning_session() -> None:
    scorer = load_weights(signed=False).scorer
    assert np.array_equal(scorer.logits(CLAIMS, PASSAGES), _spinning(scorer).logits(CLAIMS, PASSAGES))
