"""The settings tree: one pydantic model, fed from three places, never fatal.

Sources, later ones winning key by key: the defaults below, `.sparkls.toml` at the
workspace root, `initializationOptions`, and the `sparkls` section of
`workspace/configuration`. Keys may be snake_case or camelCase (editors send camelCase).

A bad value never stops the server: `load_settings` drops each invalid key, keeps its
default, and returns the problems as sentences for `window/showMessage`.

Where code and keys may go is decided here too (docs/configuration.md, "Local
endpoints and keys"): a tier is *local* when its `base_url` host is loopback;
`local_base_url` puts both tiers on one local server; a local tier gets only a key
given to that tier (`Settings.api_key_for`); a project file may not choose a foreign
host or which environment variable is read (`guard_project_endpoints`).

The package does no I/O except `read_project_file`; it knows nothing of LSP. Its
parts: model.py (the tree), load.py (merging, validating, the problems' wording),
project.py (the project file and what it may not set).
"""

from __future__ import annotations

from sparkls.config.load import did_you_mean, load_settings, merge, setting_paths, snake_keys
from sparkls.config.model import (
    DEFAULT_DEEP_MODEL,
    DEFAULT_FAST_MODEL,
    DEFAULT_LOCAL_BASE_URL,
    PROJECT_FILE,
    TIERS,
    CompletionSettings,
    ContextSettings,
    DeepSettings,
    NextEditSettings,
    Settings,
    SpeculationSettings,
    TierSettings,
    TrustSettings,
)
from sparkls.config.project import OPENAI_HOST, guard_project_endpoints, read_project_file

__all__ = [
    "CompletionSettings",
    "ContextSettings",
    "DEFAULT_DEEP_MODEL",
    "DEFAULT_FAST_MODEL",
    "DEFAULT_LOCAL_BASE_URL",
    "DeepSettings",
    "NextEditSettings",
    "OPENAI_HOST",
    "PROJECT_FILE",
    "Settings",
    "SpeculationSettings",
    "TIERS",
    "TierSettings",
    "TrustSettings",
    "did_you_mean",
    "guard_project_endpoints",
    "load_settings",
    "merge",
    "read_project_file",
    "setting_paths",
    "snake_keys",
]
