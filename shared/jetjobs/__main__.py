"""`python -m jetjobs ...`: the same as the `jetjobs` command."""

import sys

from jetjobs._cli.main import main

sys.exit(main())
