"""The X bot: answers mentions with a check of the tagged post's direct parent, and follows up when the
four-label conclusion changes on a later version. ``icarus x-bot`` runs it; each check is a service check
request, so the service's rechecks reach it and call ``follow_up_on_new_version``."""

from icarus.xbot.api import MentionPage, XBotApi, XBotApiError, XRateLimited
from icarus.xbot.bot import CheckedVersion, Checker, PollReport, XBot
from icarus.xbot.service import (
    BotNotConfigured,
    bot_from_settings,
    follow_up_on_new_version,
    pipeline_checker,
    service_checker,
)
from icarus.xbot.state import BotState, MentionRecord
from icarus.xbot.text import Conclusion, conclusion_reply, follow_up_reply, refusal_reply

__all__ = [
    "BotNotConfigured",
    "BotState",
    "CheckedVersion",
    "Checker",
    "Conclusion",
    "MentionPage",
    "MentionRecord",
    "PollReport",
    "XBot",
    "XBotApi",
    "XBotApiError",
    "XRateLimited",
    "bot_from_settings",
    "conclusion_reply",
    "follow_up_on_new_version",
    "follow_up_reply",
    "pipeline_checker",
    "refusal_reply",
    "service_checker",
]
