"""``python -m ms_tensor.registry``: print every registered entry, one per line."""

import sys

from ms_tensor.registry import main

sys.exit(main())
