"""Model-assisted steps against the fake OpenAI-compatible server: answers routed by the step asked."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from icarus.llm.assist import ModelAssist
from tests.judges.conftest import FakeServer, fake_llm

__all__ = ["FakeServer", "fake_llm", "route"]


def step_of(request: dict[str, Any]) -> str:
    """Which step a request asks for: its answer schema is named ``<step>_answer``."""
    return str(request["response_format"]["json_schema"]["name"]).removesuffix("_answer")


def route(server: FakeServer, answers: dict[str, Callable[[dict[str, Any]], Any] | Any]) -> None:
    """Answer each step with ``answers[step]`` (a value, or a function of the request); a step with no
    entry gets an empty list for its one list field, the "nothing to propose" answer."""
    empty: dict[str, Any] = {
        "claim_spans": {"claims": []},
        "implied_claims": {"implications": []},
        "query_plan": {"queries": []},
    }

    def answer(request: dict[str, Any]) -> dict[str, Any] | str:
        step = step_of(request)
        chosen = answers.get(step, empty.get(step, "{}"))
        value = chosen(request) if callable(chosen) else chosen
        return value if isinstance(value, str) else json.loads(json.dumps(value))

    server.answer = answer


def user_text(request: dict[str, Any]) -> str:
    return str(next(m["content"] for m in request["messages"] if m["role"] == "user"))


@pytest.fixture
def assist(fake_llm: FakeServer) -> ModelAssist:
    return ModelAssist(fake_llm.base_url, "fake-model", max_retries=0, timeout=10)
