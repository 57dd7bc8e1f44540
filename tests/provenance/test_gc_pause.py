"""The collector pause around graph building: always restored, shared by overlapping callers."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from icarus.provenance import build_graph
from icarus.provenance.gc_pause import collection_paused
from icarus.scoring.icarus.config import load_policy
from tests.builders import item


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_inside_and_back_on_after_even_on_error() -> None:
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_a_collector_the_caller_had_switched_off_stays_off() -> None:
    gc.disable()
    with collection_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_pauses_end_with_the_last_one() -> None:
    outer = collection_paused()
    outer.__enter__()
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the outer caller is still building
    outer.__exit__(None, None, None)
    assert gc.isenabled()


def test_threads_building_at_once_leave_the_collector_on() -> None:
    inside = threading.Barrier(2)
    release = threading.Event()
    seen: list[bool] = []

    def build() -> None:
        with collection_paused():
            inside.wait()
            release.wait()
            seen.append(gc.isenabled())

    threads = [threading.Thread(target=build) for _ in range(2)]
    for thread in threads:
        thread.start()
    release.set()
    for thread in threads:
        thread.join()
    assert seen == [False, False] and gc.isenabled()


def test_building_a_graph_leaves_the_collector_as_it_was() -> None:
    settings = load_policy("icarus@1.1").provenance
    build_graph([item("a"), item("b")], [], settings)
    assert gc.isenabled()
    gc.disable()
    build_graph([item("a"), item("b")], [], settings)
    assert not gc.isenabled()
