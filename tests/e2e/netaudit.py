"""A network audit for the process it is installed in: this machine may be reached,
nothing else, and every attempt to reach anything is written down.

`install(record)` adds a `sys.addaudithook` hook (it cannot be removed: install it
only in a process of the test's own, the server `netaudit_server` starts). On each
socket event that names a peer (`socket.getaddrinfo`, `socket.connect`,
`socket.sendto`, `socket.sendmsg`, `socket.gethostbyname`, `socket.gethostbyaddr`,
`socket.getnameinfo`, ...) it appends one JSON line to `record`: the event, the host,
the port, and whether it was let through. A loopback address (127.0.0.0/8, ::1, an
IPv4-mapped loopback) or `localhost` is let through; anything else is refused by
raising `ConnectionRefusedError` from the hook, before the name is even looked up:
the attempt is recorded, and nothing leaves the machine. AF_UNIX paths are local and
not recorded.

`read(record)` gives the attempts back as `Attempt`s, for the test to judge: "the
server tried to reach api.openai.com:443" is the user's own default, "it tried
attacker.example" is a repository's choice.

Nothing of sparkls is imported here: the hook is in place before sparkls loads. The
server's index worker, a process of its own started by the server, is not audited:
it opens no socket (it reads the workspace and writes the index).
"""

from __future__ import annotations

import errno
import ipaddress
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV = "SPARKLS_NETAUDIT"  # the record file's path, for `netaudit_server`
# The socket events that name a peer, and which argument holds it.
_PEER_EVENTS = {
    "socket.getaddrinfo": "name",  # (host, port, family, type, proto)
    "socket.connect": "address",  # (socket, address)
    "socket.sendto": "address",
    "socket.sendmsg": "address",
    "socket.gethostbyname": "name",  # (hostname,)
    "socket.gethostbyname_ex": "name",
    "socket.gethostbyaddr": "name",  # (ip_address,)
    "socket.getnameinfo": "sockaddr",  # (sockaddr,)
}


@dataclass(frozen=True, slots=True)
class Attempt:
    """One attempt to reach a peer, as the hook saw it."""

    event: str
    host: str
    port: int | None
    allowed: bool

    def __str__(self) -> str:
        where = f"{self.host}:{self.port}" if self.port is not None else self.host
        return f"{self.event} {where} ({'let through' if self.allowed else 'refused'})"


def is_local(host: str) -> bool:
    """Whether `host` is this machine: `localhost` or a loopback address."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])  # an IPv6 scope id is not part of it
    except ValueError:
        return False  # a name: it would have to be looked up, which is leaving already
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def _peer(event: str, args: tuple[Any, ...]) -> tuple[str, int | None] | None:
    """(host, port) the event names, None when it names no network peer."""
    if event == "socket.getaddrinfo":
        host, port = args[0], args[1]
        if host is None:
            return None  # the wildcard address: a listener's, nothing reached
        host = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)
        return host, int(port) if isinstance(port, int) or (isinstance(port, str) and port.isdigit()) else None
    if event in ("socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr"):
        return str(args[0]), None
    address = args[0] if event == "socket.getnameinfo" else args[1] if len(args) > 1 else None
    if not isinstance(address, tuple) or not address:
        return None  # an AF_UNIX path, or a connected socket's send (its connect was seen)
    host = address[0].decode("ascii", "replace") if isinstance(address[0], bytes) else str(address[0])
    return host, address[1] if len(address) > 1 and isinstance(address[1], int) else None


class _Recorder:
    def __init__(self, record: Path) -> None:
        self._fd = os.open(record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._lock = threading.Lock()

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in _PEER_EVENTS:
            return
        peer = _peer(event, args)
        if peer is None:
            return
        host, port = peer
        allowed = is_local(host)
        line = json.dumps({"event": event, "host": host, "port": port, "allowed": allowed, "pid": os.getpid()})
        try:
            with self._lock:
                os.write(self._fd, (line + "\n").encode())
        except OSError:  # the interpreter is shutting down: refuse all the same
            pass
        if not allowed:
            where = f"{host}:{port}" if port is not None else host
            raise ConnectionRefusedError(errno.ECONNREFUSED, f"refused by the test's network audit: {where}")


_installed: _Recorder | None = None


def install(record: str | os.PathLike[str]) -> None:
    """Refuse and record every attempt of this process to reach another machine."""
    global _installed
    if _installed is not None:
        raise RuntimeError("the network audit is already installed in this process")
    _installed = _Recorder(Path(record))
    sys.addaudithook(_installed.hook)


def read(record: str | os.PathLike[str]) -> list[Attempt]:
    """The attempts written to `record` so far, in order."""
    try:
        lines = Path(record).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    attempts = []
    for line in lines:
        entry = json.loads(line)
        attempts.append(Attempt(entry["event"], entry["host"], entry["port"], entry["allowed"]))
    return attempts
