"""``python -m table`` is the ``table`` command."""

import sys

from table.cli import main

sys.exit(main())
