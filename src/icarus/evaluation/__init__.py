"""The evaluation harness: ``icarus eval`` on public fact-checking and stance datasets.

One loader per dataset turns its files into claims and stance pairs (``cases``); ``runner`` builds a ledger
per claim with the check's own pieces and scores it under a policy; ``metrics`` computes the numbers,
``plots`` draws them and ``report`` writes them up; ``cli`` is the command.
"""
