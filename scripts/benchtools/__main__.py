"""``python -m benchtools NAME ...``: the door that runs in whatever Python starts it (cli.main)."""

from .cli import main

main()
