"""Every call to a language model goes through here: the OpenAI-compatible client's shared pieces
(``client``), the model-assist client for the steps a model may propose for (``assist``), and H30's
quarantine that cleans text before any model reads it (``quarantine``).

Below claims, research, reports, judges and every front door; it reads only the ledger, the settings and
the shared text patterns. Nothing is imported here, so that reaching one module loads no other.
"""
