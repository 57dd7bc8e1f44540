"""Where the public evaluation datasets live: ``../shared/datasets`` beside the checkout, or ICARUS_DATASETS.

Tests that read them skip with a clear message when a file is absent; the project copies none of them.
"""

from __future__ import annotations

import os
from pathlib import Path

DATASETS = Path(
    os.environ.get("ICARUS_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)
