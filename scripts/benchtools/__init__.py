"""The code behind the commands in scripts/: one module per job.

Each ``scripts/NAME`` is a link to one door (scripts/door) that runs ``benchtools NAME``, the command
installed into .venv (cli.main, which reads the configuration and runs ``commands/NAME.py``).  Modules call
each other with typed arguments, never through an argument parser.  Nothing here is imported by the
benchmark suite: asv's environments do not hold it.
"""
