"""Where a tier's requests go: this machine (a loopback host) or elsewhere. Pure.

A tier is *local* when its `base_url` host is loopback (127.0.0.0/8, ::1, `localhost`):
its requests never leave the machine, so it needs no key and is never given the
user's global one (`Settings.api_key_for`). When one tier is local and the other
remote, `split_warning` says so in one sentence (`sparkls doctor`, and a warning at
`initialized`).
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.config import Settings


def is_loopback_host(host: str | None) -> bool:
    """127.0.0.0/8, ::1 or `localhost`: a connection that never leaves this machine."""
    if not host:
        return False
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def split_tiers(settings: Settings) -> tuple[str, str] | None:
    """(the local tier, the remote tier) when one is local and the other not, else None."""
    fast, deep = settings.fast.is_local, settings.deep.is_local
    if fast == deep:
        return None
    return ("fast", "deep") if fast else ("deep", "fast")


_REMOTE_USE = {
    "deep": "multi-file tasks (and edits escalated to the deep tier) send your code there",
    "fast": "edits, quick fixes and completions send your code there",
}


def split_warning(settings: Settings) -> str | None:
    """The sentence that says one tier is local and the other remote, or None."""
    split = split_tiers(settings)
    if split is None:
        return None
    local, remote = (getattr(settings, name) for name in split)
    return (
        f"the {split[0]} tier is local ({local.host}) but the {split[1]} tier still goes to "
        f"{remote.host}: {_REMOTE_USE[split[1]]}. To keep both tiers on this machine, set "
        f"`local_base_url` (e.g. {local.base_url})."
    )
