"""JSON Lines with line-numbered errors: one object per non-blank line, or the caller's error naming the line.

Shared by the evaluation's dataset readers and the stance judges' pairs files, which raise their own error
types.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["json_error_reason", "json_objects"]


def json_objects(
    lines: Iterable[str], where: object, error: type[Exception]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line; ``error("<where>:<line>: …")`` at the first line that
    is not valid JSON or not a JSON object."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise error(f"{where}:{number}: not valid JSON ({exc.msg})") from exc
        except RecursionError as exc:
            raise error(f"{where}:{number}: not valid JSON (nested too deeply)") from exc
        except ValueError as exc:  # an integer literal longer than Python converts
            raise error(f"{where}:{number}: not valid JSON ({json_error_reason(exc)})") from exc
        if not isinstance(row, dict):
            raise error(f"{where}:{number}: expected a JSON object")
        yield number, row


def json_error_reason(exc: BaseException) -> str:
    """What a JSON reader's error says, up to its first ";": an over-long integer literal's ``ValueError`` goes
    on to advise raising ``sys.set_int_max_str_digits``, which is for programmers, not for whoever sent the
    file or answer."""
    return str(exc).split(";")[0]
