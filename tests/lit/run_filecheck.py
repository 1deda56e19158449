"""FileCheck for the lit tests (tests/lit/lit.cfg.py): the ``filecheck`` package's own entry
point without its ``importlib.metadata`` import, which only ``--version`` needs and which costs
a third of each call's start-up (165 FileCheck calls a lit run). ``--help``/``--version`` and
anything else go to ``filecheck.main`` unchanged."""

import io
import sys

argv = sys.argv
if len(argv) < 2 or {"--help", "--version", "-version"} & set(argv):
    from filecheck.main import main

    main()
else:
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    for stream in (sys.stdout, sys.stderr):  # as filecheck.main does
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")
    sys.exit(Matcher.from_opts(parse_argv_options(argv)).run())
