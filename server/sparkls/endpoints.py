"""Where a tier's requests go: this machine (a loopback host) or elsewhere. Pure.

A tier is *local* when its `base_url` host is loopback (127.0.0.0/8, ::1, `localhost`,
written any way the connection would take it: `127.1`, `0x7f000001`, `::ffff:127.0.0.1`):
its requests never leave the machine, so it needs no key and is never given the
user's global one (`Settings.api_key_for`). When one tier is local and the other
remote, `split_warning` says so in one sentence (`sparkls doctor`, and a warning at
`initialized`).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sparkls.config import Settings


# The forms of an IPv4 address the C resolver also takes (inet_aton: `127.1`,
# `2130706433`, `0x7f.0.0.1`, octal parts): what a connection to the host reaches.
_IPV4_SHORTHAND = re.compile(r"^(?:0x[0-9a-f]+|[0-9]+)(?:\.(?:0x[0-9a-f]+|[0-9]+)){0,3}$")


def is_loopback_host(host: str | None) -> bool:
    """127.0.0.0/8, ::1 or `localhost`: a connection that never leaves this machine.

    An address counts however it is written, as the connection would read it: IPv4 in
    IPv6 (`::ffff:127.0.0.1`) and the resolver's IPv4 shorthands (`127.1`). Names other
    than `localhost` are not resolved (remote); unspecified addresses (`0.0.0.0`, `::`)
    are remote too.
    """
    if not host:
        return False
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        if not _IPV4_SHORTHAND.match(name):
            return False
        try:
            address = ipaddress.IPv4Address(socket.inet_aton(name))
        except OSError:
            return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


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
