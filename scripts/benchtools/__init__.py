"""The code behind the commands in scripts/: one module per job.

Each ``scripts/NAME`` is a few lines that enter ``.venv`` (``project.enter_venv``)
and hand a module's ``main`` to the shared runner (``cli.main``).  Modules call
each other with typed arguments, never through an argument parser.  Nothing
here is imported by the benchmark suite: asv's environments do not hold it.
"""
