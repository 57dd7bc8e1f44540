"""What every HTTP front door shares: tokens, roles and the caller (``auth``), rate limits (``limits``) and
the one error shape (``problems``, RFC 9457). It sits below the doors (checks, debates, LVF,
EvidenceVerify, the pages) so that each can mount its own router; ``icarus.api`` composes them, and
nothing imports ``icarus.api``."""
