#!/usr/bin/env python3
"""Build the compiled ``spamfilter`` from a checkout: ``python scripts/build_spamclient.py -o PATH``.

The command line of :func:`textnb.apps.spamclient_build.build_client` (which returns the
executable's path or raises ClientBuildError): by default the client hands every mode but
the daemon client to this checkout's ``scripts/spamfilter``; ``--installed``, to the textnb
installed for this interpreter (or ``--python PY``), named by its absolute path (``pip
install .`` builds one that runs the console script installed beside it instead). Prints
the executable's path; a build that fails is one line (``build_spamclient: ...``, then the
compiler's own output), exit 1.
"""

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from textnb.apps.spamclient_build import (  # noqa: E402
    ClientBuildError,
    build_client,
    checkout_fallback,
    python_fallback,
)


def main(argv=None):
    """``build_spamclient.py -o PATH [--installed] [--python PY] [--cc CC]``; the exit status."""
    p = argparse.ArgumentParser(prog="build_spamclient", description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", required=True, help="the executable to write")
    p.add_argument("--installed", action="store_true",
                   help="fall back to the textnb of --python (default: this checkout's scripts/spamfilter)")
    p.add_argument("--python", default=None, help="the interpreter of the fallback (default: this one)")
    p.add_argument("--cc", default=None, help="the C compiler command (default: $CC, cc, gcc or clang)")
    args = p.parse_args(argv)
    fallback = python_fallback(args.python) if args.installed else checkout_fallback(REPO, args.python)
    try:
        out = build_client(args.output, fallback=fallback, cc=args.cc)
    except ClientBuildError as exc:
        print(f"build_spamclient: {exc}", file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
