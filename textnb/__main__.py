from textnb.cli.program import main

raise SystemExit(main())
