"""Putting many requests to one judge at once.

A check judges every evidence item it found against its claims, and an evaluation judges thousands of
pairs. Judged one after another, a judge that waits (an LLM endpoint answering over the network) or one
whose model runs outside Python's interpreter lock (onnxruntime) leaves the machine idle. ``judge_all``
runs such requests on a few threads and returns the answers in the order of the inputs, so results never
depend on which thread finished first.

A judge opts in by implementing ``ParallelJudge``: ``parallel_worker`` names the judge the threads share
(the judge itself, or a twin set up for many callers) and how many threads are worth running for that many
requests. Judges that
do not (the lexical and WordLlama judges compute in Python, where threads would only queue for the lock)
are asked one request at a time, exactly as before. Every request is independent and each judge answers it
the same way on any thread, so ``judge_all`` gives the answers a loop would (tests check this for the
shipped judges).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar, runtime_checkable

from icarus.judges.protocol import Judge

__all__ = ["ParallelJudge", "WrappedTwin", "expect_requests", "judge_all", "worker_plan"]

Input = TypeVar("Input")
Result = TypeVar("Result")


@runtime_checkable
class ParallelJudge(Protocol):
    """A judge that answers requests from several threads at once faster than one after another."""

    def parallel_worker(self, requests: int) -> tuple[Judge, int]:
        """For ``requests`` requests at once: the judge the worker threads share, and how many threads are
        worth running (1 when setting threads up would cost more than it saves)."""
        ...


class WrappedTwin:
    """For a judge wrapped around a base judge: the same wrapper around the base's parallel twin, built once
    (``wrap(twin)``) and then shared. A wrapper that keeps no state between requests may be used by the
    twin's threads as it is."""

    def __init__(self, wrap: Callable[[Judge], Judge]) -> None:
        self._wrap = wrap
        self._twin: Judge | None = None
        self._lock = threading.Lock()

    def plan(self, wrapper: Judge, base: Judge, requests: int) -> tuple[Judge, int]:
        """``wrapper``'s ``parallel_worker``: itself with one thread when ``base`` does not opt in, itself with
        ``base``'s threads when ``base`` shares itself, else the wrapped twin."""
        ask = getattr(base, "parallel_worker", None)
        if ask is None:
            return wrapper, 1
        worker, threads = ask(requests)
        if worker is base:
            return wrapper, threads
        with self._lock:
            if self._twin is None:
                self._twin = self._wrap(worker)
        return self._twin, threads


def worker_plan(judge: Judge, requests: int) -> tuple[Judge, int]:
    """The judge to ask and the number of threads for ``requests`` requests: one thread (and ``judge``
    itself) unless the judge opts in and there is more than one request."""
    if requests < 2 or not isinstance(judge, ParallelJudge):
        return judge, 1
    worker, threads = judge.parallel_worker(requests)
    threads = max(1, min(threads, requests))
    return (worker, threads) if threads > 1 else (judge, 1)


def expect_requests(judge: Judge, count: int) -> None:
    """Let ``judge`` set up once for about ``count`` requests to come in small batches (an evaluation asks
    a handful per claim, over thousands of claims), as it would for one batch that large."""
    worker_plan(judge, count)


def judge_all(
    judge: Judge,
    ask: Callable[[Judge, Input], Result],
    inputs: Sequence[Input],
    advance: Callable[[], None] | None = None,
) -> list[Result]:
    """``ask(judge, x)`` for every ``x`` in ``inputs``, in their order; on several threads when the judge
    opts in (module docstring). ``advance`` is called once per answer, in input order. An exception raised
    by ``ask`` propagates (judges fail closed, so this is a defect, not a bad answer)."""
    worker, threads = worker_plan(judge, len(inputs))
    if threads == 1:
        results = []
        for item in inputs:
            results.append(ask(worker, item))
            if advance is not None:
                advance()
        return results
    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="judge") as pool:
        futures = [pool.submit(ask, worker, item) for item in inputs]
        results = []
        try:
            for future in futures:
                results.append(future.result())
                if advance is not None:
                    advance()
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        return results
