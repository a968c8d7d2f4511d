"""`python -m geo`: the command line."""

from geo.cli import main

raise SystemExit(main())
