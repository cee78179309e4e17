import sys

from traceview.cli import main

sys.exit(main())
