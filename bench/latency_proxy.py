"""A loopback TCP proxy that adds network latency (kernel netem is not available here).

Each chunk read from either side is written to the other RTT/2 after it was read,
never sooner, in the order it was read: a later chunk never overtakes or rides along
with an earlier one's delivery. A new connection is held for one RTT (the TCP
handshake a real network would cost) before anything crosses it, so the first byte
a client sends reaches the server RTT + RTT/2 after its `connect()`. TLS, HTTP and
WebSocket handshakes through it pay their own round trips as they would on a network.

    python bench/latency_proxy.py --target 127.0.0.1:8765 --rtt-ms 80 [--port 0]
    python bench/latency_proxy.py --rtt-ms 20 --self-test   # what the proxy itself adds

or in a benchmark: `proxy = await LatencyProxy.start(host, port, rtt_ms=80)`, then
connect to `proxy.port`; `proxy.connections` counts accepted connections.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import time


class LatencyProxy:
    def __init__(self, target: tuple[str, int], rtt_ms: float) -> None:
        self.target, self.half = target, rtt_ms / 2000
        self.rtt = rtt_ms / 1000
        self.connections = 0
        self.server: asyncio.Server | None = None
        self.port = 0
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    async def start(cls, host: str, port: int, *, rtt_ms: float, listen: str = "127.0.0.1", listen_port: int = 0) -> LatencyProxy:
        proxy = cls((host, port), rtt_ms)
        proxy.server = await asyncio.start_server(proxy._accept, listen, listen_port)
        proxy.port = proxy.server.sockets[0].getsockname()[1]
        return proxy

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        ready = loop.time() + self.rtt  # the handshake a network would cost
        self.connections += 1
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.close()
            return
        pumps = [
            asyncio.ensure_future(self._pump(client_reader, upstream_writer, ready)),
            asyncio.ensure_future(self._pump(upstream_reader, client_writer, ready)),
        ]
        for task in pumps:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            await asyncio.gather(*pumps, return_exceptions=True)
        except asyncio.CancelledError:
            pass  # the proxy is closing
        finally:
            for writer in (client_writer, upstream_writer):
                writer.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ready: float) -> None:
        """Copy reader → writer, each chunk (and the end of the stream) RTT/2 late."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def read() -> None:
            try:
                while chunk := await reader.read(65536):
                    queue.put_nowait((max(loop.time(), ready) + self.half, chunk))
            except OSError:
                pass
            queue.put_nowait((max(loop.time(), ready) + self.half, b""))

        reading = asyncio.ensure_future(read())
        try:
            while True:
                due, chunk = await queue.get()
                if (wait := due - loop.time()) > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(chunk)
                await writer.drain()
        except OSError:
            pass
        finally:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reading

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in list(self._tasks):
            task.cancel()
        if self.server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)


async def self_test(rtt_ms: float, rounds: int = 20) -> None:
    """What the proxy itself adds: an echo server behind it, a connect and echoes timed."""

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    proxy = await LatencyProxy.start("127.0.0.1", server.sockets[0].getsockname()[1], rtt_ms=rtt_ms)
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(b"x")
    await reader.readexactly(1)
    first = (time.perf_counter() - started) * 1000
    echoes = []
    for _ in range(rounds):
        started = time.perf_counter()
        writer.write(b"y" * 100)
        await reader.readexactly(100)
        echoes.append((time.perf_counter() - started) * 1000)
    writer.close()
    await asyncio.sleep(rtt_ms / 1000 + 0.05)  # the end of the stream crosses, the echo handler returns
    await proxy.close()
    server.close()
    print(f"RTT {rtt_ms:g} ms: connect + first echo {first:.1f} ms (2 RTT: {2 * rtt_ms:g}), "
          f"echo p50 {statistics.median(echoes):.2f} ms, max {max(echoes):.2f} ms (1 RTT)")


async def _serve(target: str, rtt_ms: float, port: int) -> None:
    host, _, target_port = target.rpartition(":")
    proxy = await LatencyProxy.start(host or "127.0.0.1", int(target_port), rtt_ms=rtt_ms, listen_port=port)
    print(f"latency proxy on 127.0.0.1:{proxy.port} -> {target}, RTT {rtt_ms:g} ms", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", help="host:port to forward to")
    parser.add_argument("--self-test", action="store_true", help="time an echo server behind the proxy, and exit")
    parser.add_argument("--rtt-ms", type=float, required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.self_test:
        asyncio.run(self_test(args.rtt_ms))
        return
    if not args.target:
        parser.error("--target is required")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.target, args.rtt_ms, args.port))


if __name__ == "__main__":
    main()
