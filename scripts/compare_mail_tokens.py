"""Do two checkouts of textnb read mail the same? ``message_tokens`` and ``message_text``
of every message of the shared mail corpora, in six formats, from this process's textnb;
a second run compares two such dumps.

The corpora are read in-process from ``../shared/corpora/*.tar.gz`` (SpamAssassin,
CSDMC2010, the SMS Spam Collection: every message file of their ``ham`` and ``spam``
folders, an SMS with a line end added as ``bench_spam`` reads it). Each message is read
as published, without the blank line after its header, header-less (its body only),
with CRLF line ends, with bare CR line ends and after an mbox ``From`` line. A case is
one (message, format); the dump holds a digest of its tokens (in order) and of its text.

Usage (run from any directory; PYTHONPATH picks the checkout)::

    PYTHONPATH=OLD python scripts/compare_mail_tokens.py dump /tmp/old.txt
    PYTHONPATH=NEW python scripts/compare_mail_tokens.py dump /tmp/new.txt
    python scripts/compare_mail_tokens.py compare /tmp/old.txt /tmp/new.txt
"""

import argparse
import hashlib
import re
import sys
import tarfile
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora"
CORPORA = {"spamassassin": "spamassassin_public_corpus.tar.gz", "csdmc2010": "csdmc2010_spam.tar.gz",
           "sms": "sms_spam_collection.tar.gz"}
FROM_LINE = b"From someone@example.org Mon Jan  1 00:00:00 2024\n"


def _lf(data):
    return data.replace(b"\r\n", b"\n")


FORMATS = {
    "as published": lambda d: d,
    "no blank line after the header": lambda d: re.sub(rb"\r?\n\r?\n", b"\n", d, count=1),
    "header-less": lambda d: re.split(rb"\r?\n\r?\n", d, maxsplit=1)[-1],
    "CRLF": lambda d: _lf(d).replace(b"\n", b"\r\n"),
    "bare CR": lambda d: _lf(d).replace(b"\n", b"\r"),
    "mbox From line": lambda d: FROM_LINE + (d.split(b"\n", 1)[-1] if d.startswith(b"From ") else d),
}


def messages(corpus):
    """(name, bytes) of every message file of one corpus, in name order."""
    with tarfile.open(SHARED / CORPORA[corpus]) as tar:
        members = sorted((m for m in tar if m.isfile() and m.name.split("/")[-2:-1] in (["ham"], ["spam"])),
                         key=lambda m: m.name)
        for m in members:
            data = tar.extractfile(m).read()
            yield m.name, data + b"\n" if corpus == "sms" else data


def _digest(value):
    return hashlib.sha1(repr(value).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def dump(path):
    from textnb.io.mailtokens import message_text, message_tokens

    with open(path, "w", encoding="utf-8") as out:
        for corpus in CORPORA:
            n = 0
            for name, data in messages(corpus):
                for fmt, change in FORMATS.items():
                    msg = change(data)
                    out.write(f"{name}\t{fmt}\t{_digest(list(message_tokens(msg)))}\t{_digest(message_text(msg))}\n")
                    n += 1
            print(f"{corpus}: {n} cases", file=sys.stderr)


def compare(old, new):
    a = Path(old).read_text(encoding="utf-8").splitlines()
    b = Path(new).read_text(encoding="utf-8").splitlines()
    if len(a) != len(b):
        print(f"different numbers of cases: {len(a)} and {len(b)}")
        return 1
    tokens = sum(x.split("\t")[2] != y.split("\t")[2] for x, y in zip(a, b))
    texts = sum(x.split("\t")[3] != y.split("\t")[3] for x, y in zip(a, b))
    for x, y in zip(a, b):
        if x != y:
            print("differs:", x.split("\t")[:2])
            break
    print(f"{len(a)} cases: tokens differ in {tokens}, texts differ in {texts}")
    return 1 if tokens or texts else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("dump").add_argument("path")
    cmp = sub.add_parser("compare")
    cmp.add_argument("old")
    cmp.add_argument("new")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.path)
        return 0
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
