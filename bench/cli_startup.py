"""How long ``icarus`` takes to answer, in a fresh process each time, against ``python -c pass``.

Three commands a user types most: ``icarus --help``, ``icarus score`` on an example ledger and ``icarus
check`` on one sentence with the sample corpus indexed (offline judges, SQLite, no network; the corpus is
indexed once, untimed). Each runs ``--repeat`` times (5 by default, 3 with ``--quick``) after one untimed
warm-up that fills the file cache and Python's bytecode cache, as installing the package does
(``PYTHONDONTWRITEBYTECODE`` is dropped for the children: with it, every run would also time compiling each
imported module, about a tenth of a second of ``icarus check``); the median counts. The interpreter's own
start (``python -c pass``) is measured in the same run, and ``over_python`` is each median less that one.

Wall time is what a user waits; it is also what other work on a shared machine inflates, so the CPU time
of the process (user + system, from ``os.wait4``) is reported beside it: on a quiet machine the two agree
within a few hundredths of a second for ``--help`` and ``score``; ``check`` builds its judge on a second
thread (``icarus.judges.background``), so its CPU time exceeds its wall time by what the two threads
overlap.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
LEDGER = ROOT / "examples" / "ledgers" / "wire-pickups.json"
CORPUS = sorted((ROOT / "examples" / "sample-corpus").glob("*.html"))
REPUTATION = ROOT / "examples" / "sample-corpus" / "reputation.json"
SENTENCE = "Container traffic at Halden harbor fell 12% in October, the port says."
# Seconds each command should take (the whole process, as a user waits for it).
TARGETS_S = {"icarus --help": 0.4, "icarus score": 0.8, "icarus check": 1.5}


def _icarus() -> list[str]:
    """The installed ``icarus`` script beside this interpreter, else the module."""
    script = Path(sys.executable).parent / "icarus"
    return [str(script)] if script.exists() else [sys.executable, "-m", "icarus.cli"]


def _seconds(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` in a new process."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, env=env, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            errors.seek(0)
            raise RuntimeError(
                f"{' '.join(command)} failed: {errors.read().decode(errors='replace')[-2000:]}"
            )
    return wall, usage.ru_utime + usage.ru_stime


def _medians(command: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Median wall and median CPU seconds over ``repeat`` runs after one warm-up."""
    _seconds(command, env)  # warm-up: the file cache, not the interpreter, is what it fills
    runs = [_seconds(command, env) for _ in range(repeat)]
    return statistics.median(wall for wall, _ in runs), statistics.median(cpu for _, cpu in runs)


def main(argv: list[str]) -> dict[str, Any]:
    repeat = 3 if "--quick" in argv else 5
    if "--repeat" in argv:
        repeat = int(argv[argv.index("--repeat") + 1])
    icarus = _icarus()
    with tempfile.TemporaryDirectory(prefix="icarus-cli-bench-") as data_dir:
        env = {**os.environ, "ICARUS_DATA_DIR": data_dir}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        _seconds([*icarus, "corpus", "add", *map(str, CORPUS)], env)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "icarus --help": [*icarus, "--help"],
            "icarus score": [*icarus, "score", str(LEDGER)],
            "icarus check": [*icarus, "check", SENTENCE, "--reputation", str(REPUTATION)],
        }
        measured = {name: _medians(command, env, repeat) for name, command in commands.items()}
    baseline = measured["python -c pass"][0]
    runs = []
    for name, (median, cpu) in measured.items():
        target = TARGETS_S.get(name)
        runs.append(
            {
                "command": name,
                "median_s": round(median, 3),
                "cpu_s": round(cpu, 3),
                "over_python_s": round(median - baseline, 3),
                "target_s": target if target is not None else "",
                "met": "" if target is None else ("yes" if median < target else "no"),
            }
        )
    return {"runs": runs, "repeat": repeat, "ledger": str(LEDGER.relative_to(ROOT)), "sentence": SENTENCE}


if __name__ == "__main__":
    for row in main(sys.argv[1:])["runs"]:
        print(row)
