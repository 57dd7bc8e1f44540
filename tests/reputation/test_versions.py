"""Registry files keep every version: re-imports replace a dataset's own part, changes go to the history."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from icarus.ledger import ReputationMethod, ReputationRecord, RiskRating, SourceClass, SourceTier
from icarus.reputation import load_registry
from icarus.reputation.cli import registry_app
from icarus.reputation.history import history_path, read_history
from icarus.reputation.importers import merge_entries, update_registry, write_registry
from icarus.reputation.registry import RegistryEntry

runner = CliRunner()


def entry(
    domain: str, score: str, dataset: str, version: str, risk: RiskRating | None = None
) -> RegistryEntry:
    record = ReputationRecord(
        domain=domain,
        score=Decimal(score),
        tier=SourceTier.OTHER,
        method=ReputationMethod.DATASET,
        produced_by=f"{dataset}@{version}",
        version=version,
        risk_rating=risk,
    )
    return RegistryEntry(record, SourceClass.NEWS)


def write_lin(path: Path, rows: dict[str, str]) -> Path:
    path.write_text("domain,pc1\n" + "".join(f"{d},{s}\n" for d, s in rows.items()))
    return path


def write_misinfo(path: Path, domains: list[str]) -> Path:
    path.write_text("".join(f"{d}\n" for d in domains))
    return path


def imported(out: Path, kind: str, source: Path) -> str:
    result = runner.invoke(registry_app, ["import", kind, str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result.output


def test_importing_the_same_file_twice_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "reg.json"
    lin = write_lin(tmp_path / "domain_pc1.csv", {"daily.example": "0.7", "weekly.example": "0.4"})
    misinfo = write_misinfo(tmp_path / "misinfo_list.txt", ["weekly.example"])
    imported(out, "lin2023", lin)
    imported(out, "misinfo-list", misinfo)
    before = out.read_text()
    again = imported(out, "misinfo-list", misinfo)
    assert "changed: 0" in again and "unchanged: 2" in again
    assert out.read_text() == before
    merged = load_registry(out).entries["weekly.example"]
    assert merged.record.produced_by.count("misinfo-list@") == 1  # never counted twice
    assert {s.record.produced_by.split("@")[0] for s in merged.sources} == {"lin2023", "misinfo-list"}


def test_a_changed_dataset_makes_a_new_version_and_keeps_the_old_one(tmp_path: Path) -> None:
    out = tmp_path / "reg.json"
    imported(out, "lin2023", write_lin(tmp_path / "a.csv", {"daily.example": "0.7", "weekly.example": "0.4"}))
    first = load_registry(out).entries["daily.example"].record
    output = imported(
        out, "lin2023", write_lin(tmp_path / "b.csv", {"daily.example": "0.5", "weekly.example": "0.4"})
    )
    assert "changed: 1" in output and str(history_path(out)) in output
    now = load_registry(out).entries["daily.example"].record
    assert now.score == Decimal("0.5") and now.version != first.version
    history = read_history(out, "daily.example")
    assert [h.record for h in history] == [first]
    assert history[0].replaced_at is not None
    assert read_history(out, "weekly.example") == []  # unchanged records are not versioned again


def test_a_reimport_replaces_only_its_own_part_of_a_merged_record(tmp_path: Path) -> None:
    out = tmp_path / "reg.json"
    imported(out, "lin2023", write_lin(tmp_path / "a.csv", {"weekly.example": "0.8"}))
    imported(out, "misinfo-list", write_misinfo(tmp_path / "m.txt", ["weekly.example"]))
    flagged = load_registry(out).entries["weekly.example"].record
    assert flagged.risk_rating is RiskRating.GENERALLY_UNRELIABLE
    imported(out, "lin2023", write_lin(tmp_path / "b.csv", {"weekly.example": "0.9"}))
    record = load_registry(out).entries["weekly.example"]
    assert record.record.risk_rating is RiskRating.GENERALLY_UNRELIABLE  # the flag survives the new baseline
    assert record.record.score == flagged.score  # capped by the flag, not raised by the new pc1
    assert [s.record.score for s in record.sources if s.record.produced_by.startswith("lin2023")] == [
        Decimal("0.9")
    ]


def test_an_edited_file_under_an_unchanged_label_still_gets_a_new_version() -> None:
    old = entry("daily.example", "0.7", "lin2023", "v1")
    new = entry("daily.example", "0.5", "lin2023", "v1")
    update = update_registry([old], [new], {"daily.example": {"v1.r2"}})
    (after,) = update.entries
    assert after.record.version == "v1.r3" and update.replaced == [old]


def test_merge_flattens_merged_entries() -> None:
    lin = entry("x.example", "0.8", "lin2023", "a")
    flag = entry("x.example", "0.3", "misinfo-list", "b", RiskRating.GENERALLY_UNRELIABLE)
    twice = merge_entries([merge_entries([lin, flag]), flag])
    assert twice == merge_entries([lin, flag, flag])  # the merged entry contributes its parts, not itself
    assert all(not part.sources for part in twice.sources)
    assert merge_entries([merge_entries([lin, flag])]).sources == merge_entries([lin, flag]).sources


def test_sources_round_trip_through_the_registry_file(tmp_path: Path) -> None:
    merged = merge_entries(
        [entry("x.example", "0.8", "lin2023", "a"), entry("x.example", "0.3", "misinfo-list", "b")]
    )
    path = tmp_path / "r.json"
    write_registry([merged], path)
    assert load_registry(path).entries["x.example"] == merged
    assert "sources" in json.loads(path.read_text())[0]
    single = entry("y.example", "0.8", "lin2023", "a")
    write_registry([single], path)
    assert "sources" not in json.loads(path.read_text())[0]


def test_history_lines_nested_too_deeply_are_skipped(tmp_path: Path) -> None:
    out = tmp_path / "reg.json"
    imported(out, "lin2023", write_lin(tmp_path / "a.csv", {"daily.example": "0.7"}))
    imported(out, "lin2023", write_lin(tmp_path / "b.csv", {"daily.example": "0.5"}))
    with history_path(out).open("a") as handle:  # a hand-edited history file
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")
        handle.write('{"n": ' + "9" * 5000 + "}\n")
    assert len(read_history(out, "daily.example")) == 1
    again = runner.invoke(registry_app, ["import", "lin2023", str(tmp_path / "a.csv"), "--out", str(out)])
    assert again.exit_code == 0 and "changed: 1" in again.output, again.output


class _FillsUp:
    """A file whose disk fills up: the first write stores half its text, then fails as a full disk does."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __enter__(self) -> _FillsUp:
        return self

    def __exit__(self, *_: object) -> None:
        self.handle.close()

    def write(self, text: str) -> int:
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, "No space left on device")


def fill_up_disk(monkeypatch: pytest.MonkeyPatch, failing: Callable[[Path], bool]) -> None:
    """Writing (or appending) to a path ``failing`` picks runs out of disk space part way."""
    real_open = Path.open

    def open_(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(self, mode, *args, **kwargs)
        return _FillsUp(handle) if ("w" in mode or "a" in mode) and failing(self) else handle

    monkeypatch.setattr(Path, "open", open_)


def folder_state(folder: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("fails", ["registry", "history"])
def test_a_failed_import_write_leaves_the_registry_and_its_history_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: str
) -> None:
    out = tmp_path / "registry" / "reg.json"
    imported(out, "lin2023", write_lin(tmp_path / "a.csv", {"daily.example": "0.7", "weekly.example": "0.4"}))
    imported(out, "lin2023", write_lin(tmp_path / "b.csv", {"daily.example": "0.6", "weekly.example": "0.4"}))
    before = folder_state(out.parent)  # the registry and a history of one replaced version
    history = history_path(out)
    changed = write_lin(tmp_path / "c.csv", {"daily.example": "0.5", "weekly.example": "0.3"})
    if fails == "history":
        fill_up_disk(monkeypatch, lambda p: p == history)
    else:  # the registry, or a file written beside it on the way
        fill_up_disk(monkeypatch, lambda p: p.parent == out.parent and p != history)
    result = runner.invoke(registry_app, ["import", "lin2023", str(changed), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert f"error: cannot write {out}: No space left on device" in result.output
    assert folder_state(out.parent) == before  # no history line for a registry never written, no stray file
    monkeypatch.undo()
    imported(out, "lin2023", changed)  # with room again, the same import goes through
    assert [h.record.score for h in read_history(out, "daily.example")] == [Decimal("0.7"), Decimal("0.6")]


def test_show_lists_sources_and_history(tmp_path: Path) -> None:
    out = tmp_path / "reg.json"
    imported(out, "lin2023", write_lin(tmp_path / "a.csv", {"daily.example": "0.7"}))
    imported(out, "misinfo-list", write_misinfo(tmp_path / "m.txt", ["daily.example"]))
    shown = runner.invoke(registry_app, ["show", "daily.example", "--registry", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "source: lin2023@" in shown.output and "source: misinfo-list@" in shown.output
    assert "history: version" in shown.output and "score 0.7" in shown.output
    fresh = runner.invoke(registry_app, ["show", "other.example", "--registry", str(out)])
    assert "history: no earlier versions on file" in fresh.output


def test_a_malformed_sources_list_is_a_clear_error(tmp_path: Path) -> None:
    record = entry("a.example", "0.5", "lin2023", "1").record.model_dump(mode="json")
    for sources in (["oops"], "oops", [{"record": {}}]):
        path = tmp_path / "bad.json"
        path.write_text(json.dumps([{"record": record, "sources": sources}]))
        shown = runner.invoke(registry_app, ["show", "a.example", "--registry", str(path)])
        assert shown.exit_code == 2 and "error:" in shown.output and "bad.json" in shown.output
        assert "Traceback" not in shown.output
