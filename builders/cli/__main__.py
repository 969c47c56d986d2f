"""``python -m builders.cli``."""

from . import main

main()
