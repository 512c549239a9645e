from textnb.cli.program import main

status = main()
# CPython marks a KeyboardInterrupt that ended an exec() of a string as unhandled even when the
# program caught it afterwards, and `python -m` then ends by SIGINT instead of with the program's
# status (no line, -2 to a parent process, where `textnb: interrupted` had been printed and 130
# returned). scipy's import runs such an exec (array_api_compat's clone_module), so a Ctrl-C
# landing in it hit this. An exec of a string that ends normally clears the mark; the console
# script, run as a file, never had it.
exec("")  # noqa: S102
raise SystemExit(status)
