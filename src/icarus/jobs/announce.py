"""Where a check's later versions are announced: every announcer installed in the ``icarus.announcers``
entry-point group, in name order.

An announcer is ``(check_id, version, result, settings) -> object``. The X bot's follow-up is one, declared
in this project's own ``pyproject.toml``; outside code adds its own the same way. The runner finds them by
name, so the job package never imports the doors that announce (the X bot sits above it).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Final

from icarus.settings import Settings

__all__ = ["ANNOUNCERS_GROUP", "announce_everywhere", "installed_announcers"]

ANNOUNCERS_GROUP: Final = "icarus.announcers"


@cache
def installed_announcers() -> tuple[EntryPoint, ...]:
    """The installed announcers, by name (read once per process)."""
    return tuple(sorted(entry_points(group=ANNOUNCERS_GROUP), key=lambda point: point.name))


def announce_everywhere(
    check_id: str, version: int, result: Mapping[str, Any], settings: Settings
) -> list[object]:
    """Tell every installed announcer of a newly recorded version; what each answered, in name order.
    Each is looked up when called, so a replaced function (a test's stand-in) is the one that runs."""
    return [point.load()(check_id, version, result, settings) for point in installed_announcers()]
