"""``python -m icarus_training --data DIR``: train, select, calibrate and write the judge's weights."""

from icarus_training.train import main

if __name__ == "__main__":
    main()
