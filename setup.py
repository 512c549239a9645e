"""What pyproject.toml cannot declare: the compiled ``spamfilter``.

``spamfilter`` is the one command run once per mail message, so its start-up is paid per
message. When a C compiler works, ``pip install .`` builds ``textnb/apps/spamclient.c``
(the daemon client, ``spamfilter --socket PATH``, in C) and installs it as
``spamfilter``, with the console script ``textnb-spamfilter-python``
(``textnb.cli.mailcli:spamfilter``) beside it: the client runs that script, found in its
own folder, for everything else. The binary names no interpreter: pip writes the
installing one into the console script, so a wheel built by one Python (``python -m
build``'s throwaway environment, pip's wheel cache) runs the textnb it is installed
with. Otherwise ``spamfilter`` is the console script ``textnb.cli.mailcli:spamfilter``,
the same command at Python's speed. ``TEXTNB_NO_C_CLIENT=1`` always installs the console
script. ``textnb`` and ``topicfilter`` are always console scripts. See
textnb/apps/spamclient_build.py.
"""

import importlib.util
import os
import sys
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.install_scripts import install_scripts
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_textnb_spamclient_build",
                                               HERE / "textnb" / "apps" / "spamclient_build.py")
builder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builder)

CONSOLE_SCRIPTS = {
    "textnb": "textnb.cli.program:main",
    "spamfilter": "textnb.cli.mailcli:spamfilter",
    "topicfilter": "textnb.cli.mailcli:topicfilter",
}


def _client_builds():
    """Whether the C client compiles here (tried once, in a scratch folder)."""
    if os.environ.get("TEXTNB_NO_C_CLIENT", "").strip() not in ("", "0"):
        return False
    with tempfile.TemporaryDirectory(prefix="tnbprobe") as tmp:
        try:
            builder.build_client(Path(tmp) / "spamfilter", fallback=builder.installed_fallback())
        except builder.ClientBuildError as exc:
            print(f"textnb: spamfilter is the Python console script ({str(exc).splitlines()[0]})",
                  file=sys.stderr)
            return False
    return True


C_CLIENT = _client_builds()
if C_CLIENT:  # the compiled client is spamfilter; the Python command, its fallback, beside it
    CONSOLE_SCRIPTS[builder.FALLBACK_SCRIPT] = CONSOLE_SCRIPTS.pop("spamfilter")


class InstallScripts(install_scripts):
    """install_scripts that also compiles the C ``spamfilter`` into the scripts folder."""

    def run(self):
        super().run()
        if C_CLIENT:
            out = builder.build_client(Path(self.install_dir) / "spamfilter",
                                       fallback=builder.installed_fallback())
            self.outfiles = [*(self.outfiles or []), str(out)]


class TextnbDistribution(Distribution):
    """With the C client: scripts to build and install, and a platform wheel (it holds a binary)."""

    def has_scripts(self):
        return C_CLIENT or super().has_scripts()

    def has_ext_modules(self):
        return C_CLIENT or super().has_ext_modules()


setup(
    distclass=TextnbDistribution,
    scripts=[],  # a list (not None) for the commands that list scripts when has_scripts() says so
    cmdclass={"install_scripts": InstallScripts},
    entry_points={"console_scripts": [f"{name} = {target}" for name, target in CONSOLE_SCRIPTS.items()]},
)
