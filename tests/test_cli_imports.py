"""``icarus`` starts without the service, the judges' runtimes or OCR; its help lists every command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from icarus.cli import COMMANDS, LazyCommand, app
from icarus.store.migrate import migrate

# What a command line that only parses its arguments must not load: the API, the job queue, the ONNX
# runtime (judges, OCR) and OpenCV.
HEAVY = ("fastapi", "huey", "onnxruntime", "cv2")
ROOT = Path(__file__).parents[1]


def _loaded_after(code: str, heavy: tuple[str, ...] = HEAVY, env: dict[str, str] | None = None) -> list[str]:
    """Top-level modules of ``heavy`` that running ``code`` in a fresh interpreter loads."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT, env=env
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    return sorted(loaded & set(heavy))


def test_importing_the_cli_loads_no_heavy_module() -> None:
    assert _loaded_after("import icarus.cli") == []


def test_the_help_page_loads_no_heavy_module() -> None:
    code = "from icarus.cli import app\ntry:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    assert _loaded_after(code) == []


def test_scoring_a_ledger_loads_no_heavy_module() -> None:
    code = (
        "from icarus.cli import app\n"
        "try:\n    app(['score', 'examples/ledgers/wire-pickups.json', '--json'])\n"
        "except SystemExit:\n    pass"
    )
    assert _loaded_after(code) == []


def test_scoring_a_ledger_loads_no_graph_library_or_suffix_list_downloader() -> None:
    code = (
        "from icarus.cli import app\n"
        "try:\n    app(['score', 'examples/ledgers/wire-pickups.json', '--json'])\n"
        "except SystemExit:\n    pass"
    )
    assert _loaded_after(code, ("igraph", "tldextract", "requests", "filelock")) == []


CHECK_A_SENTENCE = (
    "from icarus.cli import app\n"
    "try:\n    app(['check', 'Container traffic at Halden harbor fell 12% in October.', '--json'])\n"
    "except SystemExit as stop:\n    assert not stop.code, stop.code"
)


@pytest.fixture(scope="module")
def sample_corpus_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment whose data directory holds the indexed sample corpus and an SQLite store."""
    data_dir = tmp_path_factory.mktemp("data")
    env = {k: v for k, v in os.environ.items() if k != "ICARUS_DATABASE_URL"}
    env["ICARUS_DATA_DIR"] = str(data_dir)
    corpus = sorted(str(p) for p in (ROOT / "examples" / "sample-corpus").glob("*.html"))
    subprocess.run(
        [sys.executable, "-m", "icarus.cli", "corpus", "add", *corpus], check=True, env=env, cwd=ROOT
    )
    return env


def test_checking_a_sentence_loads_no_service_ocr_or_llm_client(sample_corpus_env: dict[str, str]) -> None:
    # the offline judge runs on the ONNX runtime, so it may load that one
    assert _loaded_after(CHECK_A_SENTENCE, ("fastapi", "huey", "cv2", "openai"), sample_corpus_env) == []


def test_checking_a_sentence_loads_no_migration_tool_or_page_extractor(
    sample_corpus_env: dict[str, str],
) -> None:
    # a database already at the newest revision needs no Alembic; a sentence has no page to extract; the
    # relevance gate reads WordLlama's files without its package (which imports requests for downloads); no
    # link is read and no web search is configured, so no HTTP client is needed
    migrate(f"sqlite:///{Path(sample_corpus_env['ICARUS_DATA_DIR']) / 'icarus.db'}")
    unneeded = (
        "alembic",
        "trafilatura",
        "htmldate",
        "warcio",
        "extruct",
        "rdflib",
        "igraph",
        "tldextract",
        "wordllama",
        "requests",
        "httpx",
    )
    assert _loaded_after(CHECK_A_SENTENCE, unneeded, sample_corpus_env) == []


def test_checking_a_sentence_declares_no_debate_or_model_result_tables(
    sample_corpus_env: dict[str, str],
) -> None:
    probe = f"{CHECK_A_SENTENCE}\nimport sys\nprint(sorted(m for m in sys.modules if m.startswith('icarus.store.')))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=sample_corpus_env,
    )
    loaded = json.loads(done.stdout.strip().splitlines()[-1].replace("'", '"'))
    assert "icarus.store.repository" in loaded
    assert not {"icarus.store.debate_tables", "icarus.store.model_tables"} & set(loaded)


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(app, ["--help"], terminal_width=200)
    assert result.exit_code == 0
    for name in COMMANDS:
        assert f" {name} " in result.output, name


def _loaded(name: str, entry: LazyCommand) -> typer.core.TyperCommand | typer.core.TyperGroup:
    command = entry.load(name)
    assert isinstance(command, typer.core.TyperCommand | typer.core.TyperGroup)
    return command


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_help_line_is_the_commands_own(name: str) -> None:
    entry = COMMANDS[name]
    own_help = (_loaded(name, entry).help or "").split("\n\n")[0].strip()
    assert entry.help == own_help


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_answers_help_under_its_listed_name(name: str) -> None:
    result = CliRunner().invoke(app, [name, "--help"], prog_name="icarus", terminal_width=200)
    assert result.exit_code == 0, result.output
    assert f"icarus {name}" in result.output


def test_a_mistyped_command_suggests_a_lazy_one() -> None:
    result = CliRunner().invoke(app, ["scroe"])
    assert result.exit_code == 2
    assert "'score'" in result.output
