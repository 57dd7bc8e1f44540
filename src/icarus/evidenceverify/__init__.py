"""The EvidenceVerify front door: the independent search and the run around the pure six steps.

* ``search``: the independent re-search through the configured research providers;
* ``service``: one run, deciding whether to search, searching, asking the stance judge, then applying
  ``verify_claim`` to its answers;
* ``cli``: ``icarus evidence-verify``.

The six steps, the config and the methodology page are in ``icarus.scoring.evidenceverify``.
"""
