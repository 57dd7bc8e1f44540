"""The scoring core stays pure: nothing under ``icarus.scoring`` reaches the store, the network or a door.

Two checks. The static one reads every import statement under ``src/icarus/scoring`` (function-level ones
included), so a lazy import cannot hide an edge. The runtime one imports every scoring module in a fresh
interpreter and looks at what got loaded, so an edge through another package is caught too. The judge
trainers import the runtime; the runtime never imports them. And no module of ``src/`` is over 700 lines.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src"
SCORING = SRC / "icarus" / "scoring"

# Packages of Icarus that do I/O or face users: the store, research and fetching, the service, the front
# doors, and every command line.
FORBIDDEN_PACKAGES = (
    "icarus.store",
    "icarus.research",
    "icarus.fetching",
    "icarus.api",
    "icarus.jobs",
    "icarus.web",
    "icarus.pipeline",
    "icarus.lvf",
    "icarus.evidenceverify",
    "icarus.debates",
    "icarus.xbot",
    "icarus.cli",
    "icarus.commands",
    "icarus_training",
)
# Libraries a scoring module has no business importing itself: databases, HTTP, LLM clients, command lines.
FORBIDDEN_LIBRARIES = ("sqlalchemy", "alembic", "httpx", "requests", "openai", "typer", "fastapi", "huey")


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def _is_cli(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return name.startswith("icarus") and (last == "cli" or last.endswith("_cli"))


def _forbidden(name: str) -> bool:
    return _within(name, FORBIDDEN_PACKAGES) or _within(name, FORBIDDEN_LIBRARIES) or _is_cli(name)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_in(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module an import statement in ``source`` (the text of ``module``) names, relative ones resolved."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def imported_names(path: Path) -> set[str]:
    return imports_in(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")


SCORING_FILES = sorted(SCORING.rglob("*.py"))


def test_the_scan_sees_the_scoring_package() -> None:
    assert len(SCORING_FILES) > 30
    assert "icarus.provenance.build_graph" in imported_names(SCORING / "icarus" / "engine.py")


@pytest.mark.parametrize("path", SCORING_FILES, ids=lambda p: str(p.relative_to(SCORING)))
def test_no_scoring_module_imports_a_door_or_io(path: Path) -> None:
    bad = sorted(name for name in imported_names(path) if _forbidden(name))
    assert bad == [], f"{path.relative_to(SRC)} imports {bad}"


def test_relative_and_function_level_imports_are_seen() -> None:
    source = "from . import formula\nfrom ..icarus import config\ndef f():\n    import icarus.store\n"
    names = imports_in(source, "icarus.scoring.lvf.engine")
    assert {"icarus.scoring.lvf.formula", "icarus.scoring.icarus.config", "icarus.store"} <= names
    assert "icarus.scoring.lvf.formula" in imports_in("from . import formula", "icarus.scoring.lvf", True)


def test_no_scoring_module_is_a_command_line() -> None:
    assert [p for p in SCORING_FILES if p.stem == "cli" or p.stem.endswith("_cli")] == []


def test_the_check_itself_catches_each_kind_of_edge() -> None:
    assert _forbidden("icarus.store.engine") and _forbidden("icarus.research")
    assert _forbidden("icarus.reputation.cli") and _forbidden("icarus.commands.models")
    assert _forbidden("sqlalchemy.orm") and _forbidden("icarus_training.train")
    assert not _forbidden("icarus.provenance") and not _forbidden("icarus.storey")


def test_importing_every_scoring_module_loads_no_door_or_io_package() -> None:
    probe = (
        "import importlib, json, pkgutil, sys\n"
        "import icarus.scoring as scoring\n"
        "for info in pkgutil.walk_packages(scoring.__path__, 'icarus.scoring.'):\n"
        "    importlib.import_module(info.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert any(name == "icarus.scoring.lvf.engine" for name in loaded)
    assert sorted(n for n in loaded if _within(n, FORBIDDEN_PACKAGES) or _is_cli(n)) == []


def test_the_runtime_never_imports_the_trainers() -> None:
    offenders = sorted(
        str(path.relative_to(SRC))
        for path in (SRC / "icarus").rglob("*.py")
        if any(_within(name, ("icarus_training",)) for name in imported_names(path))
    )
    assert offenders == []


# --- module size ----------------------------------------------------------------------------------------

MAX_MODULE_LINES = 700
"""A module longer than this holds more than one idea: split it by responsibility."""

SOURCE_FILES = sorted(SRC.rglob("*.py"))


def modules_over(paths: list[Path], root: Path = SRC, limit: int = MAX_MODULE_LINES) -> dict[str, int]:
    """Each module of ``paths`` longer than ``limit`` lines, named from ``root``, with its length."""
    counts = {
        str(path.relative_to(root)): len(path.read_text(encoding="utf-8").splitlines()) for path in paths
    }
    return {name: count for name, count in counts.items() if count > limit}


def test_the_size_scan_sees_every_package_of_src() -> None:
    tops = {path.relative_to(SRC).parts[0] for path in SOURCE_FILES}
    assert {"icarus", "icarus_training"} <= tops
    assert len(SOURCE_FILES) > 300


def test_no_module_of_src_is_over_700_lines() -> None:
    over = modules_over(SOURCE_FILES)
    assert over == {}, f"split these modules by responsibility (at most {MAX_MODULE_LINES} lines each)"


def test_the_size_check_allows_700_lines_and_refuses_701(tmp_path: Path) -> None:
    fits, too_long = tmp_path / "fits.py", tmp_path / "too_long.py"
    fits.write_text("a = 1\n" * MAX_MODULE_LINES, encoding="utf-8")
    too_long.write_text("a = 1\n" * MAX_MODULE_LINES + "b = 2", encoding="utf-8")  # no final newline
    assert modules_over([fits, too_long], tmp_path) == {"too_long.py": MAX_MODULE_LINES + 1}
