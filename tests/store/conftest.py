"""Fixtures for the store tests: every test runs on SQLite, and on PostgreSQL when CI provides one.

PostgreSQL tests use a throwaway schema per test (selected through the connection's search_path) and drop
it afterwards, so they can share one database with other test runs.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from icarus.ledger import Ledger, load_ledger
from icarus.scoring.icarus.config import PolicyConfig, load_policy
from icarus.scoring.icarus.engine import score_ledger
from icarus.store import Store
from icarus.store.engine import create_store_engine, normalise_url

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "two-independent-wires.json"
PG_ENV = "ICARUS_DATABASE_URL"

Scored = tuple[Ledger, dict[str, Any]]


@pytest.fixture(scope="session")
def policy() -> PolicyConfig:
    return load_policy("icarus@1.1")


@pytest.fixture(scope="session")
def first(policy: PolicyConfig) -> Scored:
    ledger = load_ledger(FIXTURE)
    return ledger, score_ledger(ledger, policy)


def rescored(base: Ledger, policy: PolicyConfig, days: int) -> Scored:
    """The same evidence looked at ``days`` later: a different ledger hash, trace and (maybe) band."""
    ledger = base.model_copy(update={"as_of": base.as_of + timedelta(days=days)})
    return ledger, score_ledger(ledger, policy)


@pytest.fixture(scope="session")
def later(first: Scored, policy: PolicyConfig) -> Scored:
    return rescored(first[0], policy, 40)


def _postgres_url() -> Iterator[str]:
    raw = os.environ.get(PG_ENV, "")
    if not raw.startswith("postgres"):
        pytest.skip(f"{PG_ENV} is not a PostgreSQL URL; PostgreSQL store tests skipped")
    schema = f"icarus_test_{uuid.uuid4().hex[:12]}"
    admin = create_store_engine(raw)
    try:
        with admin.begin() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    except OperationalError as exc:
        admin.dispose()
        pytest.skip(f"PostgreSQL at {PG_ENV} refused the connection: {exc.orig}")
    url = normalise_url(raw).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'icarus.db'}"
    else:
        yield from _postgres_url()


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    opened = Store(db_url).open()
    yield opened
    opened.close()
