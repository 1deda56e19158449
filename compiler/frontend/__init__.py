"""The Python front end: ``@layoutc.kernel`` functions traced into layoutc IR.

See docs/frontend.md for the DSL and the tracing design. Modules: ``kernel`` (the decorator),
``spec`` (compile specs from annotations and arrays), ``rewrite``/``liveness`` (AST rewriting of
control flow), ``control_flow`` (its runtime), ``scalars``/``tensor`` (proxies), ``trace``
(building the module), ``abi`` (parameter layout), ``errors``/``locations`` (diagnostics).
"""

from __future__ import annotations
