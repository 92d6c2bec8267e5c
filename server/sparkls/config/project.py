"""`.sparkls.toml`: read from the workspace root (the one I/O of config/), and what a
project file may not choose (`guard_project_endpoints`)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sparkls.config.model import PROJECT_FILE, TIERS
from sparkls.endpoints import is_loopback_host


def read_project_file(root: Path | None) -> tuple[dict[str, Any] | None, list[str]]:
    """Read `.sparkls.toml` from the workspace root, if there is one (see
    `guard_project_endpoints` for what it may not set)."""
    if root is None:
        return None, []
    path = root / PROJECT_FILE
    try:
        with path.open("rb") as fh:
            return guard_project_endpoints(tomllib.load(fh))
    except FileNotFoundError:
        return None, []
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return None, [f"{path}: {exc}; file ignored"]


OPENAI_HOST = "api.openai.com"


def guard_project_endpoints(project: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Drop what a project file may not choose: a `base_url` naming a host other than
    OpenAI's or this machine (a repository must not be able to send the user's key and
    code to a server of its choosing: such an endpoint belongs in the user's own editor
    settings), and a tier's `api_key_env` (which of the user's environment variables is
    sent, to this machine's ports included, is for the user to say). Local servers
    (llama.cpp, Ollama, ...) on loopback, and a literal `api_key` for them, are fine."""
    problems: list[str] = []
    for tier in TIERS:
        section = project.get(tier)
        if not isinstance(section, dict):
            continue
        for key in ("base_url", "baseUrl"):
            url = section.get(key)
            host = urlsplit(url).hostname if isinstance(url, str) else None
            if isinstance(url, str) and host != OPENAI_HOST and not is_loopback_host(host):
                del section[key]
                problems.append(
                    f"{PROJECT_FILE} sets {tier}.base_url to {url}; sparkls does not send your key and code to a "
                    "host a project file names (only OpenAI's or this machine's). Set it in your editor's "
                    "sparkls settings if you trust it; the default is kept"
                )
        for key in ("api_key_env", "apiKeyEnv"):
            if key in section:
                name = section.pop(key)
                problems.append(
                    f"{PROJECT_FILE} sets {tier}.api_key_env to {name!r}; which environment variable is sent is "
                    "for your editor's sparkls settings to say; ignored"
                )
    return project, problems
