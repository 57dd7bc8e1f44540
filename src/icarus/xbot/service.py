"""The bot wired from settings: the pipeline as its checker, and the hook rechecks call.

``follow_up_on_new_version(check_id, version, result)`` is what the service calls after it records a
recheck or correction: it posts in the bot's threads about that check only if the four-label conclusion
changed, and does nothing (no network) when the bot never answered about the check.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from icarus.ledger import Subject
from icarus.reputation.review import enqueue_from_result
from icarus.settings import Settings
from icarus.xbot.api import XBotApi
from icarus.xbot.bot import CheckedVersion, Checker, XBot
from icarus.xbot.state import BotState

__all__ = ["BotNotConfigured", "bot_from_settings", "follow_up_on_new_version", "pipeline_checker"]

log = logging.getLogger("icarus.xbot")


class BotNotConfigured(ValueError):
    """A setting the bot needs is missing; the message names it."""


def pipeline_checker(settings: Settings) -> Checker:
    """Run the full check on the configured providers and record it in the store. The services (judge,
    providers, store, the registry with ``ICARUS_REPUTATION_FILES``) are built at the first check, so a
    poll with nothing new loads nothing. The check's H4 review requests go to the review queue; a queue
    that cannot be written is logged, and the reply is still posted."""
    from icarus.pipeline.check import CheckServices, run_check
    from icarus.pipeline.services import build_services

    built: list[CheckServices] = []

    def check(subject: Subject, now: datetime) -> CheckedVersion:
        if not built:
            built.append(build_services(settings))
        output = run_check(subject, built[0], now)
        if output.version is None:
            raise RuntimeError("the check was not recorded (no store configured)")
        path = settings.resolved_review_queue_path
        try:
            enqueue_from_result(output.result, output.ledger, path, now)
        except Exception:
            log.exception("review queue %s not written for check %s", path, output.version.check_id)
        return CheckedVersion(output.version.check_id, output.version.version, output.result)

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


def _no_checker(subject: Subject, now: datetime) -> CheckedVersion:
    raise RuntimeError("follow-ups never run a check")
