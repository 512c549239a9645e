from textnb.cli import main

raise SystemExit(main())
