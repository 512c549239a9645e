#!/usr/bin/env python3
"""Build a mixed table (text and header attributes) from the SpamAssassin and CSDMC2010 mail.

Reads the extracted corpora ``corpora/spamassassin/{ham,spam}`` and
``corpora/csdmc2010_spam/{ham,spam}`` (``--corpora``, default ``/work/corpora``; the
archives and their SOURCE.md files are in ``../shared/corpora/``) and writes one CSV row
per distinct message:

``subject``, ``body``
    text columns: the decoded Subject, and the text of every text part (MIME walked,
    quoted-printable / base64 decoded, HTML reduced to its text), both as the one mail
    reader, :func:`textnb.io.mailtokens.read_message`, reads the message (the body at most
    100,000 characters);
``sender_domain``
    nominal: the domain of the From address, lowercased (``?`` when there is none);
``n_recipients``
    numeric: the number of addresses in To and Cc;
``has_html``, ``has_attachment``
    nominal yes / no: a text/html part; a part that is not read as text and has a file name;
``size``
    numeric: log10 of the message size in bytes;
``hour``
    numeric: the hour of the Date header in the sender's own time zone (``?`` when
    there is no parseable date);
``corpus``
    which corpus the row comes from (the experiment leaves it out of the models);
``class``
    ham / spam.

Deduplication (csdmc2010_spam.SOURCE.md, "Caveats"): 2,345 CSDMC messages are also in
the SpamAssassin corpus; the rows listed in
``csdmc2010_spam/overlap_with_spamassassin_public_corpus.tsv`` are dropped, and then any
message whose body (the bytes after the first blank line, CRLF read as LF) was already
seen is dropped too (SpamAssassin has internal duplicates, CSDMC 4 pairs, and the TSV's
"message-id only" matches are not always the same body).

Run: ``python scripts/build_mail_table.py -o /tmp/mail_table.csv`` (about a minute).
"""

import argparse
import csv
import email.utils
import hashlib
import math
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from textnb.io.mailtokens import decode_header, read_message  # noqa: E402 (the one mail reader)

MAX_BODY = 100_000
COLUMNS = ["subject", "body", "sender_domain", "n_recipients", "has_html", "has_attachment",
           "size", "hour", "corpus", "class"]


def _body_key(data):
    data = data.replace(b"\r\n", b"\n")
    head, sep, body = data.partition(b"\n\n")
    return hashlib.sha1(body if sep else data).hexdigest()


def _fields(mail):
    """The top header's fields, ``{lowercase name: [decoded values]}`` (the one reader's
    :class:`~textnb.io.mailtokens.Mail`: its first ``header`` item, when the message has one)."""
    out = {}
    if mail.items and mail.items[0][0] == "header":
        for name, value in mail.items[0][1]:
            out.setdefault(name, []).append(decode_header(value))
    return out


def row_of(data, corpus, label):
    """One table row of a raw message (bytes), read by :func:`textnb.io.mailtokens.read_message`:
    the subject from its header, the body from the text of its text parts (HTML reduced to
    text, encodings decoded; an unreadable message: its bytes as text)."""
    mail = read_message(data)
    fields = _fields(mail)
    subject = " ".join(fields.get("subject", [])[:1]).replace("\r", " ").replace("\n", " ").strip()
    texts = [item[1] for item in mail.items if item[0] == "text"]
    if mail.unparsable is not None:
        texts = [mail.unparsable]
    body = "\n".join(texts)[:MAX_BODY]
    domain, n_rcpt, hour = "?", 0, "?"
    try:
        for _name, addr in email.utils.getaddresses(fields.get("from", [])):
            if "@" in addr:
                # no brackets: "[10.0.0.1]" would read as an interval cell (textnb.io.uncertain)
                domain = addr.rsplit("@", 1)[1].strip().strip("<>[]{}").lower() or "?"
                break
        n_rcpt = sum(1 for _n, a in email.utils.getaddresses(fields.get("to", []) + fields.get("cc", [])) if a)
    except (ValueError, TypeError, IndexError):
        pass
    if fields.get("date"):
        try:
            hour = str(email.utils.parsedate_to_datetime(fields["date"][0].strip()).hour)
        except (ValueError, TypeError, IndexError, OverflowError):
            hour = "?"
    has_html = "yes" if any(item[0] == "ctype" and item[1] == "text/html" for item in mail.items) else "no"
    has_attachment = "yes" if any(item[0] == "attach" and item[1] is not None for item in mail.items) else "no"
    return {
        "subject": subject,
        "body": body,
        "sender_domain": domain,
        "n_recipients": str(n_rcpt),
        "has_html": has_html,
        "has_attachment": has_attachment,
        "size": f"{math.log10(max(len(data), 1)):.4f}",
        "hour": hour,
        "corpus": corpus,
        "class": label,
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--corpora", default="/work/corpora", help="folder with spamassassin/ and csdmc2010_spam/")
    p.add_argument("-o", "--output", required=True, help="CSV file to write")
    args = p.parse_args(argv)
    root = Path(args.corpora)
    overlap = set()
    with open(root / "csdmc2010_spam" / "overlap_with_spamassassin_public_corpus.tsv", encoding="utf-8") as f:
        for rec in csv.DictReader(f, delimiter="\t"):
            overlap.add(rec["csdmc_file"])
    seen = set()
    counts = {}
    dropped = {"overlap": 0, "duplicate body": 0}
    tmp = args.output + ".part"
    with open(tmp, "w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        for corpus in ("spamassassin", "csdmc2010_spam"):
            for label in ("ham", "spam"):
                for path in sorted((root / corpus / label).iterdir()):
                    if corpus == "csdmc2010_spam" and path.name in overlap:
                        dropped["overlap"] += 1
                        continue
                    data = path.read_bytes()
                    key = _body_key(data)
                    if key in seen:
                        dropped["duplicate body"] += 1
                        continue
                    seen.add(key)
                    writer.writerow(row_of(data, corpus, label))
                    counts[(corpus, label)] = counts.get((corpus, label), 0) + 1
    os.replace(tmp, args.output)
    for (corpus, label), n in sorted(counts.items()):
        print(f"{corpus:16s} {label:5s} {n:6d}")
    print(f"dropped: {dropped}; rows: {sum(counts.values())} -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
