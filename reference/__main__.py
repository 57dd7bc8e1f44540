"""``python -m reference score FILE --model NAME@VER``: recompute a published score, print the result JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reference import evidenceverify, icarus_policy, ledger_models, lvf

FAMILIES = {
    "ledger-strict": ledger_models,
    "ledger-default": ledger_models,
    "lvf": lvf,
    "evidenceverify": evidenceverify,
    "icarus": icarus_policy,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reference")
    commands = parser.add_subparsers(dest="command", required=True)
    score = commands.add_parser("score", help="recompute a published result, trace or claim-input file")
    score.add_argument("file", type=Path)
    score.add_argument("--model", help="NAME@VER; defaults to the model the file names")
    check = commands.add_parser(
        "check", help="recompute a published result and say whether every claim agrees"
    )
    check.add_argument("file", type=Path)
    check.add_argument("--model", help="NAME@VER; defaults to the model the file names")
    args = parser.parse_args(argv)
    data = json.loads(args.file.read_text(encoding="utf-8"))
    ref = args.model or _named_model(data)
    if not ref:
        parser.error("the file names no model: give --model NAME@VER")
    family = FAMILIES.get(ref.split("@")[0])
    if family is None:
        parser.error(f"no reference for {ref!r}; it covers {', '.join(sorted(FAMILIES))}")
    try:
        result = family.score(data, ref)
    except (KeyError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.command == "score":
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    if hasattr(family, "differing"):  # families whose records are not ledger-model traces
        rows = family.differing(data, result)
        for subject, fields in rows:
            print(f"{subject}: " + (f"differs in {', '.join(fields)}" if fields else "agrees"))
        agreeing = sum(not fields for _, fields in rows)
        print(f"{agreeing} of {len(rows)} agree under {ref}")
        return 0 if agreeing == len(rows) else 1
    published = data.get("trace", data).get("claims", [])
    differing = 0
    for claim, mine in zip(published, result["claims"], strict=True):
        fields = sorted(k for k in claim.keys() - {"code_hash"} | mine.keys() if claim.get(k) != mine.get(k))
        differing += bool(fields)
        print(f"{claim['claim']}: " + (f"differs in {', '.join(fields)}" if fields else "agrees"))
    print(f"{len(published) - differing} of {len(published)} claims agree under {ref}")
    return 1 if differing else 0


def _named_model(data: object) -> str | None:
    """The model a record names: a result's ``model``, a trace's, or an LVF run's ``methodology``."""
    first = data[0] if isinstance(data, list) and data else data
    if not isinstance(first, dict):
        return None
    named = first.get("model") or first.get("trace", {}).get("model") or first.get("methodology")
    named = named or first.get("policy")  # an Icarus result names its policy
    return str(named) if named else None


if __name__ == "__main__":
    sys.exit(main())
