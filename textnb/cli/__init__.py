"""The command-line programs: argument parsing and printing only.
"""

from textnb.core.lazy import lazy_exports

# lazy: the mail client (textnb.cli.mailcli) must not import numpy through the textnb command
__getattr__, __dir__ = lazy_exports(__name__, {"build_parser": "textnb.cli.commands", "main": "textnb.cli.commands"})
__all__ = ["build_parser", "main"]
