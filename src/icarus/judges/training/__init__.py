"""Training the embedding judge's head (development only: needs scikit-learn). See ``train``."""
