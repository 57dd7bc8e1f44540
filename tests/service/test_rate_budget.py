"""A limiter proxies cannot dodge: a flood that claims a new address on every request is refused by the
budget all anonymous callers share, token holders are never charged to it, and with Redis every API
process shares the counts."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from icarus.api import create_app
from icarus.api.cli import DEFAULT_TRUSTED_PROXIES, proxy_options
from icarus.http import page_limits
from icarus.http.limits import RateLimiter, RedisRateLimiter, limiter_for
from icarus.jobs.runner import JobRunner
from icarus.settings import Settings
from icarus.store.tokens import Role, TokenStore
from tests.service.test_list_reads import recorded_check

REDIS_ENV = "ICARUS_REDIS_URL"


def _spoofed() -> dict[str, str]:
    """A forwarded address no one has claimed before."""
    return {"X-Forwarded-For": f"198.51.{random.randrange(256)}.{random.randrange(1, 255)}"}


def _behind_a_trusting_proxy(runner: JobRunner, tmp_path: Path, **settings: Any) -> TestClient:
    """The app as it runs behind a proxy that forwards whatever X-Forwarded-For a client sends (the worst
    case: every claimed address is believed)."""
    app = create_app(Settings(data_dir=tmp_path, **settings), runner=runner, enqueue=lambda c, k: None)
    return TestClient(ProxyHeadersMiddleware(app, trusted_hosts="*"))


@pytest.fixture
def token(runner: JobRunner) -> str:
    return TokenStore(runner.store).create("poller", Role.API, datetime.now(UTC)).secret


@pytest.fixture(autouse=True)
def no_refusal_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page_limits, "REFUSAL_PAUSE_S", 0.0)  # the pause has its own test


def test_no_forwarding_header_is_trusted_by_default() -> None:
    assert proxy_options(DEFAULT_TRUSTED_PROXIES) == {"proxy_headers": False}


def test_a_spoofed_page_flood_is_refused_by_the_shared_budget_and_tokens_still_pass(
    runner: JobRunner, tmp_path: Path, token: str
) -> None:
    check_id = recorded_check(runner.store)
    with _behind_a_trusting_proxy(
        runner, tmp_path, page_rate_anonymous=5, page_rate_anonymous_total=8
    ) as client:
        answers = [client.get("/", headers=_spoofed()).status_code for _ in range(20)]
        assert answers[:8] == [200] * 8 and set(answers[8:]) == {429}
        refused = client.get(f"/checks/{check_id}", headers=_spoofed())
        assert refused.status_code == 429 and "without a token" in refused.text
        assert 1 <= int(refused.headers["retry-after"]) <= 61
        bearer = {"Authorization": f"Bearer {token}"}
        assert client.get(f"/v1/checks/{check_id}", headers=bearer | _spoofed()).status_code == 200
        assert client.get("/", headers=bearer | _spoofed()).status_code == 200  # a token's page load
        client.cookies.set("icarus_token", token)
        assert client.get(f"/checks/{check_id}", headers=_spoofed()).status_code == 200  # the page cookie
        client.cookies.clear()
        forged = client.get("/", headers={"Authorization": "Bearer icr_forged"} | _spoofed())
        assert forged.status_code == 429  # an invalid token is anonymous


def test_a_spoofed_api_flood_is_refused_by_the_shared_budget_and_tokens_still_pass(
    runner: JobRunner, tmp_path: Path, token: str
) -> None:
    check_id = recorded_check(runner.store)
    with _behind_a_trusting_proxy(
        runner, tmp_path, api_rate_anonymous=5, api_rate_anonymous_total=8
    ) as client:
        answers = [client.get(f"/v1/checks/{check_id}", headers=_spoofed()).status_code for _ in range(12)]
        assert answers[:8] == [200] * 8 and set(answers[8:]) == {429}
        assert "without a token" in client.get(f"/v1/checks/{check_id}", headers=_spoofed()).json()["detail"]
        guessed = client.get(f"/v1/checks/{check_id}", headers={"Authorization": "Bearer icr_guess"})
        assert guessed.status_code == 429  # guessing tokens spends the anonymous budget too
        bearer = {"Authorization": f"Bearer {token}"}
        assert [client.get(f"/v1/checks/{check_id}", headers=bearer).status_code for _ in range(20)] == [
            200
        ] * 20


def test_without_a_trusted_proxy_a_spoofed_flood_is_one_address(runner: JobRunner, tmp_path: Path) -> None:
    """Served the default way (no proxy trusted), the claimed addresses are ignored and the per-address
    limit refuses the flood before the shared budget is touched."""
    app = create_app(
        Settings(data_dir=tmp_path, page_rate_anonymous=3, page_rate_anonymous_total=100),
        runner=runner,
        enqueue=lambda c, k: None,
    )
    with TestClient(app) as client:
        answers = [client.get("/", headers=_spoofed()).status_code for _ in range(6)]
        assert answers == [200, 200, 200, 429, 429, 429]
        assert "from your address" in client.get("/", headers=_spoofed()).text


def test_the_in_process_limiter_counts_one_minute_windows() -> None:
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    assert [limiter.hit("k", 2) for _ in range(2)] == [None, None]
    assert limiter.hit("k", 2) == pytest.approx(60.0)
    assert limiter.hit("other", 2) is None  # keys count apart
    now[0] = 60.0
    assert limiter.hit("k", 2) is None  # a new window


def test_limiter_for_uses_redis_only_when_configured(tmp_path: Path) -> None:
    assert isinstance(limiter_for(Settings(data_dir=tmp_path, redis_url=None), "db"), RateLimiter)
    shared = limiter_for(Settings(data_dir=tmp_path, redis_url="redis://127.0.0.1:1/0"), "db-a")
    other = limiter_for(Settings(data_dir=tmp_path, redis_url="redis://127.0.0.1:1/0"), "db-b")
    assert isinstance(shared, RedisRateLimiter) and isinstance(other, RedisRateLimiter)
    assert shared.prefix != other.prefix  # deployments (databases) sharing one Redis never share counts


def test_an_unreachable_redis_falls_back_to_counting_in_this_process() -> None:
    limiter = RedisRateLimiter("redis://127.0.0.1:1/0", f"test:{uuid.uuid4().hex}")  # nothing listens
    assert [limiter.hit("k", 2) for _ in range(2)] == [None, None]
    assert limiter.hit("k", 2) is not None


@pytest.fixture
def redis_url() -> Iterator[str]:
    url = os.environ.get(REDIS_ENV, "")
    if not url.startswith("redis"):
        pytest.skip(f"{REDIS_ENV} is not set: the Redis-backed shared budget is not tested")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {REDIS_ENV} did not answer: {exc}")
    yield url


def test_two_limiters_on_one_redis_share_the_budget(redis_url: str) -> None:
    """Two API processes' limiters (two instances, two connections) spend one budget between them."""
    prefix = f"icarus:test:{uuid.uuid4().hex}"
    minute = 60.0 * 29_000_000 + 1.0  # one fixed moment, early in a window, so no window ends mid-test
    first = RedisRateLimiter(redis_url, prefix, clock=lambda: minute)
    second = RedisRateLimiter(redis_url, prefix, clock=lambda: minute)
    answers = [(first if n % 2 else second).hit("anonymous:pages", 6) for n in range(10)]
    assert answers[:6] == [None] * 6
    assert answers[6:] == [59.0] * 4
    assert RedisRateLimiter(redis_url, f"{prefix}-elsewhere").hit("anonymous:pages", 6) is None


def test_two_apps_on_one_redis_share_the_anonymous_budget(
    redis_url: str, runner: JobRunner, tmp_path: Path, token: str
) -> None:
    check_id = recorded_check(runner.store)
    settings = {"redis_url": redis_url, "page_rate_anonymous": 100, "page_rate_anonymous_total": 6}
    with (
        _behind_a_trusting_proxy(runner, tmp_path, **settings) as one,
        _behind_a_trusting_proxy(runner, tmp_path, **settings) as two,
    ):
        answers = [(one if n % 2 else two).get("/", headers=_spoofed()).status_code for n in range(10)]
        assert answers[:6] == [200] * 6 and set(answers[6:]) == {429}
        bearer = {"Authorization": f"Bearer {token}"}
        assert two.get(f"/v1/checks/{check_id}", headers=bearer).status_code == 200
