"""``textnb merge``: add up models trained on parts of a corpus."""

from textnb.core.errors import InputError

__all__ = ["add_parser", "run"]


def add_parser(sub):
    p = sub.add_parser("merge", help="add up models trained on parts of a corpus")
    p.add_argument("models", metavar="MODEL", nargs="+")
    p.add_argument("-o", "--output", metavar="MODEL", required=True)
    p.set_defaults(handler=run)
    return p


def run(args, out, err):
    from textnb.core.model_io import load

    models = [load(p) for p in args.models]
    merged = models[0]
    for path, other in zip(args.models[1:], models[1:]):
        try:
            merged.merge(other)
        except (ValueError, AttributeError) as exc:
            raise InputError(f"{path}: cannot merge into {args.models[0]}: {exc}") from None
    merged.save(args.output)
    print(f"merged {len(models)} models -> {args.output}", file=out)
    return 0
