"""Rules a request model's published JSON schema states, so the schema is exactly as strict as validation.

Pydantic publishes a field typed ``X | None`` as nullable and knows nothing of a model validator's rules
("exactly one of text, url, post, payload"). The server refuses such requests, so a client reading the
schema would be misled. These functions rewrite a model's schema (``json_schema_extra``) to say what the
validators enforce:

- ``not_nullable``: fields that may be left out but never sent as null;
- ``exactly_one_of``: exactly one of several fields is given (present and not null), as a ``oneOf`` whose
  branches exclude each other, with fields that only make sense beside one of them (``needs``);
- ``not_both``: two fields that exclude each other; ``only_with``: a field given only beside a value of
  another;
- ``SPACE_CLASS``: the characters Python's ``str.isspace`` is true for, as a regular-expression class
  body that reads the same in ECMA 262 (the schema's dialect) and Python, so a pattern that refuses
  "whitespace" refuses what the server's ``isspace``/``\\s`` checks refuse, no more and no less.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

__all__ = [
    "SPACE_CLASS",
    "JsonSchema",
    "exactly_one_of",
    "not_both",
    "not_nullable",
    "only_with",
    "schema_rules",
]

JsonSchema = dict[str, Any]
SchemaRule = Callable[[JsonSchema], None]

# Python's whitespace (str.isspace): ASCII tab to carriage return, the four information separators,
# space, NEL, no-break space and the Unicode spaces and separators. Spelled with escapes both dialects read.
SPACE_CLASS: Final = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NULL: Final[JsonSchema] = {"type": "null"}
NOT_NULL: Final[JsonSchema] = {"not": {"type": "null"}}


def schema_rules(*rules: SchemaRule) -> SchemaRule:
    """One ``json_schema_extra`` applying each rule in turn."""

    def apply(schema: JsonSchema) -> None:
        for rule in rules:
            rule(schema)

    return apply


def not_nullable(*names: str) -> SchemaRule:
    """Each named field published without its null branch (and without a null default): it may be left
    out, but null is refused."""

    def rule(schema: JsonSchema) -> None:
        properties: dict[str, JsonSchema] = schema.get("properties", {})
        for name in names:
            field = properties[name]  # a KeyError here is a rule naming a field the model lacks
            branches = [branch for branch in field.pop("anyOf", []) if branch != NULL]
            if len(branches) == 1:
                field.update(branches[0])
            elif branches:
                field["anyOf"] = branches
            if field.get("default", ...) is None:
                del field["default"]

    return rule


def exactly_one_of(names: Sequence[str], needs: Mapping[str, str] | None = None) -> SchemaRule:
    """Exactly one of ``names`` is given (present and not null). ``needs`` maps a field to the one of
    ``names`` it needs: given beside any other, it is refused too."""
    needs = dict(needs or {})

    def rule(schema: JsonSchema) -> None:
        branches = []
        for name in names:
            properties: dict[str, JsonSchema] = {name: NOT_NULL}
            properties |= {other: NULL for other in names if other != name}
            properties |= {extra: NULL for extra, needed in needs.items() if needed != name}
            branches.append({"required": [name], "properties": properties})
        schema["oneOf"] = branches

    return rule


def not_both(first: str, second: str) -> SchemaRule:
    """``first`` and ``second`` are never both given (either, or neither, may be)."""

    def rule(schema: JsonSchema) -> None:
        both = {"required": [first, second], "properties": {first: NOT_NULL, second: NOT_NULL}}
        schema.setdefault("allOf", []).append({"not": both})

    return rule


def only_with(field: str, other: str, value: str) -> SchemaRule:
    """``field`` is given (not null) only where ``other`` is ``value``."""

    def rule(schema: JsonSchema) -> None:
        given = {"required": [field], "properties": {field: NOT_NULL}}
        schema.setdefault("allOf", []).append(
            {"if": given, "then": {"properties": {other: {"const": value}}}}
        )

    return rule
