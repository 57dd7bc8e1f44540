"""The fake OpenAI-compatible server of the judge tests, shared with the LVF assessor tests."""

from tests.judges.conftest import fake_llm

__all__ = ["fake_llm"]
