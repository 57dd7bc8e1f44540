"""Reading dataset files: clear errors for missing files and malformed rows, never a traceback."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from icarus.evaluation.cases import DatasetError
from icarus.jsonlines import json_objects


def locate(path: Path, *names: str) -> Path:
    """``path`` itself if it is a file, else the first of ``names`` inside the folder ``path``."""
    if path.is_file():
        return path
    if path.is_dir():
        for name in names:
            if (path / name).is_file():
                return path / name
        raise DatasetError(f"{path} holds none of: {', '.join(names)}")
    raise DatasetError(f"{path} does not exist")


def json_lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for _, row in json_objects(lines, path, DatasetError):
            yield row


def json_document(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path}: cannot be read as JSON ({exc})") from exc


def csv_rows(path: Path) -> Iterator[dict[str, str]]:
    csv.field_size_limit(sys.maxsize)  # article bodies exceed the default field limit
    with path.open(encoding="utf-8", newline="") as handle:
        yield from csv.DictReader(handle)


def field(row: dict[str, Any], name: str, where: str) -> Any:
    if name not in row:
        raise DatasetError(f"{where}: missing field {name!r}")
    return row[name]
