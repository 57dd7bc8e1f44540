"""What the bot remembers between runs, in a small SQLite file of its own.

* ``cursor``: the newest mention id read (``since_id`` of the next poll).
* ``mentions``: one row per mention ever read, keyed by its id, so a restart never answers one twice.
  Its ``status`` says how far it got: ``checking`` (being checked, or the process stopped during the
  check: no reply was posted), ``check_failed`` (the check raised; logged, not retried), ``replying`` (a
  reply was being posted when the process stopped: it may or may not be on X, so it is never retried),
  ``replied``, ``failed`` (X refused the reply; retried at each poll up to ``MAX_ATTEMPTS`` attempts),
  ``refused`` (the parent could not be read and the bot said so), ``ignored`` (no parent, or the bot's own
  post).
* ``announcements``: every reply and follow-up posted, with the check, version and label it announced.
  A follow-up for a version is recorded before it is posted, so one version is never announced twice.

A mention's ``label`` is the four-label conclusion the thread last told people; a follow-up goes out only
when a later version's conclusion differs from it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Final

from icarus.xbot.text import Conclusion

__all__ = ["MAX_ATTEMPTS", "BotState", "MentionRecord"]

MAX_ATTEMPTS: Final = 3

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS cursor (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS mentions (
    mention_id TEXT PRIMARY KEY,
    parent_id TEXT,
    status TEXT NOT NULL,
    check_id TEXT,
    version INTEGER,
    label TEXT,
    band TEXT,
    as_of TEXT,
    claims INTEGER,
    thread_tip TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    detail TEXT NOT NULL DEFAULT '',
    read_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS mentions_check ON mentions (check_id);
CREATE INDEX IF NOT EXISTS mentions_parent ON mentions (parent_id);
CREATE TABLE IF NOT EXISTS announcements (
    mention_id TEXT NOT NULL,
    check_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    label TEXT NOT NULL,
    kind TEXT NOT NULL,
    post_id TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (mention_id, check_id, version)
);
"""


@dataclass(frozen=True)
class MentionRecord:
    mention_id: str
    parent_id: str | None
    status: str
    check_id: str | None
    version: int | None
    label: str | None
    band: str | None
    as_of: str | None
    claims: int | None
    thread_tip: str | None  # the bot's latest post in this thread: where a follow-up goes
    attempts: int
    detail: str

    @property
    def conclusion(self) -> Conclusion | None:
        if self.label is None or self.band is None or self.as_of is None or self.claims is None:
            return None
        return Conclusion(self.label, self.band, self.as_of, self.claims)


class BotState:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> BotState:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # --- cursor ----------------------------------------------------------------------------------------

    def since_id(self) -> str | None:
        row = self._db.execute("SELECT value FROM cursor WHERE name = 'since_id'").fetchone()
        return None if row is None else str(row[0])

    def advance(self, newest_id: str) -> None:
        """Move the cursor forward to ``newest_id``; never backwards."""
        current = self.since_id()
        if current is not None and int(current) >= int(newest_id):
            return
        with self._tx() as db:
            db.execute(
                "INSERT INTO cursor (name, value) VALUES ('since_id', ?) "
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                (newest_id,),
            )

    # --- mentions --------------------------------------------------------------------------------------

    def claim(self, mention_id: str, parent_id: str | None, now: datetime) -> bool:
        """Record a newly read mention as ``checking``; False if it was read before (any status)."""
        with self._tx() as db:
            inserted = db.execute(
                "INSERT OR IGNORE INTO mentions (mention_id, parent_id, status, read_at, updated_at) "
                "VALUES (?, ?, 'checking', ?, ?)",
                (mention_id, parent_id, now.isoformat(), now.isoformat()),
            )
            return inserted.rowcount == 1

    def mention(self, mention_id: str) -> MentionRecord | None:
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM mentions WHERE mention_id = ?", (mention_id,)
        ).fetchone()
        return None if row is None else MentionRecord(*row)

    def retryable(self) -> list[MentionRecord]:
        """Mentions whose reply X refused, under the attempt limit: surely not on X, so safe to retry."""
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM mentions WHERE status = 'failed' AND check_id IS NOT NULL "
            "AND attempts < ? ORDER BY CAST(mention_id AS INTEGER)",
            (MAX_ATTEMPTS,),
        ).fetchall()
        return [MentionRecord(*row) for row in rows]

    def answered_parent(self, parent_id: str) -> MentionRecord | None:
        """An earlier mention about the same post that already has a check (its conclusion is reused)."""
        row = self._db.execute(
            f"SELECT {_COLUMNS} FROM mentions WHERE parent_id = ? AND check_id IS NOT NULL "
            "AND status = 'replied' ORDER BY CAST(mention_id AS INTEGER) DESC LIMIT 1",
            (parent_id,),
        ).fetchone()
        return None if row is None else MentionRecord(*row)

    def set_status(self, mention_id: str, status: str, now: datetime, detail: str = "") -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE mentions SET status = ?, detail = ?, updated_at = ? WHERE mention_id = ?",
                (status, detail[:500], now.isoformat(), mention_id),
            )

    def replying(
        self, mention_id: str, check_id: str, version: int, conclusion: Conclusion, now: datetime
    ) -> None:
        """About to post the first reply: from here on a crash leaves the mention un-retried."""
        with self._tx() as db:
            db.execute(
                "UPDATE mentions SET status = 'replying', check_id = ?, version = ?, label = ?, band = ?, "
                "as_of = ?, claims = ?, attempts = attempts + 1, updated_at = ? WHERE mention_id = ?",
                (
                    check_id,
                    version,
                    conclusion.label,
                    conclusion.band,
                    conclusion.as_of,
                    conclusion.claims,
                    now.isoformat(),
                    mention_id,
                ),
            )

    def replied(self, mention_id: str, post_id: str, now: datetime) -> None:
        with self._tx() as db:
            row = db.execute(
                "SELECT check_id, version, label FROM mentions WHERE mention_id = ?", (mention_id,)
            ).fetchone()
            db.execute(
                "UPDATE mentions SET status = 'replied', thread_tip = ?, detail = '', updated_at = ? "
                "WHERE mention_id = ?",
                (post_id, now.isoformat(), mention_id),
            )
            db.execute(
                "INSERT OR IGNORE INTO announcements VALUES (?, ?, ?, ?, 'reply', ?, ?)",
                (mention_id, row[0], row[1], row[2], post_id, now.isoformat()),
            )

    # --- follow-ups ------------------------------------------------------------------------------------

    def threads_for(self, check_id: str) -> list[MentionRecord]:
        rows = self._db.execute(
            f"SELECT {_COLUMNS} FROM mentions WHERE check_id = ? AND status = 'replied' "
            "ORDER BY CAST(mention_id AS INTEGER)",
            (check_id,),
        ).fetchall()
        return [MentionRecord(*row) for row in rows]

    def reserve_follow_up(
        self, mention_id: str, check_id: str, version: int, label: str, now: datetime
    ) -> bool:
        """Record that ``version`` is being announced in this thread; False if it already was."""
        with self._tx() as db:
            inserted = db.execute(
                "INSERT OR IGNORE INTO announcements VALUES (?, ?, ?, ?, 'follow_up', NULL, ?)",
                (mention_id, check_id, version, label, now.isoformat()),
            )
            return inserted.rowcount == 1

    def followed_up(
        self,
        mention_id: str,
        check_id: str,
        version: int,
        conclusion: Conclusion,
        post_id: str,
        now: datetime,
    ) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE announcements SET post_id = ? WHERE mention_id = ? AND check_id = ? AND version = ?",
                (post_id, mention_id, check_id, version),
            )
            db.execute(
                "UPDATE mentions SET label = ?, band = ?, as_of = ?, claims = ?, version = ?, thread_tip = ?, "
                "updated_at = ? WHERE mention_id = ?",
                (
                    conclusion.label,
                    conclusion.band,
                    conclusion.as_of,
                    conclusion.claims,
                    version,
                    post_id,
                    now.isoformat(),
                    mention_id,
                ),
            )

    def announcements(self, check_id: str) -> list[tuple[str, int, str, str, str | None]]:
        """(mention id, version, label, kind, post id) for every announcement about ``check_id``."""
        rows = self._db.execute(
            "SELECT mention_id, version, label, kind, post_id FROM announcements WHERE check_id = ? "
            "ORDER BY version, CAST(mention_id AS INTEGER)",
            (check_id,),
        ).fetchall()
        return [(str(r[0]), int(r[1]), str(r[2]), str(r[3]), r[4]) for r in rows]

    def counts(self) -> dict[str, int]:
        rows = self._db.execute("SELECT status, COUNT(*) FROM mentions GROUP BY status").fetchall()
        return {str(status): int(count) for status, count in rows}


_COLUMNS: Final = "mention_id, parent_id, status, check_id, version, label, band, as_of, claims, thread_tip, attempts, detail"
