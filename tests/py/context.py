# SPDX-License-Identifier: GPL-2.0
"""Puts this tree's scripts/ on sys.path, so that the tests import its cclab."""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(TOP, "tests", "py", "fixtures")
sys.path.insert(0, os.path.join(TOP, "scripts"))
