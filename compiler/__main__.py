import sys

try:  # Ctrl-C while the CLI's dependencies are still importing: the same exit code as later on
    from .cli import main
except KeyboardInterrupt:
    sys.stderr.write("skillc: interrupted\n")
    sys.exit(130)

main()
