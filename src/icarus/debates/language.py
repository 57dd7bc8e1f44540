"""Research languages: the claim's own by default; English and Spanish too on a strong-language rerun.

Research stays in the claim's language and country filter. A rerun with ``strong_language`` also searches
in English and Spanish (whichever of the two the claim is not already in), provided something can
translate the claim: the configured LLM, or any ``Translator``. Each language is researched with the same
method on an even share of its budget, and the panels are combined (``combine_language_panels``): a
substantive answer beats an unverifiable one, then more sources, then higher confidence, and the claim's
own language wins ties. The country filter is kept for every language: a foreign page about another
country is set aside by the scope check, not cited.

Every panel of such a rerun is labelled ``STRONG_LANGUAGE_LABEL`` and its explanation stays in the
claim's language (an explanation written in another language is translated back, or kept with a note
when it cannot be). When nothing can translate, the rerun searches the claim's own words only and the
explanation says, in the claim's language, that the English/Spanish searches could not be translated.

``should_auto_retry`` is the rule behind ``STRONG_LANGUAGE_AUTO_RETRY`` (default false): rerun by itself
only an unverifiable claim, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol

from icarus.debates.model import Panel, ResearchMode, Verdict
from icarus.debates.research.base import Budget, ClaimToResearch, ResearchServices, default_budget, run_method

__all__ = [
    "RERUN_LANGUAGES",
    "STRONG_LANGUAGE_LABEL",
    "LanguagePlan",
    "LanguageVariant",
    "Translator",
    "combine_language_panels",
    "plan_languages",
    "primary_language",
    "research_in_languages",
    "should_auto_retry",
    "split_budget",
    "untranslated_note",
]

STRONG_LANGUAGE_LABEL: Final = "English/Spanish research"
RERUN_LANGUAGES: Final = ("en", "es")
"""The languages a strong-language rerun adds, in this order."""


class Translator(Protocol):
    """Anything that can translate a claim for searching; None when it cannot."""

    def translate(self, text: str, source_language: str, target_language: str) -> str | None: ...


@dataclass(frozen=True)
class LanguageVariant:
    language: str
    text: str
    translated: bool


@dataclass(frozen=True)
class LanguagePlan:
    """The languages one claim is researched in; ``untranslated`` lists rerun languages nothing could
    translate into."""

    claim_language: str
    strong_language: bool
    variants: tuple[LanguageVariant, ...]
    untranslated: tuple[str, ...] = ()

    def as_trace(self) -> dict[str, Any]:
        return {
            "claim_language": self.claim_language,
            "strong_language": self.strong_language,
            "languages": [v.language for v in self.variants],
            "translated": [v.language for v in self.variants if v.translated],
            "untranslated": list(self.untranslated),
        }


def primary_language(tag: str) -> str:
    """``en-GB`` → ``en``; an empty tag is English, the default research language."""
    return (tag.strip().replace("_", "-").split("-")[0] or "en").lower()


def plan_languages(claim: ClaimToResearch, translator: Translator | None) -> LanguagePlan:
    """The claim's own language first; on a strong-language rerun, English and Spanish translations too."""
    own = primary_language(claim.language)
    variants = [LanguageVariant(own, claim.text, False)]
    if not claim.strong_language:
        return LanguagePlan(own, False, tuple(variants))
    untranslated: list[str] = []
    for language in RERUN_LANGUAGES:
        if language == own:
            continue
        text = translator.translate(claim.text, own, language) if translator is not None else None
        if text and text.strip() and text.strip() != claim.text.strip():
            variants.append(LanguageVariant(language, text.strip(), True))
        else:
            untranslated.append(language)
    return LanguagePlan(own, True, tuple(variants), tuple(untranslated))


_LANGUAGE_NAMES: Final[dict[str, dict[str, str]]] = {
    "en": {"en": "English", "es": "Spanish"},
    "es": {"en": "inglés", "es": "español"},
    "fr": {"en": "anglais", "es": "espagnol"},
    "de": {"en": "Englisch", "es": "Spanisch"},
    "pt": {"en": "inglês", "es": "espanhol"},
    "it": {"en": "inglese", "es": "spagnolo"},
}
_AND: Final = {"en": " and ", "es": " y ", "fr": " et ", "de": " und ", "pt": " e ", "it": " e "}
_NOT_TRANSLATED: Final = {
    "en": "The {names} searches could not be translated: no translator is available, so only the "
    "claim's own wording was searched.",
    "es": "Las búsquedas en {names} no se pudieron traducir: no hay traductor disponible, así que solo se "
    "buscó con la redacción original de la afirmación.",
    "fr": "Les recherches en {names} n'ont pas pu être traduites : aucun traducteur n'est disponible, seule "
    "la formulation d'origine de l'affirmation a donc été recherchée.",
    "de": "Die Suchen auf {names} konnten nicht übersetzt werden: Es ist kein Übersetzer verfügbar, daher "
    "wurde nur mit dem ursprünglichen Wortlaut der Behauptung gesucht.",
    "pt": "As pesquisas em {names} não puderam ser traduzidas: não há tradutor disponível, por isso só se "
    "pesquisou com a redação original da afirmação.",
    "it": "Le ricerche in {names} non sono state tradotte: nessun traduttore è disponibile, quindi si è "
    "cercato solo con la formulazione originale dell'affermazione.",
}
_EXPLANATION_UNTRANSLATED: Final = {
    "en": "(This explanation comes from the {name} research and could not be translated.)",
    "es": "(Esta explicación procede de la investigación en {name} y no se pudo traducir.)",
    "fr": "(Cette explication provient de la recherche en {name} et n'a pas pu être traduite.)",
    "de": "(Diese Erklärung stammt aus der Recherche auf {name} und konnte nicht übersetzt werden.)",
    "pt": "(Esta explicação vem da pesquisa em {name} e não pôde ser traduzida.)",
    "it": "(Questa spiegazione proviene dalla ricerca in {name} e non è stata tradotta.)",
}


def _note_language(language: str) -> str:
    # A claim in a language without its own wording here gets the English note.
    return language if language in _NOT_TRANSLATED else "en"


def untranslated_note(languages: Sequence[str], claim_language: str) -> str:
    """In the claim's language: the English/Spanish searches in ``languages`` could not be translated."""
    note = _note_language(primary_language(claim_language))
    names = _AND[note].join(_LANGUAGE_NAMES[note].get(code, code) for code in languages)
    if note == "en":
        names = "/".join(_LANGUAGE_NAMES["en"].get(code, code) for code in languages)
    return _NOT_TRANSLATED[note].format(names=names)


def split_budget(budget: Budget, shares: int) -> Budget:
    """An even share of ``budget`` for one of ``shares`` languages (at least one search and one page);
    depth is not split, since each language follows its own trail."""
    if shares <= 1:
        return budget
    return Budget(
        max_searches=max(1, budget.max_searches // shares),
        max_pages=max(1, budget.max_pages // shares),
        max_depth=budget.max_depth,
        max_seconds=budget.max_seconds / shares,
    )


_UNDECIDED: Final = frozenset({Verdict.UNVERIFIABLE, Verdict.PENDING})


def combine_language_panels(
    panels: Sequence[tuple[LanguageVariant, Panel]],
    plan: LanguagePlan,
    translator: Translator | None = None,
) -> Panel:
    """One labelled panel from the panels researched in each language of ``plan`` (the claim's own
    first). A substantive verdict beats an unverifiable one, then more sources, then higher confidence;
    ties go to the earlier language. The explanation is kept in the claim's language."""
    if not panels:
        raise ValueError("no panel to combine")
    order = sorted(
        range(len(panels)),
        key=lambda i: (
            panels[i][1].verdict in _UNDECIDED,
            -len(panels[i][1].sources),
            -panels[i][1].confidence,
            i,
        ),
    )
    variant, chosen = panels[order[0]]
    explanation = chosen.explanation
    if variant.language != plan.claim_language and explanation.strip():
        back = (
            translator.translate(explanation, variant.language, plan.claim_language) if translator else None
        )
        if back and back.strip():
            explanation = back.strip()
        else:
            note = _note_language(plan.claim_language)
            name = _LANGUAGE_NAMES[note].get(variant.language, variant.language)
            explanation = f"{explanation} {_EXPLANATION_UNTRANSLATED[note].format(name=name)}"
    if plan.untranslated:
        explanation = f"{explanation} {untranslated_note(plan.untranslated, plan.claim_language)}".strip()
    substantive = {p.verdict for _, p in panels if p.verdict not in _UNDECIDED}
    trace = {
        **chosen.trace,
        "languages": {
            **plan.as_trace(),
            "chosen": variant.language,
            "disagreed": len(substantive) > 1,
            "panels": [
                {"language": v.language, "verdict": p.verdict.value, "sources": len(p.sources)}
                for v, p in panels
            ],
        },
    }
    return chosen.model_copy(
        update={
            "explanation": explanation,
            "language_label": STRONG_LANGUAGE_LABEL,
            "cost": sum(p.cost for _, p in panels),
            "trace": trace,
        }
    )


Runner = Callable[[ResearchMode, ClaimToResearch, ResearchServices, Budget | None], Panel]


def _translator_for(services: ResearchServices) -> Translator | None:
    from icarus.debates.research.llm import debate_llm  # the LLM client loads only when a rerun asks

    return debate_llm(services.llm)


def research_in_languages(
    mode: ResearchMode,
    claim: ClaimToResearch,
    services: ResearchServices,
    budget: Budget | None = None,
    *,
    translator: Translator | None = None,
    runner: Runner = run_method,
) -> Panel:
    """Research ``claim`` with ``mode``: in its own language, or on a strong-language rerun also in
    English and Spanish (translated by ``translator``, else by the configured LLM; untranslated when
    neither exists). The country filter is kept for every language."""
    if not claim.strong_language:
        return runner(mode, claim, services, budget)
    translator = translator if translator is not None else _translator_for(services)
    plan = plan_languages(claim, translator)
    share = split_budget(budget if budget is not None else default_budget(mode), len(plan.variants))
    panels = [
        (variant, runner(mode, replace(claim, text=variant.text, language=variant.language), services, share))
        for variant in plan.variants
    ]
    return combine_language_panels(panels, plan, translator)


def should_auto_retry(
    panel_verdicts: Iterable[Verdict | str], setting: bool, *, already_retried: bool = False
) -> bool:
    """Whether to rerun a claim in English and Spanish by itself (``STRONG_LANGUAGE_AUTO_RETRY``): only
    when the setting is on, the claim was not already rerun, research has finished (no panel pending)
    and every panel is unverifiable."""
    if not setting or already_retried:
        return False
    verdicts = [Verdict(str(v).lower()) for v in panel_verdicts]
    return bool(verdicts) and all(v is Verdict.UNVERIFIABLE for v in verdicts)
