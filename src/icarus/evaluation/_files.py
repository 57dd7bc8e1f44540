"""Reading dataset files: clear errors for missing files and malformed rows, never a traceback."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from icarus.evaluation.cases import DatasetError
from icarus.jsonlines import json_error_reason, json_objects


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


def json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of a JSON Lines file."""
    try:
        with path.open(encoding="utf-8") as lines:
            yield from json_objects(lines, path, DatasetError)
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start} of a line cannot be decoded)") from exc


def json_document(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except RecursionError as exc:
        raise DatasetError(f"{path}: cannot be read as JSON (nested too deeply)") from exc
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, not JSON, or an integer too long to read
        raise DatasetError(f"{path}: cannot be read as JSON ({json_error_reason(exc)})") from exc


def csv_rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number where the row ends, row) for each data row of a CSV file with a header."""
    csv.field_size_limit(sys.maxsize)  # article bodies exceed the default field limit
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            for row in reader:
                yield reader.line_num, row
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not UTF-8 text (byte {exc.start} of a line cannot be decoded)") from exc
    except csv.Error as exc:
        raise DatasetError(f"{path}: not readable as CSV ({exc})") from exc


def field(row: dict[str, Any], name: str, where: str) -> Any:
    if name not in row:
        raise DatasetError(f"{where}: missing field {name!r}")
    return row[name]


def list_field(row: dict[str, Any], name: str, where: str) -> list[Any]:
    """A field that must hold a JSON list (a string would otherwise be read one character at a time)."""
    value = field(row, name, where)
    if not isinstance(value, list):
        raise DatasetError(f"{where}: field {name!r} should be a list, not {type(value).__name__}")
    return value


@contextmanager
def row_errors(where: str) -> Iterator[None]:
    """Report a row of the wrong shape (an object where a list belongs, a number where a text does) as a
    ``DatasetError`` naming the row, instead of letting the exception it causes escape."""
    try:
        yield
    except DatasetError:
        raise
    except (TypeError, AttributeError, ValueError, KeyError, IndexError) as exc:
        raise DatasetError(f"{where}: malformed row ({type(exc).__name__}: {exc})") from exc
