"""Opening a database already at the newest revision reads its version and leaves Alembic unloaded; any
other database (new, behind, or with revision files the quick reading does not understand) goes through
Alembic as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic import command

from icarus.store import Store, migrate
from icarus.store.engine import create_store_engine
from icarus.store.migrate import alembic_config, current_revision, head_in_files, head_revision, is_at_head

ROOT = Path(__file__).parents[2]


def _revision(folder: Path, name: str, down: str) -> None:
    (folder / f"{name}.py").write_text(
        f'"""{name}."""\n\nrevision: str = "{name}"\ndown_revision: str | None = {down}\n', encoding="utf-8"
    )


def test_the_head_read_from_the_files_is_alembics() -> None:
    assert head_in_files() is not None
    assert head_in_files() == head_revision()


def test_a_plain_chain_gives_its_newest_revision(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("", encoding="utf-8")
    _revision(tmp_path, "0001_a", "None")
    _revision(tmp_path, "0002_b", '"0001_a"')
    _revision(tmp_path, "0003_c", '"0002_b"')
    assert head_in_files(tmp_path) == "0003_c"


def test_two_heads_are_left_to_alembic(tmp_path: Path) -> None:
    _revision(tmp_path, "0001_a", "None")
    _revision(tmp_path, "0002_b", '"0001_a"')
    _revision(tmp_path, "0002_c", '"0001_a"')
    assert head_in_files(tmp_path) is None


def test_a_merge_revision_is_left_to_alembic(tmp_path: Path) -> None:
    _revision(tmp_path, "0001_a", "None")
    _revision(tmp_path, "0002_b", '"0001_a"')
    _revision(tmp_path, "0002_c", '"0001_a"')
    _revision(tmp_path, "0003_merge", '("0002_b", "0002_c")')
    assert head_in_files(tmp_path) is None


def test_a_file_without_a_readable_revision_is_left_to_alembic(tmp_path: Path) -> None:
    _revision(tmp_path, "0001_a", "None")
    (tmp_path / "0002_b.py").write_text(
        'revision = make_name()\ndown_revision = "0001_a"\n', encoding="utf-8"
    )
    assert head_in_files(tmp_path) is None


def test_a_missing_parent_is_left_to_alembic(tmp_path: Path) -> None:
    _revision(tmp_path, "0002_b", '"0001_a"')
    assert head_in_files(tmp_path) is None


def test_at_head_only_at_the_newest_revision(db_url: str) -> None:
    engine = create_store_engine(db_url)
    try:
        assert not is_at_head(engine)  # no alembic_version table yet
        migrate(db_url)
        assert is_at_head(engine)
        config = alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "-1")
        assert not is_at_head(engine)
        Store(db_url).open().close()  # one revision behind: Alembic brings it up again
        assert is_at_head(engine)
        with engine.connect() as connection:
            assert current_revision(connection) == head_revision()
    finally:
        engine.dispose()


def _alembic_loaded_by_opening(url: str) -> bool:
    probe = (
        "import sys\nfrom icarus.store import Store\n"
        f"Store({url!r}).open().close()\nprint('alembic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return done.stdout.strip().splitlines()[-1] == "True"


def test_opening_a_database_at_head_loads_no_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'icarus.db'}"
    assert _alembic_loaded_by_opening(url)  # a new database is created through Alembic
    assert not _alembic_loaded_by_opening(url)
