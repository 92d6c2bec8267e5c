"""`python -m sparkls` is the same as the `sparkls` command."""

from sparkls.cli import main

raise SystemExit(main())
