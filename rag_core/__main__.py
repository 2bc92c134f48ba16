"""`python -m rag_core COMMAND`: the command line, built in `rag_core.cli.main`."""

import sys

from rag_core.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
