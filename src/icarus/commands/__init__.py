"""The commands ``icarus.cli`` defines itself (``score``, ``check``, ``policy``, ``schema``, and ``models`` and
``compare`` over the model registry), each module imported only when one of its commands runs."""
