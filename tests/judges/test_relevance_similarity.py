"""The relevance gate's WordLlama similarities: read without the wordllama package, they are those of the
package's own loaded model, bit for bit, and the token table stays float16."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from icarus.judges.packaged import PackagedEmbeddings
from icarus.text.wordllama import load_wordllama

PAIRS = [
    ("Container traffic at Halden harbor fell 12% in October.", "The port said volumes dropped 12 percent."),
    ("Hunter Biden joined the board of Burisma in 2014.", "Burisma named a new board member that year."),
    ("WHO says cases rose.", ""),
    ("", ""),
    ("Ünïcödé ½ 😀 text", "a"),
    ("The minister said the budget is balanced, and the deficit is gone.", "x " * 300),
    ("Numbers: 1,234.5 and 6.7% in 2023–24", "Tabs\tand\nnew lines  and  spaces"),
]


@pytest.fixture(scope="module")
def packaged() -> PackagedEmbeddings:
    return PackagedEmbeddings.packaged()


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_similarities_are_the_loaded_models_bit_for_bit(
    packaged: PackagedEmbeddings, first: str, second: str
) -> None:
    loaded = load_wordllama()
    assert packaged.similarity(first, second) == loaded.similarity(first, second)
    assert np.array_equal(packaged.embed(first), loaded.embed(first))


def test_the_token_table_stays_float16(packaged: PackagedEmbeddings) -> None:
    assert packaged.table.dtype == np.float16
    assert packaged.table.shape == load_wordllama().embedding.shape


def test_the_similarity_does_not_import_wordllama() -> None:
    code = (
        "import sys\n"
        "from icarus.judges.packaged import PackagedEmbeddings\n"
        "PackagedEmbeddings.packaged().similarity('a claim', 'a passage')\n"
        "assert 'wordllama' not in sys.modules and 'requests' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_embedding_judges_features_from_the_packaged_files_are_the_loaded_models(
    packaged: PackagedEmbeddings,
) -> None:
    from icarus.judges.features import PairEncoder

    claims, passages = [first for first, _ in PAIRS], [second for _, second in PAIRS]
    loaded_rows, loaded_alignments = PairEncoder(load_wordllama()).encode_aligned(claims, passages)
    rows, alignments = PairEncoder(packaged).encode_aligned(claims, passages)
    assert np.array_equal(rows, loaded_rows)  # rows normalised as read equal the whole table normalised
    assert alignments == loaded_alignments


def test_the_embedding_judge_does_not_import_wordllama() -> None:
    code = (
        "import sys\n"
        "from icarus.judges.protocol import JudgeRequest\n"
        "from icarus.judges.trained import OfflineWordLlamaJudge\n"
        "OfflineWordLlamaJudge().stance(JudgeRequest(claim_id='c', claim_text='Rates rose.', evidence_id='e',"
        " excerpt='Rates fell.', evidence_text='Rates fell.'))\n"
        "assert 'wordllama' not in sys.modules and 'requests' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
