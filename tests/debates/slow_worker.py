"""A worker process for the kill test: it leases one debate panel and researches it slowly, writing a marker
file once research has begun, so the test can SIGKILL it mid-panel.

    python -m tests.debates.slow_worker DATABASE_URL PANEL_ID MARKER_PATH
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from icarus.debates.model import DebateSettings, Panel, ResearchMode
from icarus.debates.research.base import ClaimToResearch
from icarus.debates.service import DebatePipeline, DebateService, ServiceConfig
from icarus.settings import Settings
from icarus.store import Store
from tests.debates.store_fixtures import sentence_claims

RESEARCH_SECONDS = 120.0  # far longer than the test waits: it is killed first


def main(argv: list[str]) -> int:
    database_url, panel_id, marker = argv[0], int(argv[1]), Path(argv[2])

    def slow_research(mode: ResearchMode, claim: ClaimToResearch, debate_settings: DebateSettings) -> Panel:
        marker.write_text(f"researching {claim.text}")
        time.sleep(RESEARCH_SECONDS)
        raise AssertionError("this worker should have been killed mid-panel")

    store = Store(database_url).open()
    service = DebateService(
        store,
        DebatePipeline(detect=sentence_claims, research=slow_research),
        config=ServiceConfig.from_settings(Settings()),  # the panel lease from ICARUS_DEBATE_PANEL_LEASE_S
    )
    print(service.research_panel(panel_id), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
