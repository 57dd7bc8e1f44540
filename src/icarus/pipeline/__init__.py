"""The check pipeline: capture -> claims -> research -> judges -> provenance -> policy -> store.

Adapters (fetching, search providers, judges, the store) are passed in; the pipeline only orchestrates
them and turns what they return into an evidence ledger that the pure scoring core can score.
"""
