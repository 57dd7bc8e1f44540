"""A folder's README and dotfiles describe the folder; `corpus add FOLDER` leaves them out."""

from __future__ import annotations

import shutil
from pathlib import Path

from icarus.research import LocalCorpus

SAMPLE = Path(__file__).parents[2] / "examples" / "sample-corpus"


def test_a_folder_readme_and_dotfiles_are_skipped_but_a_named_readme_is_added(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    shutil.copytree(SAMPLE, folder)
    (folder / ".notes.txt").write_text("editor scratch about transit budgets")
    assert (folder / "README.md").exists()  # the sample corpus ships one
    with LocalCorpus(tmp_path / "corpus.db") as store:
        report = store.add([folder])
        indexed = {Path(doc.source_path).name for doc in store.documents()}
        assert "README.md" not in indexed and ".notes.txt" not in indexed
        assert indexed == {path.name for path in folder.glob("*.html")}
        assert any(path.name == "README.md" and "README" in why for path, why in report.skipped)
        store.add([folder / "README.md"])  # named as a file, it is indexed
        assert "README.md" in {Path(doc.source_path).name for doc in store.documents()}
