"""Text tools every floor shares: ``words`` (tokens, a light stemmer, sentences,
quantities, years, places) and ``markers`` (the word lists and patterns read both by the scoring rules and
by the code that cleans text before a model reads it), and ``wordllama``, the packaged static embedding
model the judges and provenance read. Nothing here imports any other Icarus package."""
