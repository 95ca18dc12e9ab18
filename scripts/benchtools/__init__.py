"""The code behind the commands in scripts/ (cli.py); nothing here is imported by the benchmark suite."""
