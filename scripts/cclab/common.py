# SPDX-License-Identifier: GPL-2.0
"""What netlab and bench share: the tree's location, logging, the
user-facing error, JSON files, and the body of each main()."""

import json
import os
import re
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_T_START = time.monotonic()
PROG = "cclab"     # log prefix; each tool's main() sets its own name
VERBOSE = False


class Error(Exception):
    """A failure with a message meant for the user."""


def setup(prog, verbose=False):
    global PROG, VERBOSE
    PROG, VERBOSE = prog, verbose


def log(msg):
    print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def debug(msg):
    if VERBOSE:
        log(f"[{time.monotonic() - _T_START:7.2f}s] {msg}")


def run_command(func, args, error_rc, interrupted):
    """Run a subcommand: an Error or Ctrl-C ends it with a message and an exit code."""
    try:
        return func(args)
    except Error as e:
        log(f"error: {e}")
        return error_rc
    except KeyboardInterrupt:
        log(interrupted)
        return 130


def slug(text):
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_") or "x"


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise Error(f"cannot read {path}: {e}")


def write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)

