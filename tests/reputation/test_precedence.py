"""The per-field precedence every registry path uses, the shipped default registry and its rules.

Reviewed (manual) class, tier and score win over imports; imports fill in; a risk flag only lowers; layers
(shipped manual, shipped default, --reputation files) combine by the same rule; every field names its source.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.ledger import ReputationMethod, ReputationRecord, RiskRating, SourceClass, SourceTier
from icarus.reputation.cli import registry_app
from icarus.reputation.default import (
    DATASETS as SPECS,
)
from icarus.reputation.default import (
    RULES,
    build_document,
    default_path,
    parse_document,
    render_document,
    render_rules_markdown,
    render_sources_markdown,
    shipped_default,
    sources_manifest,
)
from icarus.reputation.entry import RegistryEntry
from icarus.reputation.importers import (
    import_dotgov,
    import_file,
    import_perennial,
    import_universities,
    merge_registries,
    write_registry,
)
from icarus.reputation.manual import default_registry, load_manual
from icarus.reputation.merge import PRECEDENCE, merge_entries, merge_layers
from icarus.reputation.registry import dump_entries, load_registry
from icarus.scoring.icarus.config import load_policy
from tests.datasets import DATASETS

VALUES = load_policy("icarus@1.1").reputation
runner = CliRunner()
REVIEWER = "manual reviewer:icarus-maintainer@1"


def part(
    domain: str,
    score: str,
    source: str,
    *,
    tier: SourceTier = SourceTier.OTHER,
    source_class: SourceClass = SourceClass.NEWS,
    risk: RiskRating | None = None,
    iffy: bool = False,
) -> RegistryEntry:
    manual = source == "manual"
    record = ReputationRecord(
        domain=domain,
        score=Decimal(score),
        tier=tier,
        method=ReputationMethod.MANUAL if manual else ReputationMethod.DATASET,
        produced_by="reviewer:editor" if manual else f"{source}@v1",
        version="1" if manual else "v1",
        risk_rating=risk,
        on_iffy_index=iffy,
    )
    return RegistryEntry(record, source_class)


# ---- the merge, field by field (synthetic, always run) ----


def test_reviewed_class_tier_and_score_win_over_every_import() -> None:
    merged = merge_entries(
        [
            part("wire.example", "1.0", "lin2023"),
            part("wire.example", "0.85", "perennial", risk=RiskRating.GENERALLY_RELIABLE),
            part(
                "wire.example",
                "0.90",
                "ifcn",
                tier=SourceTier.FACT_CHECKER,
                source_class=SourceClass.FACT_CHECKER,
            ),
            part("wire.example", "0.95", "manual", tier=SourceTier.WIRE, source_class=SourceClass.WIRE),
        ]
    )
    assert merged.source_class is SourceClass.WIRE and merged.record.tier is SourceTier.WIRE
    assert merged.record.score == Decimal("0.95")
    assert merged.record.method is ReputationMethod.MANUAL
    sources = merged.field_sources
    assert sources["score"] == sources["tier"] == sources["source_class"] == "manual reviewer:editor@1"
    assert sources["risk_rating"] == "perennial@v1"


def test_reviewed_class_beats_an_imported_satire_class() -> None:
    merged = merge_entries(
        [
            part("paper.example", "0.30", "opensources", source_class=SourceClass.SATIRE),
            part("paper.example", "0.60", "manual", source_class=SourceClass.AGGREGATOR),
        ]
    )
    assert merged.source_class is SourceClass.AGGREGATOR


def test_an_imported_score_fills_in_where_no_review_exists() -> None:
    merged = merge_entries(
        [
            part("a.example", "0.7204", "lin2023"),
            part(
                "a.example",
                "0.60",
                "universities",
                tier=SourceTier.SCHOLARLY,
                source_class=SourceClass.SCHOLARLY,
            ),
        ]
    )
    assert merged.record.score == Decimal("0.7204") and merged.field_sources["score"] == "lin2023@v1"
    assert (
        merged.source_class is SourceClass.SCHOLARLY
        and merged.field_sources["source_class"] == "universities@v1"
    )
    assert merged.record.tier is SourceTier.SCHOLARLY


def test_a_risk_flag_lowers_even_a_reviewed_score_and_never_raises_one() -> None:
    flagged = merge_entries(
        [
            part("b.example", "0.95", "manual", tier=SourceTier.WIRE, source_class=SourceClass.WIRE),
            part("b.example", "0.30", "misinfo-list", risk=RiskRating.GENERALLY_UNRELIABLE),
        ]
    )
    assert flagged.record.score == VALUES.generally_unreliable_cap
    assert flagged.source_class is SourceClass.WIRE  # the reviewed class stays
    assert flagged.field_sources["score"] == "misinfo-list@v1"
    low = merge_entries(
        [
            part("c.example", "0.104", "lin2023"),
            part("c.example", "0.60", "perennial", risk=RiskRating.NO_CONSENSUS),
        ]
    )
    assert low.record.score == Decimal("0.104")  # a no-consensus ceiling never lifts a lower score
    assert low.record.risk_rating is RiskRating.NO_CONSENSUS


def test_several_risk_sources_combine_worst_of() -> None:
    merged = merge_entries(
        [
            part("d.example", "0.60", "perennial", risk=RiskRating.NO_CONSENSUS),
            part("d.example", "0.30", "iffy", risk=RiskRating.GENERALLY_UNRELIABLE, iffy=True),
            part("d.example", "0.30", "opensources", source_class=SourceClass.SATIRE),
            part("d.example", "0.80", "lin2023"),
        ]
    )
    assert merged.record.risk_rating is RiskRating.GENERALLY_UNRELIABLE
    assert merged.record.on_iffy_index and merged.field_sources["on_iffy_index"] == "iffy@v1"
    assert merged.source_class is SourceClass.SATIRE
    assert merged.record.score == Decimal("0.30")


def test_a_later_layer_replaces_the_same_source_and_keeps_the_others() -> None:
    shipped = merge_entries(
        [
            part("e.example", "0.9", "lin2023"),
            part("e.example", "0.85", "perennial", risk=RiskRating.GENERALLY_RELIABLE),
        ]
    )
    user = part("e.example", "0.4", "lin2023")
    merged = merge_layers([shipped, user])
    lin_parts = [p for p in merged.sources if p.record.produced_by.startswith("lin2023")]
    assert [p.record.score for p in lin_parts] == [Decimal("0.4")]  # replaced, not counted twice
    assert merged.record.score == Decimal("0.85")  # perennial still ranks first for the baseline


def test_precedence_names_every_default_source() -> None:
    names = {source.name for source in sources_manifest()}
    assert names <= set(PRECEDENCE)


# ---- the cases the review found, with synthetic imports layered on the shipped registry ----

NAMED = [
    ("reuters.com", SourceClass.WIRE, SourceTier.WIRE, "0.95"),
    ("apnews.com", SourceClass.WIRE, SourceTier.WIRE, "0.95"),
    ("afp.com", SourceClass.WIRE, SourceTier.WIRE, "0.95"),
    ("who.int", SourceClass.PRIMARY_OFFICIAL, SourceTier.PRIMARY_OFFICIAL, "1.00"),
    ("theonion.com", SourceClass.SATIRE, SourceTier.OTHER, None),
    ("news.google.com", SourceClass.AGGREGATOR, SourceTier.OTHER, None),
    ("msn.com", SourceClass.AGGREGATOR, SourceTier.OTHER, None),
    ("youtube.com", SourceClass.PLATFORM, SourceTier.OTHER, None),
    ("prnewswire.com", SourceClass.RELEASE_SERVICE, SourceTier.OTHER, None),
]


def _check_named(registry_files: list[Path]) -> None:
    registry = default_registry(*registry_files)
    for domain, source_class, tier, score in NAMED:
        entry = registry.lookup(f"https://www.{domain}/story")
        assert entry.source_class is source_class, domain
        assert entry.record.tier is tier, domain
        assert entry.field_sources["source_class"] == REVIEWER, domain
        if score is not None:
            assert entry.record.score == Decimal(score), domain
            assert entry.field_sources["score"] == REVIEWER, domain


def test_named_cases_keep_their_reviewed_record_under_synthetic_imports(tmp_path: Path) -> None:
    lin = tmp_path / "domain_pc1.csv"
    lin.write_text("domain,pc1\n" + "".join(f"{d},0.82\n" for d, *_ in NAMED))
    perennial = tmp_path / "perennial.csv"
    perennial.write_text(
        "id,name,status,status_n,wiki_url,urls,urls_n,info\n"
        + "".join(
            f'{n},S{n},"[""Generally reliable""]",1,u,"[""www.{d}""]",1,i\n'
            for n, (d, *_) in enumerate(NAMED)
        )
    )
    ifcn = tmp_path / "ifcn.json"
    ifcn.write_text(json.dumps([{"name": "AFP", "url": "https://www.afp.com/en/news-hub"}]))
    out = tmp_path / "imported.json"
    for kind, path in (("lin2023", lin), ("perennial", perennial), ("ifcn", ifcn)):
        result = runner.invoke(registry_app, ["import", kind, str(path), "--out", str(out)])
        assert result.exit_code == 0, result.output
    _check_named([out])


def test_named_cases_keep_their_reviewed_record_under_the_real_imports(tmp_path: Path) -> None:
    files = {
        "lin2023": DATASETS / "domain-quality-ratings/domain_pc1.csv",
        "perennial": DATASETS / "wikipedia-perennial-sources/perennial-sources_kudusch_2021-03-17.csv",
        "ifcn": DATASETS / "ifcn-signatories/tub_white_list_2020.json",
        "opensources": DATASETS / "opensources/sources.csv",
        "misinfo-list": DATASETS / "averitec/misinfo_list.txt",
    }
    missing = [str(p) for p in files.values() if not p.is_file()]
    if missing:
        pytest.skip(f"datasets not found (they are not shipped with the project): {', '.join(missing)}")
    out = tmp_path / "imported.json"
    write_registry(
        merge_registries(*(import_file(kind, path, VALUES).entries for kind, path in files.items())), out
    )
    _check_named([out])


def test_named_cases_in_the_shipped_registry_alone() -> None:
    _check_named([])


def test_no_reviewed_class_or_tier_is_lost_in_the_shipped_registry() -> None:
    registry = default_registry()
    for reviewed in load_manual():
        merged = registry.lookup(reviewed.record.domain)
        assert merged.source_class is reviewed.source_class, reviewed.record.domain
        assert merged.record.tier is reviewed.record.tier, reviewed.record.domain
        assert merged.record.score <= reviewed.record.score, reviewed.record.domain  # flags only lower
        if merged.record.risk_rating is None or merged.record.risk_rating is RiskRating.GENERALLY_RELIABLE:
            assert merged.record.score == reviewed.record.score, reviewed.record.domain


def test_a_reviewed_record_in_a_user_file_is_reviewed_too(tmp_path: Path) -> None:
    review = part(
        "whitehouse.gov", "0.70", "manual", tier=SourceTier.NATIONAL_NEWS, source_class=SourceClass.NEWS
    )
    path = tmp_path / "reviewed.json"
    path.write_text(dump_entries([review]))
    entry = default_registry(path).lookup("whitehouse.gov")
    assert entry.record.score == Decimal("0.70") and entry.source_class is SourceClass.NEWS
    assert entry.field_sources["score"] == "manual reviewer:editor@1"
    assert any(p.record.produced_by.startswith("dotgov@") for p in entry.sources)


def test_field_sources_are_written_to_the_registry_file_and_shown(tmp_path: Path) -> None:
    lin = tmp_path / "domain_pc1.csv"
    lin.write_text("domain,pc1\nflagged.example,0.9\n")
    misinfo = tmp_path / "misinfo_list.txt"
    misinfo.write_text("flagged.example\n")
    out = tmp_path / "reg.json"
    for kind, path in (("lin2023", lin), ("misinfo-list", misinfo)):
        assert runner.invoke(registry_app, ["import", kind, str(path), "--out", str(out)]).exit_code == 0
    (written,) = json.loads(out.read_text())
    assert written["field_sources"]["score"].startswith("misinfo-list@")
    assert written["field_sources"]["tier"].startswith("lin2023@")
    shown = runner.invoke(registry_app, ["show", "flagged.example", "--registry", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "score (R): 0.30   from misinfo-list@" in shown.output
    assert "risk rating: generally_unreliable   from misinfo-list@" in shown.output


def test_show_uses_the_shipped_records_and_labels_an_estimate() -> None:
    shown = runner.invoke(registry_app, ["show", "https://www.reuters.com/world/x"])
    assert shown.exit_code == 0, shown.output
    assert "score (R): 0.95   from manual reviewer:icarus-maintainer@1" in shown.output
    assert "class: wire" in shown.output and "on file: yes" in shown.output
    assert "licence: manual: the project's own" in shown.output
    assert "licence: perennial: CC BY-SA 3.0" in shown.output  # each source of the record, with its terms
    unknown = runner.invoke(registry_app, ["show", "brand-new-site-xyz.com"])
    assert "from heuristic domain-features@1" in unknown.output
    assert "on file: no -- a heuristic estimate, not a record" in unknown.output
    assert "licence:" not in unknown.output


def test_load_registry_merges_files_per_field_too(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(
        dump_entries(
            [part("f.example", "0.95", "manual", tier=SourceTier.WIRE, source_class=SourceClass.WIRE)]
        )
    )
    second.write_text(dump_entries([part("f.example", "0.5", "lin2023")]))
    entry = load_registry(first, second).lookup("f.example")
    assert entry.source_class is SourceClass.WIRE and entry.record.score == Decimal("0.95")


# ---- suffix rules ----


@pytest.mark.parametrize(
    ("host", "source_class", "score"),
    [
        ("www.nato.int", SourceClass.PRIMARY_OFFICIAL, VALUES.primary_official),
        ("www.army.mil", SourceClass.PRIMARY_OFFICIAL, VALUES.primary_official),
        ("www.canada.gc.ca", SourceClass.PRIMARY_OFFICIAL, VALUES.primary_official),
        ("www.mhlw.go.jp", SourceClass.PRIMARY_OFFICIAL, VALUES.primary_official),
        ("www.service.gov.uk", SourceClass.PRIMARY_OFFICIAL, VALUES.generally_reliable),
        ("www.gov.uk", SourceClass.PRIMARY_OFFICIAL, VALUES.generally_reliable),
        ("police.govt.nz", SourceClass.PRIMARY_OFFICIAL, VALUES.generally_reliable),
        ("forestsandreserves.vic.gov.au", SourceClass.PRIMARY_OFFICIAL, VALUES.generally_reliable),
        ("ucsf.edu", SourceClass.SCHOLARLY, VALUES.no_consensus),
    ],
)
def test_suffix_rules_match_by_registration_policy(
    host: str, source_class: SourceClass, score: Decimal
) -> None:
    entry = default_registry().lookup(host)
    assert not entry.record.estimated
    assert entry.source_class is source_class and entry.record.score == score


@pytest.mark.parametrize(
    "host", ["mygov.uk", "notgov.uk.example.com", "printer.example", "bbc.co.uk.fake.com"]
)
def test_suffix_rules_need_a_whole_label_boundary(host: str) -> None:
    entry = default_registry().lookup(host)
    assert "gov-registration" not in entry.record.produced_by, host


def test_a_rule_merges_with_a_record_on_file_for_the_domain(tmp_path: Path) -> None:
    lin = tmp_path / "domain_pc1.csv"
    lin.write_text("domain,pc1\nweather.gov.uk,0.7\n")
    out = tmp_path / "reg.json"
    assert runner.invoke(registry_app, ["import", "lin2023", str(lin), "--out", str(out)]).exit_code == 0
    entry = default_registry(out).lookup("weather.gov.uk")
    assert entry.source_class is SourceClass.PRIMARY_OFFICIAL  # from the rule; Lin says nothing of class
    assert entry.record.score == VALUES.generally_reliable  # a government suffix's baseline ranks before Lin
    assert entry.field_sources["score"].startswith("gov-registration@")


def test_every_rule_states_a_justification_and_a_known_kind() -> None:
    suffixes = [r.suffix for r in RULES]
    assert len(suffixes) == len(set(suffixes))
    for rule in RULES:
        assert rule.why.strip() and rule.kind in {
            "international",
            "military",
            "national_government",
            "government",
            "academic",
        }


# ---- the new importers and the perennial fix ----


def test_dotgov_levels_and_owner(tmp_path: Path) -> None:
    path = tmp_path / "current-full.csv"
    path.write_text(
        "Domain name,Domain type,Organization name,Suborganization name,City,State,Security contact email\n"
        "BLS.GOV,Federal - Executive,Department of Labor,Bureau of Labor Statistics,Washington,DC,(blank)\n"
        "ca.gov,State or territory,State of California,,Sacramento,CA,(blank)\n"
        "29palms.gov,City,City of Twentynine Palms,,Twentynine Palms,CA,(blank)\n"
        "nothing.gov,,Someone,,,,\n"
    )
    result = import_dotgov(path, VALUES)
    by = {e.record.domain: e for e in result.entries}
    assert by["bls.gov"].record.score == VALUES.primary_official
    assert by["ca.gov"].record.score == VALUES.primary_official
    assert by["29palms.gov"].record.score == VALUES.generally_reliable
    assert all(e.source_class is SourceClass.PRIMARY_OFFICIAL for e in result.entries)
    assert by["bls.gov"].note == "Department of Labor (Federal - Executive)"
    assert result.skip_reasons == {"no domain type": 1}


def test_universities_are_scholarly_at_no_consensus(tmp_path: Path) -> None:
    path = tmp_path / "world_universities_and_domains.json"
    path.write_text(
        json.dumps(
            [
                {"name": "Uni", "domains": ["student.uni.edu.au", "uni.edu.au"], "country": "Australia"},
                {"name": "None"},
            ]
        )
    )
    result = import_universities(path, VALUES)
    (entry,) = result.entries
    assert entry.record.domain == "uni.edu.au" and entry.record.score == VALUES.no_consensus
    assert entry.source_class is SourceClass.SCHOLARLY and entry.record.tier is SourceTier.SCHOLARLY
    assert entry.note == "Uni (Australia)"


def test_perennial_skips_pages_about_a_source_on_other_sites(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(
        "id,name,status,status_n,wiki_url,urls,urls_n,info\n"
        '1,Telesur,"[""Deprecated""]",1,u,"[""www.youtube.com/user/telesurtv"", ""www.telesurtv.net"", '
        '""www.wikidata.org/wiki/q1#p856"", ""catalog.loc.gov/search?x=1"", ""aa.com.tr/en""]",5,i\n'
    )
    result = import_perennial(path, VALUES)
    assert {e.record.domain for e in result.entries} == {"telesurtv.net", "aa.com.tr"}
    assert sum(1 for s in result.skipped if s.reason.startswith("a page on another site")) == 3


# ---- the shipped default registry ----


def test_the_shipped_default_registry_is_current() -> None:
    missing = [spec.path for spec in SPECS if not (DATASETS / spec.path).is_file()]
    if missing:
        pytest.skip(
            f"datasets not found under {DATASETS} (not shipped with the project): {', '.join(missing)}"
        )
    rebuilt = render_document(build_document(DATASETS))
    assert rebuilt == default_path().read_text(encoding="utf-8"), "run: icarus registry build"


def _tiny_datasets(root: Path) -> Path:
    files = {
        "domain-quality-ratings/domain_pc1.csv": "domain,pc1\nzeta.example,0.5\nalpha.example,0.9\n",
        "wikipedia-perennial-sources/perennial-sources_kudusch_2021-03-17.csv": (
            'id,name,status,status_n,wiki_url,urls,urls_n,info\n1,A,"[""No consensus""]",1,u,"[""alpha.example""]",1,i\n'
        ),
        "ifcn-signatories/tub_white_list_2020.json": json.dumps(
            [{"name": "F", "url": "https://facts.example/"}]
        ),
        "opensources/sources.csv": ",type,2nd type,3rd type,notes,\njoke.example,satire,,,,\n",
        "averitec/misinfo_list.txt": "junk.example\n",
        "official-domains/dotgov-current-full.csv": "Domain name,Domain type,Organization name\nagency.gov,Federal - Executive,Agency\n",
        "official-domains/world_universities_and_domains.json": json.dumps(
            [{"name": "U", "domains": ["u.example"], "country": "X"}]
        ),
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert {spec.path for spec in SPECS} == set(files)
    return root


def test_build_writes_a_registry_that_parses_back_and_is_deterministic(tmp_path: Path) -> None:
    data = _tiny_datasets(tmp_path / "data")
    out = tmp_path / "default.json"
    result = runner.invoke(registry_app, ["build", "--data", str(data), "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text == render_document(build_document(data))
    parsed = parse_document(text)
    assert list(parsed.layer) == sorted(parsed.layer)  # one line per domain, sorted: a binary search works
    alpha = parsed.layer["alpha.example"]
    assert (
        alpha.record.score == Decimal("0.9") * 0 + VALUES.no_consensus
    )  # a no-consensus flag caps Lin's 0.9
    assert alpha.field_sources["score"].startswith("perennial@")
    assert parsed.layer["agency.gov"].source_class is SourceClass.PRIMARY_OFFICIAL
    assert "nothing.example" not in parsed.layer
    check = runner.invoke(registry_app, ["build", "--data", str(data), "--out", str(out), "--check"])
    assert check.exit_code == 0, check.output
    out.write_text(text.replace("0.5", "0.6"))
    stale = runner.invoke(registry_app, ["build", "--data", str(data), "--out", str(out), "--check"])
    assert stale.exit_code == 1
    absent = runner.invoke(registry_app, ["build", "--data", str(tmp_path / "none"), "--out", str(out)])
    assert absent.exit_code == 2 and "not found under" in absent.output


def test_every_record_states_method_source_version_and_licence() -> None:
    manifest = {s.name: s for s in sources_manifest()}
    default = shipped_default()
    for source in default.sources:
        assert source.version and source.licence and source.produced_by.startswith(f"{source.name}@")
    for domain in ("reuters.com", "state.gov", "harvard.edu"):
        for source in default.layer[domain].sources or (default.layer[domain],):
            record = source.record
            assert record.method is ReputationMethod.DATASET
            name = record.produced_by.split("@", 1)[0]
            assert manifest[name].version == record.version


def test_loading_is_lazy_and_cached() -> None:
    first = shipped_default()
    assert shipped_default() is first
    text = default_path().read_text(encoding="utf-8")
    parsed = parse_document(text)
    assert parsed.layer._cache == {}
    assert "reuters.com" in parsed.layer and parsed.layer._cache == {}
    names = list(parsed.layer)
    assert names == sorted(names) and len(names) == len(parsed.layer)
    for domain in (names[0], names[-1], names[len(names) // 2]):
        assert parsed.layer[domain].record.domain == domain  # the binary search finds both ends
    assert "zzzz-not-listed.example" not in parsed.layer and "ünïcode.example" not in parsed.layer


def test_sources_command_lists_versions_and_licences() -> None:
    result = runner.invoke(registry_app, ["sources"])
    assert result.exit_code == 0, result.output
    for source in sources_manifest():
        assert f"{source.name}@{source.version}" in result.output
    assert "CC0 1.0" in result.output and "CC BY-NC 4.0" in result.output


def test_docs_list_the_current_sources_and_rules() -> None:
    page = (Path(__file__).parents[2] / "docs" / "reputation.md").read_text()
    assert render_sources_markdown() in page, "regenerate the sources section of docs/reputation.md"
    assert render_rules_markdown() in page, "regenerate the rules table of docs/reputation.md"
