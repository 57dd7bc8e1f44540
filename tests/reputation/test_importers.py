"""Dataset importers for the reputation registry: formats, skipped rows, precedence, round trip, CLI."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from icarus.ledger import ReputationMethod, RiskRating, SourceClass, SourceTier
from icarus.reputation import load_registry
from icarus.reputation.cli import registry_app
from icarus.reputation.importers import (
    import_ifcn,
    import_iffy,
    import_lin2023,
    import_misinfo_list,
    import_opensources,
    import_perennial,
    merge_registries,
    write_registry,
)
from icarus.scoring.icarus.config import load_policy
from tests.datasets import DATASETS

VALUES = load_policy("icarus@1.1").reputation


def _by_domain(entries: list) -> dict:  # type: ignore[type-arg]
    return {e.record.domain: e for e in entries}


@pytest.fixture
def lin(tmp_path: Path) -> Path:
    path = tmp_path / "domain_pc1.csv"
    path.write_text(
        "domain,pc1\n"
        "wirenews.com,1\n"
        "www.goodpaper.org,0.912345678\n"
        "news.goodpaper.org,0.2\n"
        "junkdaily.net,0.104\n"
        "badscore.com,1.7\n"
        "notanumber.com,abc\n"
        "bad–dash.com,0.5\n"
        "someone.blogspot.com,0.3\n"
    )
    return path


def test_lin2023_scores_are_pc1_and_malformed_rows_are_counted(lin: Path) -> None:
    result = import_lin2023(lin, VALUES)
    entries = _by_domain(result.entries)
    # A blog on a shared host keeps its full name: it says nothing about the host itself.
    assert set(entries) == {"wirenews.com", "goodpaper.org", "junkdaily.net", "someone.blogspot.com"}
    assert entries["goodpaper.org"].record.score == Decimal("0.9123")  # the domain's own row, not news.
    assert entries["wirenews.com"].record.tier is SourceTier.OTHER
    record = entries["junkdaily.net"].record
    assert record.method is ReputationMethod.DATASET
    assert record.produced_by.startswith("lin2023@") and record.version == record.produced_by.split("@")[1]
    assert result.skip_reasons == {
        "pc1 outside [0, 1]": 1,
        "pc1 is not a number": 1,
        "not a domain name": 1,
        "duplicate domain (merged with an earlier row)": 1,
    }


def test_H5_perennial_statuses_map_to_policy_values_and_risk_ratings(tmp_path: Path) -> None:
    path = tmp_path / "perennial-sources_kudusch_2021-03-17.csv"
    rows = [
        ["id", "name", "status", "status_n", "wiki_url", "urls", "urls_n", "info"],
        [
            "1",
            "Good Wire",
            '["Generally reliable"]',
            "1",
            "https://en.wikipedia.org/wiki/W",
            '["goodwire.com"]',
        ],
        ["2", "Mixed Times", '["No consensus"]', "1", "u", '["mixedtimes.com", "www.mixedtimes.co.uk"]'],
        ["3", "Tabloid", '["Generally unreliable"]', "1", "u", '["tabloid.example"]'],
        ["4", "Propaganda", '["Blacklisted", "Generally unreliable"]', "2", "u", '["propaganda.ru"]'],
        ["5", "Old Rag", '["Deprecated"]', "1", "u", '["oldrag.com"]'],
        ["6", "Noticeboard", '["Wikipedia:Reliable sources/Noticeboard"]', "1", "u", '["x.org"]'],
        ["7", "Broken", "not json", "1", "u", '["broken.com"]'],
        ["8", "No urls", '["Generally reliable"]', "1", "u", "[]"],
    ]

    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows([*rows[:1], *([*r, "info text"] for r in rows[1:])])
    result = import_perennial(path, VALUES)
    entries = _by_domain(result.entries)
    assert result.produced_by == "perennial@2021-03-17"
    assert entries["goodwire.com"].record.score == VALUES.generally_reliable
    assert entries["mixedtimes.co.uk"].record.risk_rating is RiskRating.NO_CONSENSUS
    assert entries["mixedtimes.com"].record.score == VALUES.no_consensus
    assert entries["tabloid.example"].record.risk_rating is RiskRating.GENERALLY_UNRELIABLE
    assert entries["tabloid.example"].record.score == VALUES.generally_unreliable_cap
    assert entries["propaganda.ru"].record.risk_rating is RiskRating.DEPRECATED
    assert entries["oldrag.com"].record.risk_rating is RiskRating.DEPRECATED
    assert result.skip_reasons == {
        "no recognised status": 1,
        "status or urls is not a JSON list": 1,
        "no domains listed": 1,
    }


def test_ifcn_signatories_are_fact_checkers_at_the_policy_value(tmp_path: Path) -> None:
    path = tmp_path / "white_list.json"
    path.write_text(
        json.dumps(
            [
                {
                    "name": "Check Desk",
                    "country": "France",
                    "language": "French",
                    "url": "https://www.checkdesk.fr/x/",
                },
                {
                    "name": "Check Desk",
                    "country": ["Brazil"],
                    "language": "Portuguese",
                    "url": "https://checkdesk.fr/pt",
                },
                {
                    "name": "Verify",
                    "country": "India",
                    "language": "English",
                    "url": "https://factcheck.verify.in/",
                },
                {"name": "No URL", "country": "Peru", "language": "Spanish"},
                "not an object",
            ]
        )
    )
    result = import_ifcn(path, VALUES)
    entries = _by_domain(result.entries)
    assert set(entries) == {"checkdesk.fr", "verify.in"}
    assert entries["verify.in"].record.tier is SourceTier.FACT_CHECKER
    assert entries["verify.in"].source_class is SourceClass.FACT_CHECKER
    assert entries["verify.in"].record.score == VALUES.ifcn_signatory
    assert result.skip_reasons["entry has no url"] == 2


def test_H6_opensources_imports_satire_tags_only(tmp_path: Path) -> None:
    path = tmp_path / "sources.csv"
    path.write_text(
        ",type,2nd type,3rd type,Source Notes (things to know?),\n"
        "funnyonion.com,satire,,,,\n"
        "mixedbag.com,clickbait,satire,,Entertainment website ,\n"
        "fakeish.com,fake,conspiracy,,,\n"
        "untagged.com,,,,,\n"
    )
    result = import_opensources(path, VALUES)
    entries = _by_domain(result.entries)
    assert set(entries) == {"funnyonion.com", "mixedbag.com"}
    assert all(e.source_class is SourceClass.SATIRE for e in entries.values())
    assert result.skip_reasons == {"not tagged satire (only satire tags are imported)": 1, "no tags": 1}


def test_H5_misinfo_list_and_iffy_lists(tmp_path: Path) -> None:
    lines = tmp_path / "misinfo_list.txt"
    lines.write_text(
        "Americasfreedomfighters.com\nTheamericanews.co\nhttp://www.theamericanews.co/a\n\nnot a domain\n"
    )
    misinfo = import_misinfo_list(lines, VALUES)
    entries = _by_domain(misinfo.entries)
    assert set(entries) == {"americasfreedomfighters.com", "theamericanews.co"}
    record = entries["theamericanews.co"].record
    assert record.risk_rating is RiskRating.GENERALLY_UNRELIABLE and not record.on_iffy_index
    assert record.score == VALUES.generally_unreliable_cap
    assert misinfo.skip_reasons == {
        "duplicate domain (merged with an earlier row)": 1,
        "not a domain name": 1,
    }

    sheet = tmp_path / "iffy.csv"
    sheet.write_text("Domain,Name,Factual\niffysite.com,Iffy Site,Low\n,Empty,Low\n")
    iffy = import_iffy(sheet, VALUES)
    assert [e.record.domain for e in iffy.entries] == ["iffysite.com"]
    assert iffy.entries[0].record.on_iffy_index
    assert iffy.produced_by.startswith("iffy@")
    assert iffy.skip_reasons == {"empty domain": 1}


def test_H5_precedence_risk_flags_win_and_nothing_raises_a_score(tmp_path: Path, lin: Path) -> None:
    per = tmp_path / "p.csv"
    per.write_text(
        'id,name,status,status_n,wiki_url,urls,urls_n,info\n1,W,"[""Generally reliable""]",1,u,"[""wirenews.com""]",1,i\n'
        '2,J,"[""No consensus""]",1,u,"[""junkdaily.net""]",1,i\n'
    )
    misinfo = tmp_path / "m.txt"
    misinfo.write_text("wirenews.com\n")
    satire = tmp_path / "s.csv"
    satire.write_text(",type,2nd type,3rd type,notes,\ngoodpaper.org,satire,,,,\n")
    merged = _by_domain(
        merge_registries(
            import_lin2023(lin, VALUES).entries,
            import_perennial(per, VALUES).entries,
            import_misinfo_list(misinfo, VALUES).entries,
            import_opensources(satire, VALUES).entries,
        )
    )
    wire = merged["wirenews.com"].record  # perennial says reliable, Lin 1.0, misinfo list flags it
    assert wire.risk_rating is RiskRating.GENERALLY_UNRELIABLE
    assert wire.score == VALUES.generally_unreliable_cap
    assert wire.produced_by.startswith("perennial@")
    junk = merged["junkdaily.net"].record  # no consensus (0.60) never lifts Lin's 0.104
    assert junk.score == Decimal("0.1040") and junk.risk_rating is RiskRating.NO_CONSENSUS
    paper = merged["goodpaper.org"]
    assert paper.source_class is SourceClass.SATIRE and paper.record.score == Decimal("0.9123")


def test_write_registry_round_trips_through_load_registry(tmp_path: Path, lin: Path) -> None:
    entries = import_lin2023(lin, VALUES).entries
    out = tmp_path / "sub" / "registry.json"
    write_registry(entries, out)
    loaded = load_registry(out)
    assert loaded.entries == _by_domain(entries)
    assert loaded.lookup("https://www.junkdaily.net/story").record.score == Decimal("0.104")
    assert loaded.lookup("https://someone.blogspot.com/post").record.score == Decimal("0.3")
    other_blog = loaded.lookup("https://another.blogspot.com/post").record
    assert other_blog.estimated and other_blog.domain == "another.blogspot.com"


def test_cli_import_and_show(tmp_path: Path, lin: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "reg.json"
    result = runner.invoke(registry_app, ["import", "lin2023", str(lin), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "imported: 4 domains" in result.output and "skipped: 4 rows" in result.output
    assert "pc1 outside [0, 1]" in result.output
    shown = runner.invoke(registry_app, ["show", "www.goodpaper.org", "--registry", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "score (R): 0.9123" in shown.output and "lin2023@" in shown.output and "version:" in shown.output
    unknown = runner.invoke(registry_app, ["show", "brand-new-site.com", "--registry", str(out)])
    assert "method: heuristic" in unknown.output and "reputation estimated, not on file" in unknown.output
    bad = runner.invoke(registry_app, ["import", "nosuchkind", str(lin)])
    assert bad.exit_code == 2
    folder = runner.invoke(registry_app, ["import", "lin2023", str(tmp_path)])
    assert folder.exit_code == 2 and "not a file" in folder.output
    absent = runner.invoke(registry_app, ["import", "lin2023", str(tmp_path / "absent.csv")])
    assert absent.exit_code == 2 and "no such file" in absent.output


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("ifcn", "[" * 100_000 + "]" * 100_000),  # deeper than json can parse
        ("ifcn", "[" + "9" * 5000 + "]"),  # an integer longer than Python reads
        ("lin2023", "domain,pc1\n" + "a" * 200_000 + ",1\n"),  # a field over csv's field limit
        ("perennial", "status,urls\n" + "x" * 200_000 + ",[]\n"),
        ("opensources", "x" * 200_000 + ",type\n"),
    ],
)
def test_hostile_dataset_files_are_one_line_errors(tmp_path: Path, kind: str, text: str) -> None:
    path = tmp_path / "hostile.txt"
    path.write_text(text)
    previous = csv.field_size_limit(131_072)  # the default; readers elsewhere in this process raise it
    try:
        result = CliRunner().invoke(registry_app, ["import", kind, str(path)])
    finally:
        csv.field_size_limit(previous)
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and str(path) in result.output


def test_a_perennial_row_with_hostile_json_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "perennial.csv"
    deep = "[" * 5_000 + "]" * 5_000
    path.write_text(f'status,urls\n"{deep}",[]\n"[{"9" * 5000}]",[]\n"[""Deprecated""]","[""a.example""]"\n')
    result = import_perennial(path, VALUES)
    assert [s.reason for s in result.skipped] == ["status or urls is not a JSON list"] * 2
    assert [e.record.domain for e in result.entries] == ["a.example"]


def test_import_out_that_cannot_be_written_is_a_one_line_error(tmp_path: Path, lin: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = CliRunner().invoke(
        registry_app, ["import", "lin2023", str(lin), "--out", str(blocker / "reg.json")]
    )
    assert result.exit_code == 2, result.output
    assert "error: cannot write" in result.output and "Traceback" not in result.output


REAL = [
    ("lin2023", import_lin2023, "domain-quality-ratings/domain_pc1.csv", 10_500, 11_520),
    (
        "perennial",
        import_perennial,
        "wikipedia-perennial-sources/perennial-sources_kudusch_2021-03-17.csv",
        300,
        600,
    ),
    ("ifcn", import_ifcn, "ifcn-signatories/tub_white_list_2020.json", 60, 137),
    ("opensources", import_opensources, "opensources/sources.csv", 100, 127),
    ("misinfo-list", import_misinfo_list, "averitec/misinfo_list.txt", 1_000, 1_185),
]


@pytest.mark.parametrize(("kind", "importer", "relative", "low", "high"), REAL, ids=[r[0] for r in REAL])
def test_real_dataset_counts_are_plausible(kind: str, importer, relative: str, low: int, high: int) -> None:  # type: ignore[no-untyped-def]
    path = DATASETS / relative
    if not path.is_file():
        pytest.skip(f"{kind} dataset not found at {path} (datasets are not shipped with the project)")
    result = importer(path, VALUES)
    assert low <= len(result.entries) <= high, (len(result.entries), result.skip_reasons)
    malformed = [s for s in result.skipped if not s.reason.startswith("not tagged satire")]
    assert len(malformed) < len(result.entries)
    assert all(e.record.produced_by.startswith(f"{kind}@") for e in result.entries)
