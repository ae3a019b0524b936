"""``python -m birank``: the ``birank`` command."""

import sys

from birank.cli import main

sys.exit(main())
