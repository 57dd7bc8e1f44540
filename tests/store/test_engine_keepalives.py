"""PostgreSQL connections carry a connect timeout and TCP keepalives on both ends, so a vanished host is
noticed in seconds rather than hours; settings an operator's URL names are left to the URL."""

from __future__ import annotations

import os
import uuid

import psycopg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from icarus.store.engine import (
    PG_CONNECT_TIMEOUT_S,
    PG_KEEPALIVE_COUNT,
    PG_KEEPALIVE_IDLE_S,
    PG_KEEPALIVE_INTERVAL_S,
    create_store_engine,
    normalise_url,
    postgres_connect_args,
)

PG_ENV = "ICARUS_DATABASE_URL"


def test_a_plain_url_gets_the_timeout_and_keepalives_on_both_ends() -> None:
    args = postgres_connect_args(make_url("postgresql+psycopg://db.example/icarus"))
    assert args["connect_timeout"] == PG_CONNECT_TIMEOUT_S
    assert (args["keepalives"], args["keepalives_idle"]) == (1, PG_KEEPALIVE_IDLE_S)
    assert (args["keepalives_interval"], args["keepalives_count"]) == (
        PG_KEEPALIVE_INTERVAL_S,
        PG_KEEPALIVE_COUNT,
    )
    assert f"-c tcp_keepalives_idle={PG_KEEPALIVE_IDLE_S}" in args["options"]


def test_what_the_url_names_is_left_to_it_and_its_server_options_are_kept() -> None:
    url = make_url("postgresql+psycopg://db.example/icarus?connect_timeout=2&options=-csearch_path%3Dmine")
    args = postgres_connect_args(url)
    assert "connect_timeout" not in args
    assert args["options"].startswith("-csearch_path=mine ")
    assert "tcp_keepalives_count" in args["options"]
    own = make_url("postgresql+psycopg://db.example/icarus?options=-c%20tcp_keepalives_idle%3D60")
    assert "options" not in postgres_connect_args(own)


def test_a_store_connection_to_postgresql_runs_with_the_server_keepalives() -> None:
    raw = os.environ.get(PG_ENV, "")
    if not raw.startswith("postgres"):
        pytest.skip(f"{PG_ENV} is not a PostgreSQL URL; the live keepalive check is skipped")
    try:  # reachable at all? (probed without the store's settings, so a bad setting of ours still fails)
        psycopg.connect(raw, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL at {PG_ENV} refused the connection: {exc}")
    schema = f"icarus_keepalive_{uuid.uuid4().hex[:8]}"
    url = normalise_url(raw).update_query_dict({"options": f"-csearch_path={schema}"})
    engine = create_store_engine(url)
    try:
        with engine.connect() as connection:
            idle = connection.execute(text("SHOW tcp_keepalives_idle")).scalar_one()
            path = connection.execute(text("SHOW search_path")).scalar_one()
    finally:
        engine.dispose()
    assert str(idle).rstrip("s") == str(PG_KEEPALIVE_IDLE_S)
    assert path == schema
