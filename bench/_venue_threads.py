"""The other candidate for the venue page, for bench_venue.py only: the standard library's server, fixed.

``ThreadingHTTPServer`` (a thread per connection) with what the shipped server has: a cap
on connections (503 with Retry-After beyond it), a socket timeout, 405 with Allow, request
bodies read within a cap, the security headers on every answer and no traceback for a
client that hangs up. The socket timeout bounds each read, not a whole request: a sender
of one byte every few seconds is never cut (the threads have no deadline to check).

Run as ``python bench/_venue_threads.py venue ARGS...``: ``table venue`` with this server.
"""

from __future__ import annotations

import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table.venue import server as venue_server
from table.venue.web import SECURITY_HEADERS, fd_room, page_html

CAP = 4096
TIMEOUT_S = 10.0
MAX_BODY = 64 * 1024
HEADERS = [(k.decode(), v.decode()) for k, v in SECURITY_HEADERS]


class Handler(BaseHTTPRequestHandler):
    venue: Any
    page = page_html()
    server_version = "table-venue"
    protocol_version = "HTTP/1.1"
    timeout = TIMEOUT_S

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        for k, v in HEADERS:
            self.send_header(k, v)
        super().end_headers()

    def _send(self, status: int, body: bytes, ctype: str, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if status == 405:
            self.send_header("Allow", "GET, HEAD")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _body(self) -> bool:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY or "chunked" in (self.headers.get("Transfer-Encoding") or ""):
            self.close_connection = True
            self._send(413, b"too large\n", "text/plain")
            return False
        self.rfile.read(length)
        return True

    def do_HEAD(self) -> None:
        if self._body():
            self._route(head=True)

    def do_GET(self) -> None:
        if self._body():
            self._route(head=False)

    def _route(self, head: bool) -> None:
        path = self.path.split("?", 1)[0]
        if path in ("/", "/wall", "/leaderboard"):
            self._send(200, self.page, "text/html; charset=utf-8", head)
        elif path == "/api/state":
            self._send(200, self.venue.snapshot(), "application/json", head)
        elif path == "/events" and not head:
            self._events()
        else:
            self._send(404, b"not found\n", "text/plain; charset=utf-8", head)

    def _refuse(self) -> None:
        if self._body():
            self._send(405, b"read-only\n", "text/plain; charset=utf-8")

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def _events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        venue = self.venue
        seen = -1
        try:
            while True:
                if seen != venue.version:
                    seen = venue.version
                    self.wfile.write(b"event: state\ndata: " + venue.snapshot() + b"\n\n")
                    self.wfile.flush()
                    threading.Event().wait(venue.config.push_s)
                    continue
                if venue.wait_change(seen, timeout=10.0) == seen:
                    self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
        except OSError:
            return


REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Length: 0\r\nConnection: close\r\n"
           + b"".join(k + b": " + v + b"\r\n" for k, v in SECURITY_HEADERS) + b"\r\n")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.active = 0
        self.lock = threading.Lock()
        self.cap = min(CAP, fd_room())
        self.refused = 0

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.lock:
            full = self.active >= self.cap
            if not full:
                self.active += 1
        if full:
            self.refused += 1
            try:
                request.sendall(REFUSAL)
                request.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.lock:
                self.active -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up is not an error


def make_http_server(venue: Any, limits: Any = None) -> Server:
    handler = type("VenueHandler", (Handler,), {"venue": venue})
    return Server((venue.config.http_host, venue.config.http_port), handler)


if __name__ == "__main__":
    venue_server.make_http_server = make_http_server  # type: ignore[assignment]
    from table.cli import main

    sys.exit(main(sys.argv[1:]))
