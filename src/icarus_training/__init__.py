"""Training and selection scripts for the offline stance judges (development only: needs scikit-learn, and
PyTorch for the cross-encoder). They import the runtime (``icarus.judges``) and write its weights into
``src/icarus/judges/weights/``; the runtime never imports them. See ``train`` and the Makefile's
``train-judge*`` and ``select-judge-*`` targets."""
