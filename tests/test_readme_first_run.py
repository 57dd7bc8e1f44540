"""The README's first command after `make run` works as written: `make run`'s corpus step, then the README's
`icarus check` line, run offline against a temporary data dir standing in for `.icarus-sample/`."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]
SAMPLE_DIR = ".icarus-sample"
ICARUS = str(Path(sys.executable).parent / "icarus")


def _readme_next_step() -> list[str]:
    block = (ROOT / "README.md").read_text().split("## Set up and run", 1)[1].split("```")[1]
    line = next(line for line in block.splitlines() if line.startswith(f"ICARUS_DATA_DIR={SAMPLE_DIR} "))
    words = shlex.split(line, comments=True)
    assert words[1] == ".venv/bin/icarus" and words[2] == "check", line
    return words[2:]


def _make_run_corpus_step() -> list[str]:
    recipe = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert f"SAMPLE := ICARUS_DATA_DIR={SAMPLE_DIR}" in (ROOT / "Makefile").read_text()
    line = next(line for line in recipe.splitlines() if "icarus corpus add" in line)
    pattern = line.split("icarus corpus add", 1)[1].split()
    return ["corpus", "add", *sorted(str(p) for glob in pattern for p in ROOT.glob(glob))]


def _icarus(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ICARUS_")}  # the defaults only
    env["ICARUS_DATA_DIR"] = str(data_dir)
    env["ICARUS_OFFLINE"] = "1"  # but no look-up reaches the internet (tests/conftest.py)
    return subprocess.run([ICARUS, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_the_readme_check_after_make_run_finds_the_sample_corpus(tmp_path: Path) -> None:
    data_dir = tmp_path / SAMPLE_DIR
    added = _icarus(_make_run_corpus_step(), data_dir)
    assert added.returncode == 0, added.stderr
    checked = _icarus(_readme_next_step(), data_dir)
    output = checked.stdout + checked.stderr
    assert checked.returncode == 0, output
    assert "no local corpus" not in output and re.search(r"recorded as /checks/\w+/versions/1", output)
    assert "local_corpus not run" not in output
