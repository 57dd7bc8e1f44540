"""WordLlama's packaged static model, the one text embedding Icarus reads: the judges' features and
relevance gate, and provenance's document embeddings. Loaded from the installed package only (a missing
file is an error, never a download), and only when first asked for.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["EMBEDDING_DIM", "WORDLLAMA_CONFIG", "load_wordllama"]

WORDLLAMA_CONFIG = "l2_supercat"
EMBEDDING_DIM = 256


@cache
def load_wordllama() -> Any:
    """WordLlama's packaged model, from the installed package only: a missing file is an error, never a
    download."""
    import wordllama
    from wordllama import WordLlama

    return WordLlama.load(
        config=WORDLLAMA_CONFIG,
        dim=EMBEDDING_DIM,
        cache_dir=Path(wordllama.__file__).parent,
        disable_download=True,
    )
