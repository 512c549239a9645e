from textnb.cli.commands import main

raise SystemExit(main())
