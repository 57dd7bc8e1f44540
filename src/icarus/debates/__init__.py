"""Live debates (RTFC): transcripts in, claim panels out; research methods, the elector and escalation."""
