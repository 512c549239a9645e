"""The command-line programs: argument parsing and printing only.
"""

from textnb.cli.commands import build_parser, main

__all__ = ["build_parser", "main"]
