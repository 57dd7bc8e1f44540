"""The shared JSON Lines reader: blank lines skipped but counted, the caller's error naming the line."""

from __future__ import annotations

import pytest

from icarus.jsonlines import json_objects


class _Bad(ValueError):
    pass


def test_objects_come_with_their_line_numbers_blank_lines_counted() -> None:
    lines = ['{"a": 1}\n', "\n", "   \n", '{"b": 2}\n']
    assert list(json_objects(lines, "f.jsonl", _Bad)) == [(1, {"a": 1}), (4, {"b": 2})]


@pytest.mark.parametrize(
    ("bad", "message"),
    [("{oops\n", "f.jsonl:2: not valid JSON"), ('"text"\n', "f.jsonl:2: expected a JSON object")],
)
def test_the_first_bad_line_raises_the_callers_error(bad: str, message: str) -> None:
    with pytest.raises(_Bad, match=message):
        list(json_objects(['{"a": 1}\n', bad, '{"b": 2}\n'], "f.jsonl", _Bad))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("[" * 100_000 + "]" * 100_000 + "\n", r"f.jsonl:2: not valid JSON \(nested too deeply\)"),
        ('{"n": ' + "9" * 5000 + "}\n", r"f.jsonl:2: not valid JSON \(Exceeds the limit \(4300 digits\)"),
    ],
)
def test_a_line_nested_too_deeply_or_with_an_over_long_integer_raises_the_callers_error(
    bad: str, message: str
) -> None:
    with pytest.raises(_Bad, match=message):
        list(json_objects(['{"a": 1}\n', bad], "f.jsonl", _Bad))
