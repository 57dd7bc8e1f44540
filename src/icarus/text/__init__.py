"""Text tools every floor above the ledger shares: ``words`` (tokens, a light stemmer, sentences,
quantities, years, places) and ``markers`` (the word lists and patterns read both by the scoring rules and
by the code that cleans text before a model reads it). Nothing here imports any other Icarus package."""
