"""Alembic environment of the store. Revisions live in ``versions/``; run them with ``icarus.store.migrate``."""
