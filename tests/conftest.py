"""Every test runs offline: no look-up reaches the internet (RDAP, Crossref, the drift re-fetch, the archive).

Set in the environment at collection, so that the commands tests start as subprocesses inherit it too. A
test of a look-up points it at a local fake server and turns this off for itself
(``monkeypatch.setenv("ICARUS_OFFLINE", "0")`` or ``Settings(offline=False)``).
"""

from __future__ import annotations

import os

os.environ["ICARUS_OFFLINE"] = "1"
