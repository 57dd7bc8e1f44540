"""Canonical JSON and hashing: the same value always serialises to the same bytes."""

from __future__ import annotations

import hashlib
import json
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return format_decimal(value)
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot serialise {type(value).__name__} canonically")


def format_decimal(value: Decimal) -> str:
    """Fixed-point text with no exponent and no trailing zeros beyond one decimal place."""
    text = format(value.normalize(), "f")
    if "." not in text:
        text += ".0"
    return text


def canonical_json(value: Any) -> str:
    return json.dumps(value, default=_default, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def ledger_hash(ledger: BaseModel) -> str:
    """The hash a result names its ledger by: sha256 of the ledger's JSON as pydantic writes it."""
    return "sha256:" + hashlib.sha256(ledger.model_dump_json().encode()).hexdigest()


def code_hash(package_dir: Path) -> str:
    """Hash of every Python source file under a package: which code produced a result."""
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        digest.update(path.relative_to(package_dir).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()
