"""scripts/build_mail_table.py reads each message with the one mail reader: subject and body
apart (it once fell back to the raw message as the body, with every subject empty)."""

import csv
import importlib.util

from conftest import REPO


def _script():
    spec = importlib.util.spec_from_file_location("build_mail_table", REPO / "scripts" / "build_mail_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PLAIN = (b"Return-Path: <a@x.org>\r\nFrom: Ann <ann@Example.COM>\r\nTo: b@y.org, c@z.org\r\nCc: d@w.org\r\n"
         b"Date: Wed, 21 Aug 2002 10:54:46 -0500\r\nSubject: =?utf-8?q?caf=C3=A9_meeting?=\r\n\r\n"
         b"See you at noon.\r\n")
HTML = (b"From: spam@offers.example\nSubject: WIN money\nMIME-Version: 1.0\n"
        b"Content-Type: multipart/mixed; boundary=\"b1\"\n\n--b1\nContent-Type: text/html\n\n"
        b"<html><body><p>Click <b>here</b></p></body></html>\n--b1\nContent-Type: application/pdf\n"
        b"Content-Disposition: attachment; filename=\"x.pdf\"\nContent-Transfer-Encoding: base64\n\nAAAA\n--b1--\n")


def test_rows_split_subject_and_body_with_the_mail_reader():
    script = _script()
    row = script.row_of(PLAIN, "spamassassin", "ham")
    assert row["subject"] == "café meeting"
    assert row["body"].strip() == "See you at noon."
    assert (row["sender_domain"], row["n_recipients"], row["hour"]) == ("example.com", "3", "10")
    assert (row["has_html"], row["has_attachment"]) == ("no", "no")
    row = script.row_of(HTML, "csdmc2010_spam", "spam")
    assert row["subject"] == "WIN money"
    assert "Click" in row["body"] and "<b>" not in row["body"] and "Content-Type" not in row["body"]
    assert (row["has_html"], row["has_attachment"], row["hour"]) == ("yes", "yes", "?")


def test_table_of_corpus_folders(tmp_path):
    for corpus in ("spamassassin", "csdmc2010_spam"):
        for label, data in (("ham", PLAIN), ("spam", HTML)):
            folder = tmp_path / corpus / label
            folder.mkdir(parents=True)
            (folder / "1.eml").write_bytes(data + corpus.encode())  # distinct bodies: none dropped
    (tmp_path / "csdmc2010_spam" / "overlap_with_spamassassin_public_corpus.tsv").write_text(
        "csdmc_file\tspamassassin_file\n", encoding="utf-8")
    out = tmp_path / "table.csv"
    assert _script().main(["--corpora", str(tmp_path), "-o", str(out)]) == 0
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 4
    assert all(r["subject"] and not r["body"].startswith(("Return-Path", "From:")) for r in rows)
