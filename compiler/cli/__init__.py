"""Command-line tools: `layoutc` (cli/main.py) and `layoutc-opt`."""
