"""Hypothesis settings for the fuzz tests: few examples by default (the suite's time budget),
``LAYOUTC_FUZZ_EXAMPLES=N`` for long local runs, derandomized under ``CI=true``."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def fuzz_settings(default_examples: int) -> settings:
    """Settings for one fuzz test that runs ``default_examples`` programs unless overridden."""
    examples = int(os.environ.get("LAYOUTC_FUZZ_EXAMPLES", default_examples))
    return settings(
        max_examples=examples,
        deadline=None,  # each example compiles a kernel
        derandomize=CI,
        database=None if CI else settings.default.database,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
        print_blob=True,
    )
