"""The command-line programs: argument parsing and printing only.
"""

from textnb.core.lazy import lazy_exports

# lazy: the mail client (textnb.cli.mailcli) must not import numpy through the textnb command
__getattr__, __dir__ = lazy_exports(__name__, {"textnb.cli.commands": ("build_parser", "main")})
__all__ = ["build_parser", "main"]
