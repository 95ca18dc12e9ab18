"""The code behind the commands in scripts/ (each a link to scripts/door, which runs ``benchtools NAME``:
cli.py), one module per job; modules call each other with typed arguments, never through a parser.  Nothing
here is imported by the benchmark suite: asv's environments do not hold it."""
