"""Hypothesis settings shared by the fuzz tests: bounded and repeatable in CI,
longer and random with `SPARKLS_FUZZ_EXAMPLES=N`."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

LONG_RUN = int(os.environ.get("SPARKLS_FUZZ_EXAMPLES", "0"))


def fuzz_settings(examples: int, *checks: HealthCheck) -> settings:
    """`examples` fixed-seed examples (no deadline, no database), or LONG_RUN random ones."""
    return settings(
        max_examples=LONG_RUN or examples,
        derandomize=not LONG_RUN,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, *checks],
    )
