"""Benchmarks, run with ``make bench`` (``python -m bench``); results go to ``bench/results/``."""
