"""``python -m bot`` is the ``errkb`` command."""

from bot.cli import main

main()
