"""The settings tree: one pydantic model, fed from three places, never fatal.

Sources, later ones winning key by key: the defaults below, `.sparkls.toml` at the
workspace root, `initializationOptions`, and the `sparkls` section of
`workspace/configuration`. Keys may be snake_case or camelCase (editors send camelCase).

A bad value never stops the server: `load_settings` drops each invalid key, keeps its
default, and returns the problems as sentences for `window/showMessage`.

Where code and keys may go is decided here too (docs/configuration.md, "Local
endpoints and keys"): a tier is *local* when its `base_url` host is loopback;
`local_base_url` puts both tiers on one local server; a local tier gets only a key
given to that tier (`Settings.api_key_for`).

Every source goes through one canonical key function first (keys.py: case, `_`, `-`,
camelCase and section spellings fold to one key), so that what a repository's project
file may not set (project.py, `PROJECT_RULES`: where the key goes, which key, which
certificates, `store`, review) is checked once, on the keys the model validates.

The package does no I/O except `read_project_file`; it knows nothing of LSP. Its
parts: model.py (the tree), keys.py (canonical keys, folding a source), load.py
(merging, validating, the problems' wording), project.py (the project file and what
it may not set).
"""

from __future__ import annotations

from sparkls.config.keys import Folded, canonical_key, fold, setting_paths
from sparkls.config.load import did_you_mean, load_settings, merge, snake_keys
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
from sparkls.config.project import (
    EGLOT_WORKSPACE,
    OPENAI_HOST,
    PROJECT_RULES,
    PROJECT_SOURCE,
    ProjectRule,
    RepositorySource,
    check_project,
    check_repository_settings,
    is_openai_or_loopback,
    read_project_file,
)

__all__ = [
    "CompletionSettings",
    "ContextSettings",
    "DEFAULT_DEEP_MODEL",
    "DEFAULT_FAST_MODEL",
    "DEFAULT_LOCAL_BASE_URL",
    "DeepSettings",
    "EGLOT_WORKSPACE",
    "Folded",
    "NextEditSettings",
    "OPENAI_HOST",
    "PROJECT_FILE",
    "PROJECT_RULES",
    "PROJECT_SOURCE",
    "ProjectRule",
    "RepositorySource",
    "Settings",
    "SpeculationSettings",
    "TIERS",
    "TierSettings",
    "TrustSettings",
    "canonical_key",
    "check_project",
    "check_repository_settings",
    "did_you_mean",
    "fold",
    "is_openai_or_loopback",
    "load_settings",
    "merge",
    "read_project_file",
    "setting_paths",
    "snake_keys",
]
