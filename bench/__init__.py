"""Benchmarks: scripts that print figures and never assert (README.md). `kit/` is what
they share with the tests; nothing here imports from tests/."""
