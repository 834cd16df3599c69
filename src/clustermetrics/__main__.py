"""``python -m clustermetrics``: the same command line as the ``clustermetrics`` script."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
