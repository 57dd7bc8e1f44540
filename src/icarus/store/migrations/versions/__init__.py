"""Alembic revisions, oldest first. A released revision is never edited; a change is a new revision."""
