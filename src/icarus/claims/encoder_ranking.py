"""Check-worthiness from a fine-tuned sentence encoder: MiniLM read as a two-way classifier (int8 ONNX).

``python -m icarus_training.checkworthy_minilm`` fine-tunes all-MiniLM-L6-v2 on the CheckThat! 2019
training transcripts and writes ``weights/<name>.onnx``, ``.tokenizer.json`` and ``.json`` beside this
module. Running it needs onnxruntime and tokenizers only, never torch and never a download.

Each sentence is run alone: with int8 activations quantised per run, padding a batch would move the
numbers, so one sentence always gets the same log-odds whatever it is ranked beside. The record keeps the
log-odds of ``PROBE_SENTENCES`` on the machine that trained the model; a machine that computes them
differently (by more than ``PROBE_TOLERANCE``) is refused rather than ranking on other numbers.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np

__all__ = [
    "ENCODER_INPUTS",
    "PROBE_SENTENCES",
    "PROBE_TOLERANCE",
    "EncoderRanker",
    "RankerWeightsError",
    "load_encoder_ranker",
]

ENCODER_INPUTS: Final = ("input_ids", "attention_mask", "token_type_ids")
_OUTPUT: Final = "logits"
PROBE_SENTENCES: Final = (
    "Unemployment fell to 4.1 percent last year, the lowest in a decade.",
    "We need to move to a merit-based system of immigration.",
    "Thank you, and good evening.",
)
PROBE_TOLERANCE: Final = 0.05
_THREADS: Final = 1  # one short sentence per run: a second thread costs more than it saves
_ORT_ERRORS_ONLY: Final = 3


class RankerWeightsError(RuntimeError):
    """The ranker's shipped files are missing, damaged, or computed differently on this machine."""


@dataclass(frozen=True)
class EncoderRanker:
    """A fine-tuned encoder's session and tokenizer: a sentence in, the log-odds that it is chosen out."""

    version: str
    session: Any  # onnxruntime.InferenceSession (untyped)
    tokenizer: Any  # tokenizers.Tokenizer
    metadata: dict[str, Any]

    @classmethod
    def from_files(cls, model: Path, tokenizer: Path, meta: Path) -> EncoderRanker:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        missing = [path.name for path in (model, tokenizer, meta) if not path.is_file()]
        if missing:
            raise RankerWeightsError(
                f"check-worthiness ranker files missing in {model.parent}: {', '.join(missing)}"
            )
        metadata = json.loads(meta.read_text(encoding="utf-8"))
        data = model.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest != metadata.get("onnx_sha256"):
            raise RankerWeightsError(
                f"{model.name} has SHA-256 {digest}, its record says {metadata.get('onnx_sha256')}: "
                "the file is damaged or was replaced"
            )
        options = ort.SessionOptions()
        options.intra_op_num_threads = _THREADS
        options.inter_op_num_threads = 1
        options.log_severity_level = _ORT_ERRORS_ONLY
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        reader = Tokenizer.from_file(str(tokenizer))
        reader.enable_truncation(max_length=int(metadata["max_length"]), strategy="longest_first")
        reader.no_padding()
        ranker = cls(str(metadata["version"]), session, reader, metadata)
        ranker._check_probes()
        return ranker

    def log_odds(self, text: str) -> float:
        """log P(chosen) − log P(not chosen) for one sentence."""
        encoding = self.tokenizer.encode(text)
        feed = {
            name: np.asarray([values], dtype=np.int64)
            for name, values in zip(
                ENCODER_INPUTS, (encoding.ids, encoding.attention_mask, encoding.type_ids), strict=True
            )
        }
        logits = self.session.run([_OUTPUT], feed)[0][0]
        return float(logits[1]) - float(logits[0])

    def probe_log_odds(self) -> list[float]:
        return [round(self.log_odds(text), 6) for text in PROBE_SENTENCES]

    def _check_probes(self) -> None:
        recorded = self.metadata.get("probe_log_odds")
        if recorded is None:
            raise RankerWeightsError(f"{self.version}'s record keeps no probe log-odds")
        moved = float(
            np.abs(np.asarray(self.probe_log_odds()) - np.asarray(recorded, dtype=np.float64)).max()
        )
        if moved > PROBE_TOLERANCE:
            raise RankerWeightsError(
                f"{self.version}: this machine computes the ranker differently from the machine that trained "
                f"it (a probe moved by {moved:.3f}, more than {PROBE_TOLERANCE})"
            )

    def log_odds_many(self, texts: Sequence[str]) -> list[float]:
        return [self.log_odds(text) for text in texts]


def weight_files(name: str, folder: Path | None = None) -> tuple[Path, Path, Path]:
    base = folder if folder is not None else Path(str(resources.files("icarus.claims") / "weights"))
    return base / f"{name}.onnx", base / f"{name}.tokenizer.json", base / f"{name}.json"


@cache
def load_encoder_ranker(name: str) -> EncoderRanker:
    """The shipped ranker ``name`` (read once)."""
    return EncoderRanker.from_files(*weight_files(name))
