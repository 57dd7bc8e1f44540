"""Strong-language reruns: research stays in the claim's language by default; a rerun adds English and
Spanish where something can translate, says so plainly where nothing can, labels its panel and keeps the
explanation in the claim's language and the country filter."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

import pytest

from icarus.debates.language import (
    STRONG_LANGUAGE_LABEL,
    LanguagePlan,
    LanguageVariant,
    combine_language_panels,
    plan_languages,
    primary_language,
    research_in_languages,
    should_auto_retry,
    split_budget,
    untranslated_note,
)
from icarus.debates.model import Citation, Panel, ResearchMode, Verdict
from icarus.debates.research.base import Budget, ClaimToResearch, ResearchServices

AS_OF = datetime(2024, 3, 1, tzinfo=UTC)
FRENCH = ClaimToResearch("Le chômage a baissé à 7,1 % en 2023.", AS_OF, language="fr", country="FR")


@dataclass
class DictTranslator:
    table: dict[tuple[str, str], str]
    asked: list[tuple[str, str, str]] = field(default_factory=list)

    def translate(self, text: str, source_language: str, target_language: str) -> str | None:
        self.asked.append((text, source_language, target_language))
        return self.table.get((source_language, target_language))


TRANSLATOR = DictTranslator(
    {
        ("fr", "en"): "Unemployment fell to 7.1% in 2023.",
        ("fr", "es"): "El desempleo bajó al 7,1 % en 2023.",
        ("en", "fr"): "Les statistiques officielles confirment 7,1 %.",
    }
)


def panel(verdict: Verdict, sources: int = 0, confidence: float = 0.5, explanation: str = "") -> Panel:
    cited = [Citation(url=f"https://s{i}.example/", domain=f"s{i}.example") for i in range(sources)]
    return Panel(
        research_mode=ResearchMode.TWO_STEP,
        verdict=verdict,
        confidence=confidence,
        explanation=explanation,
        sources=cited,
        cost=1.0,
    )


@dataclass
class RecordingRunner:
    answers: dict[str, Panel]
    seen: list[tuple[ClaimToResearch, Budget | None]] = field(default_factory=list)

    def __call__(
        self, mode: ResearchMode, claim: ClaimToResearch, services: ResearchServices, budget: Budget | None
    ) -> Panel:
        self.seen.append((claim, budget))
        return self.answers[claim.language]


SERVICES = cast(ResearchServices, object())  # the runner stands in for the method; services are not read


def test_by_default_research_stays_in_the_claims_language() -> None:
    runner = RecordingRunner({"fr": panel(Verdict.TRUE, 2, explanation="Confirmé.")})
    result = research_in_languages(
        ResearchMode.TWO_STEP, FRENCH, SERVICES, translator=TRANSLATOR, runner=runner
    )
    assert [c.language for c, _ in runner.seen] == ["fr"]
    assert result.language_label is None and result.explanation == "Confirmé."
    assert plan_languages(FRENCH, TRANSLATOR).variants == (LanguageVariant("fr", FRENCH.text, False),)


def test_a_strong_rerun_searches_english_and_spanish_keeps_the_country_and_labels_the_panel() -> None:
    claim = ClaimToResearch(FRENCH.text, AS_OF, language="fr", country="FR", strong_language=True)
    runner = RecordingRunner(
        {
            "fr": panel(Verdict.UNVERIFIABLE, 0, explanation="Rien trouvé."),
            "en": panel(Verdict.TRUE, 3, 0.8, explanation="Official statistics confirm 7.1%."),
            "es": panel(Verdict.TRUE, 1, 0.6, explanation="Un medio lo confirma."),
        }
    )
    budget = Budget(max_searches=12, max_pages=9, max_depth=2, max_seconds=90.0)
    result = research_in_languages(
        ResearchMode.TWO_STEP, claim, SERVICES, budget, translator=TRANSLATOR, runner=runner
    )
    assert [(c.language, c.text) for c, _ in runner.seen] == [
        ("fr", FRENCH.text),
        ("en", "Unemployment fell to 7.1% in 2023."),
        ("es", "El desempleo bajó al 7,1 % en 2023."),
    ]
    assert {c.country for c, _ in runner.seen} == {"FR"}
    assert {b for _, b in runner.seen} == {Budget(4, 3, 2, 30.0)}  # one even share each
    assert result.language_label == STRONG_LANGUAGE_LABEL
    assert result.verdict is Verdict.TRUE and len(result.sources) == 3
    # the English panel's explanation, translated back into the claim's language
    assert result.explanation == "Les statistiques officielles confirment 7,1 %."
    assert result.cost == 3.0
    assert result.trace["languages"]["chosen"] == "en"
    assert result.trace["languages"]["translated"] == ["en", "es"]


def test_offline_nothing_translates_and_the_explanation_says_so_in_the_claims_language() -> None:
    claim = ClaimToResearch(FRENCH.text, AS_OF, language="fr-FR", country="FR", strong_language=True)
    runner = RecordingRunner({"fr": panel(Verdict.UNVERIFIABLE, explanation="Rien trouvé.")})
    services = ResearchServices(providers=[], judge=None, registry=None, policy=None, snapshots=None)  # type: ignore[arg-type]
    result = research_in_languages(ResearchMode.TWO_STEP, claim, services, runner=runner)
    assert [c.language for c, _ in runner.seen] == ["fr"]
    assert result.language_label == STRONG_LANGUAGE_LABEL
    assert result.explanation.startswith("Rien trouvé. Les recherches en anglais et espagnol")
    assert "n'ont pas pu être traduites" in result.explanation
    assert result.trace["languages"]["untranslated"] == ["en", "es"]


def test_an_english_claim_adds_only_spanish() -> None:
    claim = ClaimToResearch("Unemployment fell.", AS_OF, language="en", strong_language=True)
    plan = plan_languages(claim, DictTranslator({("en", "es"): "El desempleo bajó."}))
    assert [v.language for v in plan.variants] == ["en", "es"] and plan.untranslated == ()
    offline = plan_languages(claim, None)
    assert [v.language for v in offline.variants] == ["en"] and offline.untranslated == ("es",)
    assert untranslated_note(offline.untranslated, "en") == (
        "The Spanish searches could not be translated: no translator is available, so only the claim's "
        "own wording was searched."
    )


def test_a_translation_identical_to_the_claim_counts_as_untranslated() -> None:
    claim = ClaimToResearch("COVID-19", AS_OF, language="de", strong_language=True)
    plan = plan_languages(claim, DictTranslator({("de", "en"): "COVID-19", ("de", "es"): "COVID-19"}))
    assert plan.untranslated == ("en", "es")


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "The English/Spanish searches could not be translated"),
        ("es", "Las búsquedas en inglés y español no se pudieron traducir"),
        ("de", "Die Suchen auf Englisch und Spanisch konnten nicht übersetzt werden"),
        ("nl", "The English/Spanish searches could not be translated"),  # no Dutch wording: English
    ],
)
def test_untranslated_note_speaks_the_claims_language(language: str, expected: str) -> None:
    assert untranslated_note(("en", "es"), language).startswith(expected)


def test_an_explanation_that_cannot_be_translated_back_is_kept_with_a_note() -> None:
    plan = LanguagePlan("es", True, (LanguageVariant("es", "x", False), LanguageVariant("en", "y", True)))
    panels = [
        (plan.variants[0], panel(Verdict.UNVERIFIABLE)),
        (plan.variants[1], panel(Verdict.FALSE, 2, explanation="Official data show 5%.")),
    ]
    result = combine_language_panels(panels, plan, translator=None)
    assert result.explanation == (
        "Official data show 5%. (Esta explicación procede de la investigación en inglés y no se pudo traducir.)"
    )


def test_ties_go_to_the_claims_own_language_and_disagreement_is_traced() -> None:
    plan = LanguagePlan("fr", True, (LanguageVariant("fr", "x", False), LanguageVariant("en", "y", True)))
    own = panel(Verdict.TRUE, 2, 0.7, "Vrai.")
    result = combine_language_panels(
        [(plan.variants[0], own), (plan.variants[1], panel(Verdict.FALSE, 2, 0.7))], plan
    )
    assert result.verdict is Verdict.TRUE and result.explanation == "Vrai."
    assert result.trace["languages"]["disagreed"] is True


def test_split_budget_boundaries() -> None:
    budget = Budget(max_searches=2, max_pages=1, max_depth=3, max_seconds=60.0)
    assert split_budget(budget, 1) is budget
    assert split_budget(budget, 3) == Budget(1, 1, 3, 20.0)


def test_primary_language() -> None:
    assert [primary_language(t) for t in ("en-GB", "ES", "pt_BR", "")] == ["en", "es", "pt", "en"]


@pytest.mark.parametrize(
    ("verdicts", "setting", "retried", "expected"),
    [
        (["unverifiable"], False, False, False),  # the default: never by itself
        (["unverifiable"], True, False, True),
        (["unverifiable", "UNVERIFIABLE"], True, False, True),
        (["unverifiable", "true"], True, False, False),
        (["unverifiable", "pending"], True, False, False),  # research not finished
        ([], True, False, False),
        (["unverifiable"], True, True, False),  # once only
        ([Verdict.FALSE], True, False, False),
    ],
)
def test_should_auto_retry(verdicts: list[str], setting: bool, retried: bool, expected: bool) -> None:
    assert should_auto_retry(verdicts, setting, already_retried=retried) is expected
