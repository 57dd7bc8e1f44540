"""The bot wired from settings: the service's check requests as its checker, and the hook rechecks call.

A mention is checked as the API checks a payload (``POST /v1/checks`` with ``payload``): the bot submits the
tagging reply to the service's ``JobRunner`` and runs the first run itself, so the check is a service check
request like any other. Its planned rechecks run on ``icarus worker``, ``POST /v1/checks/{id}/rechecks`` and
corrections reach it, schedule repair walks it, and its versions and events are the service's timeline.

``follow_up_on_new_version(check_id, version, result)`` is what the runner calls after it records a later
version (recheck or correction): it posts in the bot's threads about that check only if the four-label
conclusion changed, and does nothing (no network) when the bot never answered about the check.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from icarus.jobs.inputs import CheckInput
from icarus.jobs.schedule import FIRST_RUN
from icarus.ledger import Subject
from icarus.settings import Settings
from icarus.store.tables import RequestState
from icarus.xbot.api import XBotApi
from icarus.xbot.bot import CheckedVersion, Checker, XBot
from icarus.xbot.state import BotState

if TYPE_CHECKING:
    from icarus.jobs.runner import JobRunner

__all__ = [
    "FIRST_RUN_WAIT_S",
    "BotNotConfigured",
    "bot_from_settings",
    "follow_up_on_new_version",
    "pipeline_checker",
    "service_checker",
]

log = logging.getLogger("icarus.xbot")


class BotNotConfigured(ValueError):
    """A setting the bot needs is missing; the message names it."""


FIRST_RUN_WAIT_S = 600.0
"""How long the bot waits for a first run a worker claimed before it (both may see it due)."""
_WAIT_STEP_S = 1.0


def service_checker(
    runner: JobRunner,
    *,
    wait_s: float = FIRST_RUN_WAIT_S,
    sleep: Callable[[float], None] = time.sleep,
) -> Checker:
    """Check a mention as a service check request: submit its payload to ``runner``, run the first run
    here, and answer with the version it recorded. The check's H4 review requests and planned rechecks
    are the runner's, as for any API check. Raises when the first run recorded nothing (capture failed,
    or search was down and a retry is scheduled): the bot then marks the mention ``check_failed``."""

    def check(subject: Subject, now: datetime, payload: Mapping[str, Any]) -> CheckedVersion:
        check_id = runner.submit(CheckInput(payload=dict(payload)))
        outcome = runner.run(check_id, FIRST_RUN)
        if outcome.startswith(("error", "gave up")):
            raise RuntimeError(f"check {check_id}: {outcome}")  # the worker retries it; no reply now
        waited = 0.0
        while True:
            request = runner.service.request(check_id)
            if request.state is RequestState.RECORDED:
                latest = runner.store.latest(check_id)
                return CheckedVersion(check_id, latest.version, latest.result())
            if request.state is RequestState.FAILED:
                raise RuntimeError(f"check {check_id} failed: {request.state_reason}: {request.detail}")
            if request.state is RequestState.PENDING and request.state_reason is not None:
                # held for a search retry: a later version will exist, but there is nothing to announce yet
                raise RuntimeError(f"check {check_id} is held: {request.state_reason}: {request.detail}")
            if waited >= wait_s:
                raise RuntimeError(f"check {check_id} recorded nothing within {wait_s:.0f} s")
            sleep(_WAIT_STEP_S)  # a worker claimed the first run before this process did
            waited += _WAIT_STEP_S

    return check


def pipeline_checker(settings: Settings) -> Checker:
    """The service checker on the configured store and services (``settings_services``, the registry
    with ``ICARUS_REPUTATION_FILES``). The store and the services are opened at the first check, so a
    poll with nothing new loads nothing."""
    from icarus.jobs.runner import JobRunner, RunnerConfig, settings_services
    from icarus.store import Store

    runners: list[JobRunner] = []

    def check(subject: Subject, now: datetime, payload: Mapping[str, Any]) -> CheckedVersion:
        if not runners:
            store = Store(settings.resolved_database_url).open()
            runner = JobRunner(
                store,
                settings_services(settings),
                config=RunnerConfig.from_settings(settings),
                settings=settings,
            )
            runners.append(runner)
        return service_checker(runners[0])(subject, now, payload)

    return check


def _api(settings: Settings) -> XBotApi:
    if settings.x_bot_access_token is None:
        raise BotNotConfigured("the X bot needs ICARUS_X_BOT_ACCESS_TOKEN (an OAuth 2.0 user-context token)")
    return XBotApi(settings.x_bot_access_token, settings.x_api_url)


def bot_from_settings(settings: Settings, checker: Checker | None = None) -> XBot:
    """The bot as configured. ``checker`` defaults to ``pipeline_checker(settings)``."""
    if not settings.x_bot_user_id or not settings.x_bot_user_id.isdigit():
        raise BotNotConfigured("the X bot needs ICARUS_X_BOT_USER_ID (the bot account's numeric user id)")
    api = _api(settings)
    return XBot(
        api,
        BotState(settings.resolved_x_bot_state_path),
        checker or pipeline_checker(settings),
        bot_user_id=settings.x_bot_user_id,
        public_url=settings.public_url,
    )


def follow_up_on_new_version(
    check_id: str, version: int, result: Mapping[str, Any], settings: Settings | None = None
) -> list[str]:
    """Follow up on X about a newly recorded version, if the bot ever announced this check. Returns the
    ids of the posts made (empty when nothing changed, the bot never answered, or it is not configured)."""
    settings = settings or Settings()
    path = settings.resolved_x_bot_state_path
    if not path.exists():
        return []
    with BotState(path) as state:
        if not state.threads_for(check_id) or settings.x_bot_access_token is None:
            return []
        with _api(settings) as api:
            bot = XBot(
                api,
                state,
                _no_checker,
                bot_user_id=settings.x_bot_user_id or "0",
                public_url=settings.public_url,
            )
            return bot.follow_up(check_id, version, result)


def _no_checker(subject: Subject, now: datetime, payload: Mapping[str, Any]) -> CheckedVersion:
    raise RuntimeError("follow-ups never run a check")
