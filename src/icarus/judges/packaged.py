"""What the four trained judges (``trained``, ``cross_encoder``, ``thresholded``, ``relevance``) share below
all of them: the error for shipped weights that cannot be read, and WordLlama's packaged embeddings read
without the wordllama package. Each of those modules imports this one and none imports a judge above it, so
they form no circle.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["PackagedEmbeddings", "WeightsError", "packaged_embeddings"]


class WeightsError(RuntimeError):
    """The shipped weights are missing, damaged, or were fitted on another feature layout."""


class PackagedEmbeddings:
    """WordLlama's packaged static embeddings, read without importing the wordllama package: the files
    ``icarus.text.wordllama.load_wordllama`` loads (never a download), and the similarity its model computes, bit for bit
    (``tests/judges/test_relevance_similarity.py``). The package's import (its configuration files, and
    ``requests`` for downloads) and widening its whole float16 token table to float32 took a quarter of a
    second of every ``icarus check``; the gate reads a few dozen rows, widened as they are read (exactly)."""

    def __init__(self, table: npt.NDArray[np.float16], tokenizer: Any) -> None:
        self.table = table
        self.tokenizer = tokenizer
        self.tokenizer.enable_padding()  # as WordLlamaInference sets its tokenizer up
        self.tokenizer.no_truncation()

    @classmethod
    def packaged(cls) -> PackagedEmbeddings:
        from safetensors import safe_open
        from tokenizers import Tokenizer

        from icarus.text.wordllama import EMBEDDING_DIM, WORDLLAMA_CONFIG

        spec = importlib.util.find_spec("wordllama")
        if spec is None or not spec.submodule_search_locations:
            raise WeightsError(
                "the wordllama package, whose packaged model the relevance gate reads, is missing"
            )
        package = Path(next(iter(spec.submodule_search_locations)))
        weights = package / "weights" / f"{WORDLLAMA_CONFIG}_{EMBEDDING_DIM}.safetensors"
        tokenizer = package / "tokenizers" / f"{WORDLLAMA_CONFIG}_tokenizer_config.json"
        for path in (weights, tokenizer):
            if not path.is_file():
                raise WeightsError(f"WordLlama's packaged file {path} is missing")
        with safe_open(str(weights), framework="np", device="cpu") as stored:
            table = stored.get_tensor("embedding.weight")
        return cls(table, Tokenizer.from_file(str(tokenizer)))

    @property
    def embedding(self) -> npt.NDArray[np.float16]:
        """The token table, under the name ``features.PairEncoder`` reads (float16: rows widen exactly)."""
        return self.table

    def embed(self, text: str) -> npt.NDArray[np.float32]:
        """The mean of the text's token vectors, as ``WordLlamaInference.embed`` pools them (one row)."""
        encoded = self.tokenizer.encode_batch([text], is_pretokenized=False, add_special_tokens=False)
        ids = np.array([e.ids for e in encoded], dtype=np.int32)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        np.clip(ids, 0, self.table.shape[0] - 1, out=ids)
        vectors = self.table[ids].astype(np.float32)
        count = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
        pooled = np.empty((1, self.table.shape[1]), dtype=np.float32)
        pooled[0:1] = np.sum(vectors * mask[..., np.newaxis], axis=1, dtype=np.float32) / count
        return pooled

    def similarity(self, first: str, second: str) -> float:
        """Cosine of the two pooled vectors, computed as wordllama's ``vector_similarity`` computes it."""
        a, b = self.embed(first), self.embed(second)
        norm_a = np.linalg.norm(a, axis=1, keepdims=True)
        norm_b = np.linalg.norm(b, axis=1, keepdims=True)
        norm_a = np.where(norm_a == 0, 1.0, norm_a)
        norm_b = np.where(norm_b == 0, 1.0, norm_b)
        cosine = np.dot(a / norm_a, (b / norm_b).T).astype(np.float32)
        return float(cosine.item())


@cache
def packaged_embeddings() -> PackagedEmbeddings:
    """One ``PackagedEmbeddings`` per process, shared by the gate and the embedding judge (read-only)."""
    return PackagedEmbeddings.packaged()
