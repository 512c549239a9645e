"""``textnb serve``: load a model once and answer classification requests
(:mod:`textnb.apps.serve`)."""

import argparse
import os

from textnb.cli.argtypes import bounded, size
from textnb.cli.options import add_model_command

__all__ = ["add_parser", "run"]


#: what ``textnb serve --help`` says first (argparse reflows it)
_DESCRIPTION = """\
Serve a text model until SIGTERM: spam verdicts for `spamfilter --socket` on a Unix socket,
POST /classify with JSON {"texts": [...]} over HTTP (optional "top" / "threshold" as
predict's --top / --threshold; a multi-label model's labels as predict gives them),
SpamAssassin's spamd protocol for spamc and mail servers (see textnb.apps.serve,
textnb.apps.spamd). The model is reloaded when its file is replaced; SIGHUP reads it again
at once.
"""


def add_parser(sub):
    p = add_model_command(sub, "serve", description=_DESCRIPTION,
                          help="load a model once and answer classification requests")
    p.add_argument("--socket", metavar="PATH", help="Unix socket to listen on (created mode 0600)")
    p.add_argument("--socket-mode", type=socket_mode, default=0o600, metavar="OCTAL",
                   help=f"permissions of the socket (default 600; 660 lets the group connect; {socket_mode.range})")
    p.add_argument("--http", type=http_address, metavar="[HOST:]PORT",
                   help=f"listen for HTTP on PORT of 127.0.0.1, or of HOST (0 = any free port, printed; {http_address.range})")
    p.add_argument("--max-request", type=request_size, default=16 * 1024 * 1024, metavar="SIZE",
                   help=f"largest request body accepted (default 16M; {request_size.range})")
    p.add_argument("--max-clients", type=max_clients, default=32, metavar="N",
                   help=f"connections served at once (default 32; more wait; {max_clients.range})")
    p.add_argument("--timeout", type=timeout, default=30.0,
                   metavar="SECONDS", help=f"a whole request must arrive within this long (a deadline, not per read) and an "
                                           f"idle client is dropped after it (default 30; {timeout.range})")
    p.add_argument("--spamd", type=spamd_address, metavar="ADDRESS",
                   help="speak SpamAssassin's spamd protocol (SPAMC/1.5, for spamc, Exim, Postfix) on PORT of "
                        "127.0.0.1, HOST:PORT, or a Unix socket PATH (with a '/'; created mode 0600; "
                        f"{spamd_address.range})")
    p.add_argument("--allow-tell", action="store_true",
                   help="let spamd clients learn (spamc -L spam|ham|forget), as spamd's --allow-tell")
    p.add_argument("--user-models", metavar="TEMPLATE",
                   help="per-user models for spamd requests: the User: header's name replaces %%u "
                        "(e.g. /var/lib/textnb/users/%%u.tnb; a user whose path is the served model "
                        "never learns into it)")
    p.add_argument("--unknown-user", choices=("fallback", "refuse"), default="fallback",
                   help="a user without a model file gets the served model (fallback, the default) "
                        "or an error (refuse)")
    p.add_argument("--max-texts", type=max_texts, default=DEFAULT_MAX_TEXTS, metavar="N",
                   help=f"texts in one /classify request (default {DEFAULT_MAX_TEXTS}; {max_texts.range})")
    p.add_argument("--max-tokens", type=max_tokens, default=DEFAULT_MAX_TOKENS, metavar="N",
                   help=f"words in all texts of one /classify request (default {DEFAULT_MAX_TOKENS}; "
                        f"{max_tokens.range})")
    p.set_defaults(handler=run)
    return p


def http_address(text):
    """``PORT`` (on 127.0.0.1) or ``HOST:PORT`` for ``serve --http``."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]") if sep else "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        number = -1
    if not host or not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"expected PORT or HOST:PORT, got {text!r}")
    return host, number


http_address.range = "port 0 to 65535"


def socket_mode(text):
    try:
        mode = int(text, 8)
    except ValueError:
        mode = -1
    if not 0 <= mode <= 0o777:
        raise argparse.ArgumentTypeError(f"expected an octal mode such as 600 or 660, got {text!r}")
    return mode


socket_mode.range = "000 to 777"


def spamd_address(text):
    """``PORT`` (on 127.0.0.1), ``HOST:PORT`` or a socket path (holding a ``/``) for ``--spamd``."""
    if "/" in text:
        return text
    return http_address(text)


spamd_address.range = "port 0 to 65535, or a socket path"


#: (:data:`textnb.apps.serve.DEFAULT_MAX_TEXTS`, ``DEFAULT_MAX_TOKENS``: written here too so that
#: ``textnb --help`` does not import the daemon; tests/apps/test_serve.py checks that they agree)
DEFAULT_MAX_TEXTS = 10_000
DEFAULT_MAX_TOKENS = 2_000_000
request_size = size  # 1 byte to 4G, as --max-bytes
max_texts = bounded(int, low=1, high=10**7)
max_tokens = bounded(int, low=1, high=10**10)
max_clients = bounded(int, low=1, high=1024)
timeout = bounded(float, low=0, high=3600, low_open=True)


def run(args, out, err):
    from textnb.apps import protocol
    from textnb.apps.serve import Server, run as serve_until_signal
    from textnb.apps.spamd import shown_address

    def log(message):
        # (the daemon's rule for its log, which the server's own lines have passed already: a path named in it one line)
        print(f"textnb serve: {protocol.one_line(message)}", file=err, flush=True)

    def ready(server):
        where = []
        if server.socket_path is not None:
            where.append(f"unix:{server.socket_path}")
        if server.http_address is not None:  # (an IPv6 host in brackets, as a URL has it: http://[::1]:PORT)
            where.append(f"http://{shown_address(*server.http_address)}")
        if server.spamd_address is not None:
            a = server.spamd_address
            where.append(f"spamd:{a}" if isinstance(a, str) else f"spamd://{shown_address(*a)}")
        log(f"serving {args.model} on {', '.join(where)} (pid {os.getpid()})")

    if args.spamd is None:  # (found by a user trial: taken without a word where they do nothing)
        unused = [flag for flag, given in (("--allow-tell", args.allow_tell), ("--user-models", args.user_models),
                                           ("--unknown-user", args.unknown_user != "fallback")) if given]
        if unused:
            print(f"textnb serve: warning: {', '.join(unused)} {'apply' if len(unused) > 1 else 'applies'} to "
                  "spamd requests only (--spamd ADDRESS): unused", file=err, flush=True)
    server = Server(args.model, socket_path=args.socket, http=args.http, socket_mode=args.socket_mode,
                    max_request=args.max_request, max_clients=args.max_clients, timeout=args.timeout,
                    spamd=args.spamd, allow_tell=args.allow_tell, user_models=args.user_models,
                    unknown_user=args.unknown_user, max_texts=args.max_texts, max_tokens=args.max_tokens, log=log)
    signum = serve_until_signal(server, ready=ready)
    log(f"stopped (signal {signum})")
    return 130 if signum == 2 else 0
