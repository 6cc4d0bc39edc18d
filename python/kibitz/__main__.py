"""``python -m kibitz``: the kibitz command line (see :mod:`kibitz.cli`)."""

import sys

from kibitz.cli import main

if __name__ == "__main__":
    sys.exit(main())
