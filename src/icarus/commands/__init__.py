"""The commands ``icarus.cli`` defines itself (``score``, ``check``, ``policy``, ``schema``), one module each,
imported only when the command runs."""
