import os
import sys

try:  # Ctrl-C while the CLI's dependencies are still importing: the same exit code as later on
    from .cli import run
except KeyboardInterrupt:
    sys.stderr.write("skillc: interrupted\n")
    sys.stderr.flush()
    # Not sys.exit: CPython re-raises SIGINT at shutdown after an interrupt during the __main__
    # module's import (exit status -2); 130 is decided here, as in cli.main.
    os._exit(130)

run()
