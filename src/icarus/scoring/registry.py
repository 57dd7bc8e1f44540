"""Every published scoring model, by ``name@version``, behind one small protocol.

A *model* is an immutable, hashed configuration plus the code that applies it. Several families of models
score the same evidence ledger (the Icarus policies, the ledger models, LVF, EvidenceVerify); they may
disagree, and naming the model that produced a number is the point. The registry maps each
``name@version`` to a loader, so ``icarus models``, ``icarus score --model``, ``icarus compare`` and
``icarus policy show`` work for every family alike.

Registering a family
--------------------
1. Write a class that satisfies :class:`ScoringModel` (structural typing: no base class needed):

   - ``ref``: ``"name@version"`` exactly as registered (``name`` lower-case letters, digits and dashes;
     ``version`` dotted digits).
   - ``family``: a short family name (``"icarus"``, ``"ledger"``, ``"lvf"``, ``"evidenceverify"``).
   - ``config_hash``: ``"sha256:<hex>"`` of the canonical JSON of the resolved config
     (:func:`icarus.scoring.canonical.canonical_json`). A released config is never edited: a change is a
     new version.
   - ``config_data()``: the resolved config as JSON-ready data (what the hash is taken over). ``icarus
     compare`` diffs two of these key by key.
   - ``score(ledger)``: a pure function of the ledger (no clock, network, environment or randomness) that
     returns a JSON-ready ``dict``. It must carry ``"model"`` (the ref), ``"config_hash"``, ``"code_hash"``
     and ``"trace_hash"``; the rest is the family's own documented shape (the Icarus result has
     ``overall.label``/``overall.band``, a ledger-model result has ``claims[].state``/``probability``).
   - ``methodology()``: the model's methodology page as Markdown, rendered from its own config (never a
     number typed into prose). ``icarus policy show NAME@VER`` prints it.
   - ``verdicts(result)``: one :class:`Verdict` per scored claim, so generic commands can print and compare
     any family's result without knowing its shape.
   - ``item_weights(result)``: one :class:`ItemWeight` per (claim, evidence item or link) that carries a
     weight, naming the config keys each factor reads. A family without per-item weights returns ``[]``.

2. In your family's package, add a module with ``register_models(registry: ModelRegistry) -> None`` that
   calls ``registry.register(ref, family, loader)`` once per version (``loader`` is a zero-argument callable
   returning the model; it runs only when the model is first asked for).

3. Add that module's dotted name to :data:`FAMILY_MODULES` below (one line).

A model never reads another model's config or results, and the registry hands each one only the ledger, so
registering a model cannot change any other model's results (``tests/scoring/test_model_registry.py``
checks it).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol, runtime_checkable

from icarus.ledger import Ledger

__all__ = [
    "FAMILY_MODULES",
    "ItemWeight",
    "ModelEntry",
    "ModelRegistry",
    "ScoringModel",
    "UnknownModelError",
    "Verdict",
    "default_registry",
    "get_model",
    "parse_ref",
]

REF = re.compile(r"^(?P<name>[a-z][a-z0-9-]*)@(?P<version>\d+(?:\.\d+)*)$")

# Modules that register a family of models, each exposing ``register_models(registry)``. Order does not
# matter: refs are unique and every model is looked up by its own ref.
FAMILY_MODULES: tuple[str, ...] = (
    "icarus.scoring.icarus.model",
    "icarus.scoring.ledger.model",
    "icarus.scoring.lvf.model",
    "icarus.scoring.evidenceverify.model",
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a model concluded about one claim, in a form every family can fill.

    ``outcome`` is the family's own word (an Icarus label such as ``supported``, a ledger state such as
    ``LEANS_SUPPORTED``); ``band`` its strength qualifier (confidence band, stability) or None;
    ``probability`` a fixed-point string or None (never a percentage of truth); ``shown_as`` the one line a
    person reads, naming the model, e.g. ``"LEANS_SUPPORTED: 0.71 under ledger-default@0.1.0"``.
    """

    claim_id: str
    outcome: str
    band: str | None
    probability: str | None
    shown_as: str


@dataclass(frozen=True, slots=True)
class ItemWeight:
    """The effective weight one evidence item (or link) carries for one claim, and where it comes from.

    ``factors`` maps each factor name to its value as text; ``config_keys`` maps a factor name to the
    dotted config keys (as in ``config_data()``) that set it, so a comparison can name the keys responsible
    for a difference. ``note`` says why a weight is zero when it is (excluded, dependent, non-directional).
    """

    claim_id: str
    item_id: str
    weight: str
    factors: Mapping[str, str] = field(default_factory=dict)
    config_keys: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    note: str = ""


@runtime_checkable
class ScoringModel(Protocol):
    """One published model version. See the module docstring for the contract of each member."""

    @property
    def ref(self) -> str: ...

    @property
    def family(self) -> str: ...

    @property
    def config_hash(self) -> str: ...

    def config_data(self) -> dict[str, Any]: ...

    def score(self, ledger: Ledger) -> dict[str, Any]: ...

    def methodology(self) -> str: ...

    def verdicts(self, result: Mapping[str, Any]) -> list[Verdict]: ...

    def item_weights(self, result: Mapping[str, Any]) -> list[ItemWeight]: ...


class UnknownModelError(KeyError):
    """A ``name@version`` that no family registered."""

    def __init__(self, ref: str, known: list[str]) -> None:
        super().__init__(ref)
        self.ref = ref
        self.known = known

    def __str__(self) -> str:
        return f"unknown model {self.ref!r}; known: {', '.join(self.known)}"


def parse_ref(ref: str) -> tuple[str, tuple[int, ...]]:
    """Split ``name@1.2.3`` into ``("name", (1, 2, 3))``; a malformed ref is a ValueError."""
    match = REF.match(ref)
    if match is None:
        raise ValueError(f"model ref {ref!r} is not NAME@VERSION (e.g. ledger-default@0.1.0)")
    return match["name"], tuple(int(part) for part in match["version"].split("."))


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """A registered model: its ref, family and the loader that builds it on first use."""

    ref: str
    family: str
    load: Callable[[], ScoringModel]


class ModelRegistry:
    """``name@version`` → model. Registration is explicit; a ref can be registered once."""

    def __init__(self) -> None:
        self._entries: dict[str, ModelEntry] = {}
        self._loaded: dict[str, ScoringModel] = {}

    def register(self, ref: str, family: str, load: Callable[[], ScoringModel]) -> None:
        parse_ref(ref)
        if ref in self._entries:
            raise ValueError(f"model {ref} is already registered (family {self._entries[ref].family})")
        self._entries[ref] = ModelEntry(ref, family, load)

    def __contains__(self, ref: object) -> bool:
        return ref in self._entries

    def refs(self) -> list[str]:
        """Every registered ref, by name and then numeric version."""
        return sorted(self._entries, key=parse_ref)

    def entries(self) -> list[ModelEntry]:
        return [self._entries[ref] for ref in self.refs()]

    def get(self, ref: str) -> ScoringModel:
        model = self._loaded.get(ref)
        if model is not None:
            return model
        entry = self._entries.get(ref)
        if entry is None:
            raise UnknownModelError(ref, self.refs())
        model = entry.load()
        if model.ref != ref:
            raise ValueError(f"the loader registered as {ref} built {model.ref}")
        self._loaded[ref] = model
        return model


def build_registry(modules: tuple[str, ...] = FAMILY_MODULES) -> ModelRegistry:
    """A registry holding every model of the given family modules."""
    registry = ModelRegistry()
    for name in modules:
        module = importlib.import_module(name)
        module.register_models(registry)
    return registry


@cache
def default_registry() -> ModelRegistry:
    """The registry of every shipped model (built once per process)."""
    return build_registry()


def get_model(ref: str) -> ScoringModel:
    return default_registry().get(ref)
