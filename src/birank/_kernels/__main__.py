"""``python -m birank._kernels [--force]``: compile the kernels ahead of time, in place
(see :mod:`birank._kernels.ahead`; the install does it too)."""

import sys

from .ahead import main

sys.exit(main())
