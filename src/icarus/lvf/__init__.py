"""The LVF front door: what runs LVF against the world around the pure model in ``icarus.scoring.lvf``.

* ``llm``: the assessor backed by an OpenAI-compatible endpoint (network, settings);
* ``repository``: the append-only store of runs, challenge events and review votes (SQLAlchemy);
* ``cli``: ``icarus lvf`` (score, show stored runs, submit, vote on and review challenges).

Nothing here decides a score: the gate, the criteria, the formula and the challenge rules are in
``icarus.scoring.lvf``.
"""
