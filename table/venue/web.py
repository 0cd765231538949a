"""The venue page's web server: one asyncio loop for every connection, HTTP parsed by h11.

The page on the wall keeps a server-sent event stream open all evening, and anyone on
the venue's network can connect, so the server is made for many long-lived connections
and for clients that misbehave. Contract:

* **One thread, bounded connections.** Every connection is a small protocol object on one
  event loop (no thread per client). At most ``limits.max_connections`` are open at once
  (never more than the file-descriptor limit allows); one beyond that gets ``503`` with
  ``Retry-After`` and is closed. Refusals, timeouts and malformed requests are counted
  (:attr:`VenueWebServer.counts`) and logged at most once a minute per kind, never once per
  connection.
* **Timeouts.** A request's head and body must have arrived ``limits.request_s`` after the
  connection opened or the previous answer was sent, or the connection is cut (``408``
  when part of a request came). So an idle keep-alive connection, a slow sender of headers
  (slowloris) and a slow sender of a body all end. An event stream whose reader stops
  reading for ``limits.stalled_s`` is closed; while it is behind, it skips states (the next
  one it gets is the newest).
* **Requests.** ``GET`` and ``HEAD`` are answered; every other method gets ``405`` with
  ``Allow: GET, HEAD``. A body (any method) is read and thrown away within
  ``limits.max_body`` bytes; a larger one gets ``413`` and the connection is closed, so a
  body is never parsed as the next request. A head larger than ``limits.max_head`` gets
  ``431``, anything h11 cannot parse gets its ``400``-class answer, and the connection is
  closed after either.
* **Every answer** (errors and refusals included) carries the same security headers
  (:data:`SECURITY_HEADERS`) and ``Cache-Control: no-store``.
* A client that hangs up is not an error: nothing is logged for it, and no exception from
  a connection reaches the log as a traceback.

URLs: ``/`` (also ``/wall`` and ``/leaderboard``: the page), ``/api/state`` (JSON),
``/events`` (server-sent events: the whole state after each change, at most every
``push_s``, a comment every 10 s otherwise), ``/favicon.ico`` (204).
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http import HTTPStatus
from importlib import resources
from typing import Any, Protocol

import h11


class _Pushing(Protocol):
    @property
    def push_s(self) -> float: ...


class PageSource(Protocol):
    """What the server asks of the venue (:class:`table.venue.server.Venue`): the page's
    state as JSON, a number that changes with it, and how often to push it."""

    @property
    def version(self) -> int: ...

    @property
    def config(self) -> _Pushing: ...

    def snapshot(self) -> bytes: ...

log = logging.getLogger(__name__)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"Content-Security-Policy", b"default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                                 b"connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
                                 b"base-uri 'none'; form-action 'none'"),
    (b"X-Content-Type-Options", b"nosniff"),
    (b"Referrer-Policy", b"no-referrer"),
    (b"X-Frame-Options", b"DENY"),
    (b"Cache-Control", b"no-store"),
)
ALLOW = b"GET, HEAD"
KEEPALIVE_S = 10.0
# File descriptors kept free beyond the connection cap: the venue's SQLite file, the broker, logs.
FD_RESERVE = 64


@dataclass(frozen=True)
class WebLimits:
    """The server's bounds (the defaults are the shipped ones; tests make them small)."""

    max_connections: int = 4096
    request_s: float = 10.0
    stalled_s: float = 30.0
    max_head: int = 16 * 1024
    max_body: int = 64 * 1024
    retry_after_s: int = 5


def page_html() -> bytes:
    return resources.files("table.venue").joinpath("page.html").read_bytes()


def fd_room() -> int:
    """How many connections the soft file-descriptor limit leaves room for (raised to the hard one first)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        want = 65536 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return max(1, soft - FD_RESERVE)


Headers = list[tuple[bytes, bytes]]


def _plain(status: int, text: str, extra: tuple[tuple[bytes, bytes], ...] = ()) -> tuple[int, Headers, bytes]:
    body = (text + "\n").encode("utf-8")
    headers = [(b"Content-Type", b"text/plain; charset=utf-8"), (b"Content-Length", str(len(body)).encode()),
               *SECURITY_HEADERS, *extra]
    return status, headers, body


def _reason(status: int) -> bytes:
    try:
        return HTTPStatus(status).phrase.encode("ascii")
    except ValueError:
        return b""


def _refusal(retry_after_s: int) -> bytes:
    """The whole 503 answer, made once: a refused connection costs no parsing."""
    status, headers, body = _plain(503, "the venue page has too many connections; try again shortly",
                                   ((b"Retry-After", str(retry_after_s).encode()), (b"Connection", b"close")))
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    conn.next_event()
    data = conn.send(h11.Response(status_code=status, headers=headers, reason=b"Service Unavailable")) or b""
    return data + (conn.send(h11.Data(data=body)) or b"") + (conn.send(h11.EndOfMessage()) or b"")


class _Tally:
    """Counts kinds of trouble and logs each kind at most once per ``every_s`` (with the count)."""

    def __init__(self, counts: Counter[str], every_s: float = 60.0) -> None:
        self.counts = counts
        self.every_s = every_s
        self._last: dict[str, float] = {}
        self._since: Counter[str] = Counter()

    def note(self, kind: str, message: str) -> None:
        self.counts[kind] += 1
        self._since[kind] += 1
        now = time.monotonic()
        if now - self._last.get(kind, -1e9) >= self.every_s:
            n = self._since.pop(kind)
            self._last[kind] = now
            log.warning("venue page: %s (%d since this kind's last line; at most one a minute)", message, n)


class _Connection(asyncio.Protocol):
    """One client: h11 parses, this answers, times out and streams."""

    def __init__(self, server: VenueWebServer) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=server.limits.max_head)
        self.timer: asyncio.TimerHandle | None = None
        self.refused = False
        self.streaming = False
        self.got_bytes = False  # part of a request came in this cycle
        self.body = 0
        self.request: h11.Request | None = None
        self.paused = False
        self.behind = False
        self.paused_at = 0.0
        self.chunked = True

    # -- asyncio's callbacks: none of them may raise ---------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        server = self.server
        server.open.add(self)
        if len(server.open) - server.lingering > server.cap:
            self.refused = True
            server.lingering += 1
            server.tally.note("refused", f"refused connections beyond the cap of {server.cap} (503)")
            transport.write(server.refusal)
            # Half-close and linger briefly: closing with the request unread would reset the
            # connection, and the client might never see the 503.
            transport.write_eof()
            self._arm(0.5)
            return
        transport.set_write_buffer_limits(high=64 * 1024)
        self._arm(server.limits.request_s)

    def data_received(self, data: bytes) -> None:
        if self.refused or self.streaming:
            return  # nothing a refused client or an event-stream reader sends is read
        try:
            self.got_bytes = True
            self.conn.receive_data(data)
            self._process()
        except Exception as exc:  # a bug must cost one connection, never a traceback per client
            self.server.tally.note("errors", f"failed on a request ({type(exc).__name__}: {str(exc)[:120]})")
            self._close()

    def eof_received(self) -> bool:
        if not self.refused and not self.streaming:
            try:
                self.conn.receive_data(b"")
                self._process()
            except Exception as exc:
                self.server.tally.note("errors", f"failed on a request ({type(exc).__name__}: {str(exc)[:120]})")
        return False  # close our side too

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused:
            self.server.lingering -= 1
        self.server.open.discard(self)
        self.server.streams.discard(self)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def pause_writing(self) -> None:
        self.paused = True
        self.paused_at = time.monotonic()
        if self.transport is not None and not self.streaming:
            self.transport.pause_reading()  # a client that does not read gets no more answers

    def resume_writing(self) -> None:
        self.paused = False
        if self.transport is not None and not self.streaming and not self.transport.is_closing():
            self.transport.resume_reading()
            try:
                self._process()  # the pipelined requests left waiting
            except Exception as exc:
                self.server.tally.note("errors", f"failed on a request ({type(exc).__name__}: {str(exc)[:120]})")
                self._close()
        if self.streaming and self.behind:
            self.behind = False
            self.push(self.server.latest())

    # -- requests -------------------------------------------------------------------------------
    def _arm(self, seconds: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = self.server.loop.call_later(seconds, self._timed_out)

    def _timed_out(self) -> None:
        self.timer = None
        if self.refused or self.transport is None:
            self._close()
            return
        if self.got_bytes and self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            self.server.tally.note("timeouts", "cut slow senders (no whole request within "
                                   f"{self.server.limits.request_s:.0f} s; 408)")
            self._answer(*_plain(408, "the request took too long"), close=True)
        self._close()

    def _process(self) -> None:
        conn = self.conn
        # While the client is not reading its answers, no more are made (pipelined requests wait).
        while self.transport is not None and not self.transport.is_closing() and not self.paused:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                self.server.tally.note("malformed", f"answered malformed requests ({exc.error_status_hint})")
                if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
                    status = exc.error_status_hint
                    self._answer(*_plain(status, "the request is malformed" if status != 431
                                         else "the request's head is too large"), close=True)
                self._close()
                return
            if event is h11.NEED_DATA or event is h11.PAUSED:
                return
            if isinstance(event, h11.Request):
                self.request = event
                self.body = 0
                # h11 bounds only a head that arrives in pieces; one that came whole is measured here.
                head = len(event.target) + sum(len(n) + len(v) + 4 for n, v in event.headers)
                if head > self.server.limits.max_head:
                    self.server.tally.note("malformed", "answered malformed requests (431)")
                    self._answer(*_plain(431, "the request's head is too large"), close=True)
                    self._close()
                    return
                length = self._content_length(event)
                if length is not None and length > self.server.limits.max_body:
                    self._too_large()
                    return
                if conn.they_are_waiting_for_100_continue:
                    # No body is wanted: answer now and close, rather than ask for it.
                    self._respond(event, close=True)
                    self._close()
                    return
            elif isinstance(event, h11.Data):
                self.body += len(event.data)
                if self.body > self.server.limits.max_body:
                    self._too_large()
                    return
            elif isinstance(event, h11.EndOfMessage):
                assert self.request is not None
                self._respond(self.request)
                if self.streaming:
                    return
                self._next_cycle()
            elif isinstance(event, h11.ConnectionClosed):
                self._close()
                return

    @staticmethod
    def _content_length(request: h11.Request) -> int | None:
        for name, value in request.headers:
            if name == b"content-length":
                return int(value)  # h11 has checked it is digits
        return None

    def _too_large(self) -> None:
        self.server.tally.note("too_large", f"refused request bodies over {self.server.limits.max_body} bytes (413)")
        self._answer(*_plain(413, "the request's body is too large"), close=True)
        self._close()

    def _next_cycle(self) -> None:
        conn = self.conn
        if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
            self.request = None
            self.got_bytes = bool(conn.trailing_data[0])
            self._arm(self.server.limits.request_s)
        else:
            self._close()

    def _respond(self, request: h11.Request, close: bool = False) -> None:
        method = request.method
        path = request.target.split(b"?", 1)[0]
        if method not in (b"GET", b"HEAD"):
            self._answer(*_plain(405, "the venue page is read-only", ((b"Allow", ALLOW),)), close=close)
            return
        if path == b"/events":
            if method == b"GET" and not close:
                self._stream()
                return
            headers = [(b"Content-Type", b"text/event-stream"), (b"Content-Length", b"0"), *SECURITY_HEADERS]
            self._answer(200, headers, b"", close=close)
            return
        if path in (b"/", b"/wall", b"/leaderboard"):
            status, ctype, body = 200, b"text/html; charset=utf-8", self.server.page
        elif path == b"/api/state":
            status, ctype, body = 200, b"application/json", self.server.venue.snapshot()
        elif path == b"/favicon.ico":
            status, ctype, body = 204, b"", b""
        else:
            status, ctype, body = 404, b"text/plain; charset=utf-8", b"not found\n"
        headers = [(b"Content-Length", str(len(body)).encode()), *SECURITY_HEADERS]
        if status == 204:
            headers = list(SECURITY_HEADERS)
        elif ctype:
            headers.insert(0, (b"Content-Type", ctype))
        self._answer(status, headers, body, close=close)

    def _answer(self, status: int, headers: list[tuple[bytes, bytes]], body: bytes, close: bool = False) -> None:
        """Send one whole answer (no body for HEAD: h11 knows); ``close`` ends the connection after it."""
        if self.transport is None or self.transport.is_closing():
            return
        if close:
            headers = [*headers, (b"Connection", b"close")]
        conn = self.conn
        try:
            out = conn.send(h11.Response(status_code=status, headers=headers, reason=_reason(status))) or b""
            if body and not (self.request is not None and self.request.method == b"HEAD"):
                out += conn.send(h11.Data(data=body)) or b""
            out += conn.send(h11.EndOfMessage()) or b""
        except h11.LocalProtocolError:
            # The request was too broken for h11 to frame an answer to it: just close.
            conn.send_failed()
            self._close()
            return
        self.transport.write(out)
        if close or conn.our_state is h11.MUST_CLOSE:
            self._close()

    def _close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    # -- the event stream -----------------------------------------------------------------------
    def _stream(self) -> None:
        assert self.transport is not None
        headers = [(b"Content-Type", b"text/event-stream"), *SECURITY_HEADERS]
        self.transport.write(self.conn.send(h11.Response(status_code=200, headers=headers, reason=b"OK")) or b"")
        # h11 frames a body of unknown length as chunks for HTTP/1.1, by closing for HTTP/1.0.
        self.chunked = self.request is not None and self.request.http_version == b"1.1"
        self.streaming = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.server.streams.add(self)
        self.push(self.server.latest())

    def push(self, chunk: bytes) -> None:
        """Send one event, or skip it while the reader is behind (it gets the newest once it reads)."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if self.paused:
            self.behind = True
            if time.monotonic() - self.paused_at > self.server.limits.stalled_s:
                # Out of the streams at once: abort() reports the loss only on the loop's next turn.
                self.server.streams.discard(self)
                self.server.tally.note("stalled", "closed event streams nobody read for "
                                       f"{self.server.limits.stalled_s:.0f} s")
                transport.abort()
            return
        # Framed here, not by h11: the same event goes to every reader without a copy each.
        transport.write(b"%x\r\n%b\r\n" % (len(chunk), chunk) if self.chunked else chunk)


class VenueWebServer:
    """The venue page on ``(host, port)`` (port 0: any free one), served by :meth:`serve_forever`.

    The socket is bound when the object is made, so :attr:`server_address` is known at
    once; :meth:`serve_forever` runs the loop in the calling thread until :meth:`shutdown`
    (from any other thread). The shape is ``socketserver``'s, which callers already use.
    """

    def __init__(self, venue: PageSource, host: str, port: int, limits: WebLimits | None = None) -> None:
        self.venue = venue
        self.limits = limits or WebLimits()
        self.cap = min(self.limits.max_connections, fd_room())
        self.sock = socket.create_server((host, port), reuse_port=False, backlog=1024)
        self.server_address: tuple[str, int] = self.sock.getsockname()[:2]
        self.page = page_html()
        self.refusal = _refusal(self.limits.retry_after_s)
        self.counts: Counter[str] = Counter()
        self.tally = _Tally(self.counts)
        self.open: set[_Connection] = set()
        self.lingering = 0  # refused connections still open (they do not count against the cap)
        self.streams: set[_Connection] = set()
        self.loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        self._running = False
        self._done = threading.Event()
        self._latest: tuple[int, bytes] = (-1, b"")

    def latest(self) -> bytes:
        """The newest state as one server-sent event (made once per version)."""
        version = self.venue.version
        if self._latest[0] != version:
            self._latest = (version, b"event: state\ndata: " + self.venue.snapshot() + b"\n\n")
        return self._latest[1]

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Serve until :meth:`shutdown`. (``poll_interval`` is accepted for ``socketserver``'s shape.)"""
        self._running = True
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(self._loop_trouble)
        try:
            self.loop.run_until_complete(self._main())
        finally:
            for c in list(self.open):
                if c.transport is not None:
                    c.transport.abort()
            self.loop.run_until_complete(asyncio.sleep(0))
            self.loop.close()
            self._done.set()

    def _loop_trouble(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # e.g. accept() out of file descriptors: asyncio retries by itself; one counted line, no traceback.
        exc = context.get("exception")
        what = f"{context.get('message', 'trouble')}" + (f" ({type(exc).__name__}: {exc})" if exc else "")
        self.tally.note("loop", what[:200])

    async def _main(self) -> None:
        server = await self.loop.create_server(lambda: _Connection(self), sock=self.sock)
        pusher = self.loop.create_task(self._push())
        try:
            await self._stop.wait()
        finally:
            pusher.cancel()
            server.close()

    async def _push(self) -> None:
        """Send every change to the event streams, at most every ``push_s``; a comment every 10 s."""
        venue = self.venue
        seen = venue.version
        quiet_since = time.monotonic()
        push_s = max(0.01, venue.config.push_s)
        while True:
            if venue.version != seen:
                if self.streams:
                    try:
                        # The state is made off the loop: with many tables it takes milliseconds.
                        await self.loop.run_in_executor(None, venue.snapshot)
                        event = self.latest()
                    except Exception as exc:  # the streams must go on: the next change tries again
                        self.tally.note("errors", f"could not make the state ({type(exc).__name__}: "
                                        f"{str(exc)[:120]})")
                        seen = venue.version
                        await asyncio.sleep(push_s)
                        continue
                    for c in list(self.streams):
                        c.push(event)
                    seen = self._latest[0]
                else:
                    seen = venue.version
                quiet_since = time.monotonic()
                await asyncio.sleep(push_s)
                continue
            await asyncio.sleep(0.05)
            if time.monotonic() - quiet_since >= KEEPALIVE_S:
                for c in list(self.streams):
                    c.push(b": keep-alive\n\n")
                quiet_since = time.monotonic()

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` and wait for it (call from another thread)."""
        if self._running and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._stop.set)
            self._done.wait(10)

    def server_close(self) -> None:
        self.sock.close()
