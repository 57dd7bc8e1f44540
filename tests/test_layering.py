"""The scoring core stays pure: nothing under ``icarus.scoring`` reaches the store, the network or a door.

Two checks. The static one reads every import statement under ``src/icarus/scoring`` (function-level ones
included), so a lazy import cannot hide an edge. The runtime one imports every scoring module in a fresh
interpreter and looks at what got loaded, so an edge through another package is caught too. The core
takes judges' answers, never a judge: of ``icarus.judges`` it reads the plain request and answer types
only. The judge trainers import the runtime; the runtime never imports them. And no module of ``src/`` is
over 700 lines.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache
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


JUDGE_TYPES = ("JudgeRequest", "StanceVerdict", "AttributionVerdict", "FailureReason")
"""What scoring may take from ``icarus.judges``: the plain questions and answers of ``icarus.judges.protocol``.
The front doors ask the judges (``icarus.judges.parallel`` runs many at once) and hand the answers in."""
_JUDGE_HOMES = ("icarus.judges", "icarus.judges.protocol")
_PLAIN_JUDGE_NAMES = frozenset(_JUDGE_HOMES) | {
    f"{home}.{name}" for home in _JUDGE_HOMES for name in JUDGE_TYPES
}


def _runs_a_judge(name: str) -> bool:
    """An import of ``icarus.judges`` other than its plain types: a judge, the runner, a model, a helper."""
    return _within(name, ("icarus.judges",)) and name not in _PLAIN_JUDGE_NAMES


def _module_name(path: Path, root: Path = SRC) -> str:
    parts = path.relative_to(root).with_suffix("").parts
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


@cache
def _loaded_by_importing_scoring() -> tuple[str, ...]:
    """Every module a fresh interpreter holds after importing every scoring module."""
    probe = (
        "import importlib, json, pkgutil, sys\n"
        "import icarus.scoring as scoring\n"
        "for info in pkgutil.walk_packages(scoring.__path__, 'icarus.scoring.'):\n"
        "    importlib.import_module(info.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return tuple(json.loads(done.stdout.strip().splitlines()[-1]))


def test_importing_every_scoring_module_loads_no_door_or_io_package() -> None:
    loaded = _loaded_by_importing_scoring()
    assert any(name == "icarus.scoring.lvf.engine" for name in loaded)
    assert sorted(n for n in loaded if _within(n, FORBIDDEN_PACKAGES) or _is_cli(n)) == []


def test_no_scoring_module_imports_a_judge_or_the_judge_runner() -> None:
    """EvidenceVerify's six steps read the answers its front door collected, as the Icarus engine does."""
    offenders = {
        str(path.relative_to(SRC)): bad
        for path in SCORING_FILES
        if (bad := sorted(name for name in imported_names(path) if _runs_a_judge(name)))
    }
    assert offenders == {}, "pass the judges' answers in; ask the judges in the front door"
    loaded = [n for n in _loaded_by_importing_scoring() if _runs_a_judge(n)]
    assert loaded == [], "importing scoring loads these judge modules"


def test_the_judge_check_allows_the_plain_types_only() -> None:
    assert _runs_a_judge("icarus.judges.parallel") and _runs_a_judge("icarus.judges.parallel.judge_all")
    assert _runs_a_judge("icarus.judges.llm") and _runs_a_judge("icarus.judges.cross_encoder")
    assert _runs_a_judge("icarus.judges.protocol.Judge") and _runs_a_judge("icarus.judges.judge_all")
    assert not _runs_a_judge("icarus.judges.protocol.StanceVerdict")
    assert not _runs_a_judge("icarus.judges.JudgeRequest") and not _runs_a_judge("icarus.judges.protocol")
    assert not _runs_a_judge("icarus.judgesx") and not _runs_a_judge("icarus.ledger.judgments")


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


# --- floors and circles -----------------------------------------------------------------------------------
#
# The package order is written down once, in the README's package table (a floor per package, from the
# bottom). Every import statement of src/ is read, function-level and type-checking ones included: an import
# may only go to a package on a lower floor, and no modules may import each other round a loop.

README = Path(__file__).parents[1] / "README.md"
_TABLE_HEADER = "| floor | package | owns |"

# Imports that do not go down, as (importing module, imported package), and import circles between
# modules: none are allowed. A new one fails the test below; list it here only while it is being removed.
KNOWN_UPWARD: set[tuple[str, str]] = set()
KNOWN_CIRCLES: set[frozenset[str]] = set()


def package_floors(readme: str) -> dict[str, int]:
    """Each package of the README's package table with its floor, in the table's order (bottom first)."""
    lines = readme.splitlines()
    start = lines.index(_TABLE_HEADER) + 2
    floors: dict[str, int] = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        floor, names = (cell.strip() for cell in line.strip("|").split("|")[:2])
        for name in names.replace("`", "").split(","):
            floors[name.strip()] = int(floor)
    return floors


FLOORS = package_floors(README.read_text(encoding="utf-8"))


def package_of(module: str, floors: dict[str, int] = FLOORS) -> str | None:
    """The package of the table that holds ``module`` (the longest name that is it or contains it)."""
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        if name in floors:
            return name
    return None


def _resolved(name: str, modules: set[str] | dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def module_graph(root: Path = SRC) -> dict[str, set[str]]:
    """Every module under ``root`` with the modules of ``root`` it imports. ``from p import m`` names the
    module ``p.m`` where there is one (the package's ``__init__`` runs first anyway), else ``p``; any other
    name is resolved to the longest module name it starts with."""
    paths = {_module_name(path, root): path for path in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    names.add(full if full in paths else base)
        resolved = {_resolved(name, paths) for name in names}
        graph[module] = {name for name in resolved if name is not None and name != module}
    return graph


def upward_imports(graph: dict[str, set[str]], floors: dict[str, int]) -> set[tuple[str, str]]:
    """(module, package) for each import into another package that is not on a lower floor."""
    found: set[tuple[str, str]] = set()
    for module, targets in graph.items():
        home = package_of(module, floors)
        for target in targets:
            other = package_of(target, floors)
            if home and other and other != home and floors[other] >= floors[home]:
                found.add((module, other))
    return found


def circles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.add(frozenset(group))
    return found


GRAPH = module_graph()


def test_the_readme_table_gives_every_package_of_src_a_floor_from_the_bottom_up() -> None:
    assert list(FLOORS.values()) == sorted(FLOORS.values())
    assert FLOORS["icarus.ledger"] < FLOORS["icarus.scoring"] < FLOORS["icarus.api"]
    unplaced = sorted(m for m in GRAPH if m != "icarus" and package_of(m) is None)
    assert unplaced == [], "add these packages to the README's package table"
    assert sorted(p for p in FLOORS if not any(package_of(m) == p for m in GRAPH)) == []


def test_no_package_imports_one_that_is_not_below_it() -> None:
    found = upward_imports(GRAPH, FLOORS)
    assert sorted(found - KNOWN_UPWARD) == [], "these imports go up or sideways: move the code or the import"
    assert sorted(KNOWN_UPWARD - found) == [], "these known edges are gone: delete them from KNOWN_UPWARD"


def test_no_modules_import_each_other_round_a_loop() -> None:
    found = circles(GRAPH)
    assert sorted(map(sorted, found - KNOWN_CIRCLES)) == [], "break these import circles"
    assert sorted(map(sorted, KNOWN_CIRCLES - found)) == [], "these circles are gone: delete them here"


def test_the_floor_check_sees_an_upward_import_a_sideways_one_and_a_circle() -> None:
    floors = {"low": 0, "side": 1, "high": 1}
    graph = {"low.a": {"high.b"}, "high.b": {"side.c", "low.a"}, "side.c": set(), "high": {"high.b"}}
    assert upward_imports(graph, floors) == {("low.a", "high"), ("high.b", "side")}
    assert circles(graph) == {frozenset({"low.a", "high.b"})}
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == {frozenset({"a", "b", "c"})}
    assert package_of("high.b.deep", floors) == "high" and package_of("elsewhere", floors) is None


def test_the_floors_are_read_from_the_table_rows() -> None:
    table = f"intro\n\n{_TABLE_HEADER}\n|---|---|---|\n| 0 | `a` | x |\n| 2 | `b`, `c` | y |\n\nafter | 9 |"
    assert package_floors(table) == {"a": 0, "b": 2, "c": 2}


def test_from_a_package_import_a_module_is_an_edge_to_that_module_only(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.b import B\n", encoding="utf-8")
    (package / "a.py").write_text("from pkg import b\ndef f():\n    from . import B\n", encoding="utf-8")
    (package / "b.py").write_text("import pkg.a.missing\nB = 1\n", encoding="utf-8")
    graph = module_graph(tmp_path)
    assert graph == {"pkg": {"pkg.b"}, "pkg.a": {"pkg.b", "pkg"}, "pkg.b": {"pkg.a"}}
    assert circles(graph) == {frozenset({"pkg", "pkg.a", "pkg.b"})}
