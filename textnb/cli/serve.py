"""``textnb serve``: load a model once and answer classification requests
(:mod:`textnb.apps.serve`)."""

import argparse
import os

from textnb.cli.argtypes import bounded, size

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("serve", help="load a model once and answer classification requests",
                       description="Serve a text model until SIGTERM: spam verdicts for `spamfilter --socket` "
                                   "on a Unix socket, POST /classify with JSON {\"texts\": [...]} over HTTP "
                                   "(see textnb.apps.serve). The model is reloaded when its file is replaced.")
    p.add_argument("model", metavar="MODEL")
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
                   metavar="SECONDS", help=f"drop a client silent for this long (default 30; {timeout.range})")
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


request_size = size  # 1 byte to 4G, as --max-bytes
max_clients = bounded(int, low=1, high=1024)
timeout = bounded(float, low=0, high=3600, low_open=True)


def run(args, out, err):
    from textnb.apps.serve import Server, run as serve_until_signal

    def log(message):
        print(f"textnb serve: {message}", file=err, flush=True)

    def ready(server):
        where = []
        if server.socket_path is not None:
            where.append(f"unix:{server.socket_path}")
        if server.http_address is not None:
            host, port = server.http_address
            where.append(f"http://{host}:{port}")
        log(f"serving {args.model} on {', '.join(where)} (pid {os.getpid()})")

    server = Server(args.model, socket_path=args.socket, http=args.http, socket_mode=args.socket_mode,
                    max_request=args.max_request, max_clients=args.max_clients, timeout=args.timeout, log=log)
    signum = serve_until_signal(server, ready=ready)
    log(f"stopped (signal {signum})")
    return 130 if signum == 2 else 0
