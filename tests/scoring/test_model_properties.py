"""Properties of every registered model: deterministic, and (Icarus and ledger models) reading nothing but
the ledger: no network, no clock, no environment, no files while scoring."""

from __future__ import annotations

import builtins
import io
import os
import pathlib
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from icarus.ledger import Directness, Ledger, LedgerClaim, LedgerLink, SourceClass
from icarus.scoring.canonical import canonical_json
from icarus.scoring.registry import default_registry
from tests.builders import claim, item, judgment, ledger

PURE_FAMILIES = ("icarus", "ledger")


class ReadOutsideTheLedger(AssertionError):
    pass


def _refuse(what: str) -> Any:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ReadOutsideTheLedger(f"a model read {what} while scoring")

    return refuse


class _SealedEnviron(dict[str, str]):
    def __getitem__(self, key: str) -> str:
        raise ReadOutsideTheLedger(f"a model read the environment ({key})")

    def get(self, key: str, default: Any = None) -> Any:
        raise ReadOutsideTheLedger(f"a model read the environment ({key})")


@contextmanager
def sealed() -> Iterator[None]:
    """No socket, clock, environment or file while the body runs."""
    patches = [
        (socket, "socket", _refuse("the network")),
        (socket, "create_connection", _refuse("the network")),
        (socket, "getaddrinfo", _refuse("the network")),
        (time, "time", _refuse("the clock")),
        (time, "time_ns", _refuse("the clock")),
        (os, "environ", _SealedEnviron()),
        (os, "getenv", _refuse("the environment")),
        (builtins, "open", _refuse("a file")),
        (io, "open", _refuse("a file")),
        (pathlib.Path, "open", _refuse("a file")),
        (pathlib.Path, "read_text", _refuse("a file")),
        (pathlib.Path, "read_bytes", _refuse("a file")),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


_STANCES = st.sampled_from(["support", "refute", "neutral"])
_CONFIDENCE = st.sampled_from(["0", "0.3", "0.55", "0.8", "0.95"])
_LINK = st.one_of(
    st.none(),
    st.builds(
        LedgerLink,
        relevance=st.sampled_from([None, "DIRECT", "WEAK", "CONTEXT_ONLY"]),
        observation=st.sampled_from([None, "MEASUREMENT", "EXPERT_ANALYSIS", "MODEL_OUTPUT"]),
        independence_group=st.sampled_from([None, "G1", "G2"]),
        provenance=st.sampled_from([None, "SELF"]),
        edition=st.sampled_from([None, "OTHER"]),
    ),
)


@st.composite
def ledgers(draw: st.DrawFn) -> Ledger:
    count = draw(st.integers(min_value=0, max_value=4))
    items = [
        item(
            f"e{n}",
            source_class=draw(st.sampled_from(list(SourceClass))),
            directness=draw(st.sampled_from(list(Directness))),
            stance_strength=draw(st.sampled_from([None, Decimal("0.7")])),
            judgments=[
                judgment(
                    "c1",
                    draw(_STANCES),
                    draw(_CONFIDENCE),
                    inference_hops=draw(st.integers(min_value=0, max_value=7)),
                    link=draw(_LINK),
                )
            ],
        )
        for n in range(count)
    ]
    claim_type = draw(st.sampled_from([None, "OBSERVATIONAL", "CAUSAL", "NORMATIVE"]))
    stated = LedgerClaim(claim_type=claim_type) if claim_type else None
    return ledger(items, [claim(ledger_claim=stated)])


def _warm() -> list[Any]:
    """Load every model and score once, so configs, code hashes and lazy imports are read beforehand."""
    registry = default_registry()
    models = [registry.get(ref) for ref in registry.refs()]
    example = ledger([item("e1")])
    for model in models:
        model.score(example)
    return models


MODELS = _warm()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ledgers())
def test_every_model_is_deterministic(drawn: Ledger) -> None:
    for model in MODELS:
        first = canonical_json(model.score(drawn))
        second = canonical_json(model.score(drawn.model_copy(deep=True)))
        assert first == second, model.ref


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ledgers())
def test_icarus_and_ledger_models_read_nothing_but_the_ledger(drawn: Ledger) -> None:
    pure = [model for model in MODELS if model.family in PURE_FAMILIES]
    assert {model.family for model in pure} == set(PURE_FAMILIES)
    outside = {model.ref: canonical_json(model.score(drawn)) for model in pure}
    with sealed():
        inside = {model.ref: canonical_json(model.score(drawn)) for model in pure}
    assert inside == outside


def test_the_seal_catches_each_kind_of_read() -> None:
    for attempt in (
        lambda: socket.create_connection(("127.0.0.1", 9)),
        lambda: time.time(),
        lambda: os.environ.get("HOME"),
        lambda: pathlib.Path("pyproject.toml").read_text(),
        lambda: open("pyproject.toml"),  # noqa: SIM115
    ):
        with sealed():
            try:
                attempt()
            except ReadOutsideTheLedger:
                continue
        raise AssertionError("the seal let a read through")
