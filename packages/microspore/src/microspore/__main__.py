"""``python -m microspore ...`` runs the ``microspore`` command."""

import sys

from microspore.cli import main

sys.exit(main())
