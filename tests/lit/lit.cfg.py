"""lit configuration for layoutc's FileCheck tests (run: lit tests/lit, or pytest tests/test_lit.py).

Tools are invoked through the Python interpreter running lit, so the suite works in any venv
and on any OS: ``layoutc-opt`` -> ``python -m layoutc.cli.opt``, ``FileCheck``/``filecheck`` ->
``python run_filecheck.py`` (the filecheck package's matcher), ``xdsl-opt`` -> xDSL's driver.
``not`` is lit's internal-shell builtin.
"""

import os
import re
import shlex
import sys

import lit.formats

config.name = "layoutc"  # noqa: F821 (lit injects `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["Inputs", "Output", "lit.cfg.py"]  # noqa: F821

python = shlex.quote(sys.executable)


def tool(names: str, command: str) -> tuple[str, str]:
    """Replace any of the ``|``-separated names as a whole word (not inside paths)."""
    alternatives = "|".join(re.escape(n) for n in names.split("|"))
    pattern = r"(?<![\w./-])(?:" + alternatives + r")(?![\w.-])"
    return (pattern, command.replace("\\", "\\\\"))


# the filecheck package's matcher, started without importing importlib.metadata (run_filecheck.py)
filecheck = os.path.join(os.path.dirname(__file__), "run_filecheck.py")
xdsl = f'{python} -c "import sys; from xdsl.tools.xdsl_opt import main; sys.exit(main())"'
config.substitutions.extend(  # noqa: F821
    [
        tool("layoutc-opt", f"{python} -m layoutc.cli.opt"),
        tool("FileCheck|filecheck", f"{python} {shlex.quote(filecheck)}"),
        tool("xdsl-opt", xdsl),
        ("%python", python),
    ]
)
for var in ("LAYOUTC_DEBUG", "PYTHONPATH"):
    if var in os.environ:
        config.environment[var] = os.environ[var]  # noqa: F821
