"""The command-line programs: argument parsing and printing only.
"""

# lazy (PEP 562), written out rather than textnb.core.lazy: the mail client
# (textnb.cli.mailcli) imports this package and must import neither numpy (through
# the textnb command) nor modules it does not run
__all__ = ["build_parser", "main"]


def __getattr__(name):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import textnb.cli.commands as commands

    value = getattr(commands, name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
