"""Makes the shared test helpers in this folder (j4fc_reference.py, state_helpers.py) importable by the test
modules, whichever pytest import mode is used and whichever test files are named."""

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
