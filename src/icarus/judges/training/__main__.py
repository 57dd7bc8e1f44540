"""``python -m icarus.judges.training --data DIR``: train, select, calibrate and write the judge's weights."""

from icarus.judges.training.train import main

if __name__ == "__main__":
    main()
