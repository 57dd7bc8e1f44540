"""Scoring models over the evidence ledger. Pure: (ledger, config) -> result + trace."""
