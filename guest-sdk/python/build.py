#!/usr/bin/env python3
"""``weft-componentize`` from a checkout, without installing the SDK: see weft_componentize."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from weft_componentize import *  # noqa: E402,F401,F403 - the tests' helpers use its functions
from weft_componentize import build, ensure_package, main, run  # noqa: E402,F401

if __name__ == "__main__":
    run()
