"""An independent reference implementation of the published scoring models, written from docs/spec/.

Standard library only, and it never imports the engine (``icarus``): a published score can be recomputed
here without running the code that produced it. ``python -m reference score FILE --model NAME@VER``.
"""
