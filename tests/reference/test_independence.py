"""The reference stands alone: standard library only, and no module of it imports the engine."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[2] / "reference"


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            names.add("__import__")
        elif isinstance(node, ast.Attribute) and node.attr == "import_module":
            names.add("importlib.import_module")
    return names


def test_reference_imports_only_the_standard_library_and_itself() -> None:
    files = sorted(REFERENCE.rglob("*.py"))
    assert files
    allowed = set(sys.stdlib_module_names) | {"__future__", "reference"}
    for path in files:
        extra = _imported(path) - allowed
        assert not extra, f"{path.relative_to(REFERENCE.parent)} imports {sorted(extra)}"
