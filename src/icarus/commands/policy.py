"""``icarus policy``: the published scoring policies and every model's methodology page."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from icarus.commands.errors import fail
from icarus.scoring.icarus.config import POLICY_FILES, UnknownPolicyError, load_policy

policy_app = typer.Typer(no_args_is_help=True, help="Published scoring policies.")


@policy_app.command("show")
def policy_show(
    ref: Annotated[str, typer.Argument(help="Model name@version, e.g. icarus@1.0 or ledger-default@0.1.0.")],
    shipped: Annotated[
        bool,
        typer.Option(
            "--shipped",
            help="Say what is live on a deployment with the shipped settings (as docs/methodology does), "
            "not on this one.",
        ),
    ] = False,
) -> None:
    """Print a model's methodology page as Markdown, rendered from its config (any registered model). An
    Icarus policy's page says which of its rule parts act on this deployment, from its settings."""
    if not ref.startswith("icarus@"):
        from icarus.commands.models import methodology_for

        sys.stdout.write(methodology_for(ref))
        return
    try:
        config = load_policy(ref)
    except UnknownPolicyError as exc:
        fail(str(exc))
    from icarus.reports.methodology import deployment_facts, published_methodology, shipped_settings

    deployment = deployment_facts(shipped_settings() if shipped else None)
    sys.stdout.write(published_methodology(config, deployment=deployment))


@policy_app.command("list")
def policy_list() -> None:
    """List the shipped policy versions with their config hashes."""
    for ref in sorted(POLICY_FILES):
        sys.stdout.write(f"{ref}\t{load_policy(ref).config_hash}\n")
