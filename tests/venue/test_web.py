"""The venue page's web server against hostile and broken clients, on 127.0.0.1.

Properties: whatever bytes a client sends (request lines, headers, methods, bodies:
random and malformed), the log holds no traceback, the client gets well-formed answers
or a closed connection, and the server answers normally afterwards. Examples: 405 with
Allow, the cap's 503, slow senders cut, a body never read as a request, the security
headers on every answer, clients hanging up.
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from table.venue import contract
from table.venue.server import Venue, VenueConfig, make_http_server
from table.venue.web import VenueWebServer, WebLimits

SECURITY = ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options", "cache-control")
STATUS = re.compile(rb"HTTP/1\.[01] ([1-5][0-9][0-9]) [^\r\n]*\r\n")


@dataclass
class Running:
    server: VenueWebServer
    venue: Venue
    port: int


@pytest.fixture
def web(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Running]:
    limits = getattr(request, "param", None) or WebLimits(max_connections=64, request_s=0.6, stalled_s=1.0,
                                                          max_head=4096, max_body=1024)
    venue = Venue(VenueConfig(db=tmp_path / "venue.db", http_host="127.0.0.1", http_port=0, push_s=0.05))
    server = make_http_server(venue, limits)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Running(server, venue, server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
        venue.stop()


def exchange(port: int, data: bytes, wait: float = 3.0, half_close: bool = True) -> bytes:
    """Send ``data``, then read until the server closes (or ``wait`` passes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        try:
            s.sendall(data)
            if half_close:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may close before it has read everything: that is allowed
        out = b""
        deadline = time.monotonic() + wait
        try:
            while time.monotonic() < deadline:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return out


def responses(raw: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """Split a byte stream into answers; fails the test if it is not a sequence of well-formed ones."""
    found = []
    pos = 0
    while pos < len(raw):
        m = STATUS.match(raw, pos)
        assert m, f"not an HTTP answer at byte {pos}: {raw[pos:pos + 80]!r}"
        end = raw.index(b"\r\n\r\n", m.end() - 2)
        headers: dict[str, str] = {}
        for line in raw[m.end():end].split(b"\r\n"):
            if line:
                name, _, value = line.partition(b":")
                assert name and b" " not in name, line
                headers[name.decode("ascii").lower()] = value.strip().decode("latin-1")
        pos = end + 4
        if headers.get("transfer-encoding") == "chunked":
            # Only the event stream is chunked: its events run to the close.
            assert headers["content-type"] == "text/event-stream", headers
            found.append((int(m.group(1)), headers, raw[pos:]))
            break
        length = int(headers.get("content-length", "0"))
        # An answer to HEAD has a length but no body: the next answer (or the end) follows at once.
        body = b""
        if length and pos < len(raw) and not STATUS.match(raw, pos):
            body = raw[pos:pos + length]
            assert len(body) == length, "a body shorter than its Content-Length"
            pos += length
        found.append((int(m.group(1)), headers, body))
    return found


def assert_secure(headers: dict[str, str]) -> None:
    for name in SECURITY:
        assert name in headers, f"{name} missing from {sorted(headers)}"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]


def assert_answers(port: int) -> None:
    got = responses(exchange(port, b"GET /api/state HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"))
    assert [s for s, _, _ in got] == [200] and got[0][2].startswith(b"{")


def assert_clean_log(caplog: pytest.LogCaptureFixture) -> None:
    for r in caplog.records:
        assert r.exc_info is None and r.levelno < logging.ERROR, f"{r.name}: {r.getMessage()}"
        assert "Traceback" not in r.getMessage()


# -- properties ---------------------------------------------------------------------------------------
TOKEN = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters=" :"), min_size=1,
                max_size=12).map(str.encode)
ANY_BYTES = st.binary(max_size=64)
METHOD = st.one_of(st.sampled_from([b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH", b"CONNECT",
                                    b"TRACE", b"get", b""]), TOKEN, ANY_BYTES)
TARGET = st.one_of(st.sampled_from([b"/", b"/api/state", b"/events", b"/leaderboard", b"/favicon.ico", b"/nope",
                                    b"*", b"http://x/api/state", b"/../../etc/passwd", b"/%00", b"/a?b=c"]),
                   TOKEN.map(lambda t: b"/" + t), ANY_BYTES)
VERSION = st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2.0", b"HTTP/1.1x", b"", b"http/1.1", b"HTTP/9"])
HEADER = st.one_of(
    st.tuples(st.sampled_from([b"Host", b"Content-Length", b"Transfer-Encoding", b"Connection", b"Expect",
                               b"Upgrade"]),
              st.one_of(st.sampled_from([b"t", b"0", b"5", b"-1", b"99999999999", b"chunked", b"close",
                                         b"keep-alive", b"100-continue", b"1, 2", b"h2c"]), ANY_BYTES)),
    st.tuples(TOKEN, ANY_BYTES), st.tuples(ANY_BYTES, ANY_BYTES))
EOL = st.sampled_from([b"\r\n", b"\n", b"\r", b"\r\n "])


@st.composite
def raw_requests(draw: st.DrawFn) -> bytes:
    """One or more requests, well-formed or not, one after the other on a connection."""
    out = b""
    for _ in range(draw(st.integers(1, 3))):
        eol = draw(EOL) if draw(st.booleans()) else b"\r\n"
        out += b" ".join([draw(METHOD), draw(TARGET), draw(VERSION)]) + eol
        for name, value in draw(st.lists(HEADER, max_size=6)):
            out += name + b": " + value + eol
        if draw(st.booleans()):
            out += b"Host: t\r\n"
        body = draw(st.one_of(st.just(b""), ANY_BYTES, st.binary(min_size=1000, max_size=3000)))
        if body and draw(st.booleans()):
            out += b"Content-Length: %d\r\n" % draw(st.sampled_from([len(body), max(0, len(body) - 3), len(body) + 3]))
        out += eol + body
    if draw(st.booleans()):
        out += draw(ANY_BYTES)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=raw_requests())
@example(data=b"GET /events HTTP/1.1\r\nHost: t\r\n\r\n")  # an event stream, cut by the half-close
@example(data=b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nGET /x HTTP/1.1\r\n\r\n")
def test_any_bytes_get_well_formed_answers_or_a_close(web: Running, caplog: pytest.LogCaptureFixture,
                                                      data: bytes) -> None:
    caplog.set_level(logging.DEBUG)
    for status, headers, _ in responses(exchange(web.port, data)):
        assert 200 <= status < 600
        assert_secure(headers)
    assert_answers(web.port)
    assert_clean_log(caplog)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=raw_requests(), cut=st.integers(0, 200))
def test_a_client_that_hangs_up_mid_request_leaves_no_trace(web: Running, caplog: pytest.LogCaptureFixture,
                                                            data: bytes, cut: int) -> None:
    caplog.set_level(logging.DEBUG)
    with socket.create_connection(("127.0.0.1", web.port)) as s:
        # SO_LINGER 0: the close is a reset, the rudest hang-up there is.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.sendall(data[:cut])
    assert_answers(web.port)
    assert_clean_log(caplog)


# -- examples -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", [b"POST", b"PUT", b"DELETE", b"PATCH", b"OPTIONS", b"TRACE", b"BREW"])
def test_other_methods_get_405_with_allow(web: Running, method: bytes) -> None:
    ((status, headers, _),) = responses(exchange(web.port, method + b" /api/state HTTP/1.1\r\nHost: t\r\n"
                                                 b"Content-Length: 2\r\nConnection: close\r\n\r\n{}"))
    assert status == 405 and headers["allow"] == "GET, HEAD"
    assert_secure(headers)


def test_a_body_on_a_kept_alive_connection_is_never_a_request(web: Running) -> None:
    smuggled = b"GET /leaderboard HTTP/1.1\r\nHost: t\r\n\r\n"
    data = (b"POST /api/state HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % len(smuggled) + smuggled
            + b"GET /favicon.ico HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert [s for s, _, _ in responses(exchange(web.port, data))] == [405, 204]
    # A GET's body is read and thrown away just the same; a chunked one too.
    data = (b"GET /nope HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(smuggled) + smuggled
            + b"\r\n0\r\n\r\nGET /favicon.ico HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert [s for s, _, _ in responses(exchange(web.port, data))] == [404, 204]


def test_a_body_over_the_cap_gets_413_and_a_close(web: Running) -> None:
    big = b"x" * 5000
    got = responses(exchange(web.port, b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n" + big
                             + b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"))
    assert [s for s, _, _ in got] == [413] and got[0][1]["connection"] == "close"
    got = responses(exchange(web.port, b"POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                             + b"400\r\n" + b"y" * 1024 + b"\r\n" + b"400\r\n" + b"y" * 1024 + b"\r\n0\r\n\r\n"))
    assert [s for s, _, _ in got] == [413]
    got = responses(exchange(web.port, b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"z" * 5000 + b"\r\n\r\n"))
    assert [s for s, _, _ in got] == [431]
    assert_answers(web.port)


def test_slow_senders_are_cut(web: Running, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    request = b"GET /api/state HTTP/1.1\r\nHost: t\r\nX-Slow: " + b"s" * 40 + b"\r\n\r\n"
    body_first = b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n"
    for head, drip in ((b"", request), (body_first, b"b" * 100)):
        with socket.create_connection(("127.0.0.1", web.port), timeout=5) as s:
            t0 = time.monotonic()
            s.sendall(head)
            got = b""
            try:
                for byte in drip:  # one byte every 50 ms: the whole would take seconds
                    s.sendall(bytes([byte]))
                    time.sleep(0.05)
            except (BrokenPipeError, ConnectionResetError):
                pass
            try:
                while chunk := s.recv(65536):
                    got += chunk
            except ConnectionResetError:
                pass
            took = time.monotonic() - t0
        assert took < 2.5, took
        assert [st_ for st_, _, _ in responses(got)] in ([408], []), got[:200]
    # An idle connection is closed too, silently.
    with socket.create_connection(("127.0.0.1", web.port), timeout=5) as s:
        t0 = time.monotonic()
        assert s.recv(100) == b""
        assert time.monotonic() - t0 < 2.0
    assert web.server.counts["timeouts"] >= 1
    assert sum("slow senders" in r.getMessage() for r in caplog.records) == 1  # counted, not a line each
    assert_answers(web.port)
    assert_clean_log(caplog)


@pytest.mark.parametrize("web", [WebLimits(max_connections=4, request_s=30.0)], indirect=True)
def test_the_cap_refuses_with_503_and_one_log_line(web: Running, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    held = [socket.create_connection(("127.0.0.1", web.port)) for _ in range(4)]
    try:
        time.sleep(0.2)
        for _ in range(10):
            ((status, headers, body),) = responses(exchange(web.port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"))
            assert status == 503 and headers["retry-after"] == "5" and b"too many" in body
            assert_secure(headers)
    finally:
        for s in held:
            s.close()
    assert web.server.counts["refused"] == 10
    assert sum("refused" in r.getMessage() for r in caplog.records) == 1
    time.sleep(0.3)
    assert_answers(web.port)
    assert_clean_log(caplog)


def test_every_answer_carries_the_security_headers(web: Running) -> None:
    cases = {
        b"GET / HTTP/1.1\r\nHost: t\r\n\r\n": 200,
        b"GET /leaderboard HTTP/1.1\r\nHost: t\r\n\r\n": 200,
        b"GET /api/state HTTP/1.1\r\nHost: t\r\n\r\n": 200,
        b"HEAD /api/state HTTP/1.1\r\nHost: t\r\n\r\n": 200,
        b"HEAD /events HTTP/1.1\r\nHost: t\r\n\r\n": 200,
        b"GET /favicon.ico HTTP/1.1\r\nHost: t\r\n\r\n": 204,
        b"GET /nope HTTP/1.1\r\nHost: t\r\n\r\n": 404,
        b"DELETE / HTTP/1.1\r\nHost: t\r\n\r\n": 405,
        b"GET / HTTP/1.1\r\n\r\n": 400,  # no Host
        b"NOT A REQUEST\r\n\r\n": 400,
        b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 99999\r\n\r\n": 413,
        b"GET / HTTP/1.1\r\nHost: t\r\nX: " + b"h" * 5000 + b"\r\n\r\n": 431,
    }
    for data, want in cases.items():
        got = responses(exchange(web.port, data))
        assert got and got[0][0] == want, (data[:40], got[:1])
        assert_secure(got[0][1])
        if data.startswith(b"HEAD"):
            assert got[0][2] == b""
    # A request cut off in the middle: 408 once the time is up, with the headers as well.
    ((status, headers, _),) = responses(exchange(web.port, b"GET / HTTP/1.1\r\nHo", half_close=False))
    assert status == 408
    assert_secure(headers)
    # The event stream's head.
    with socket.create_connection(("127.0.0.1", web.port), timeout=5) as s:
        s.sendall(b"GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(4096)
        ((status, headers, _),) = responses(head[:head.index(b"\r\n\r\n") + 4])
        assert status == 200 and headers["content-type"] == "text/event-stream"
        assert_secure(headers)


def test_event_streams_follow_changes_and_survive_readers_that_vanish(web: Running,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    streams = []
    for _ in range(20):
        s = socket.create_connection(("127.0.0.1", web.port), timeout=5)
        s.sendall(b"GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        streams.append(s)
    time.sleep(0.3)
    for s in streams[:10]:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()  # a reset: the reader is gone
    for _ in range(5):
        web.venue._changed()
        time.sleep(0.1)
    live = streams[10]
    got = b""
    deadline = time.monotonic() + 3
    while got.count(b"event: state") < 2 and time.monotonic() < deadline:
        got += live.recv(65536)
    assert got.count(b"event: state") >= 2
    for s in streams[10:]:
        s.close()
    assert_answers(web.port)
    assert_clean_log(caplog)


def test_a_client_that_pipelines_and_never_reads_is_bounded_and_cut(web: Running) -> None:
    with socket.create_connection(("127.0.0.1", web.port), timeout=5) as s:
        s.settimeout(0.5)
        with contextlib.suppress(TimeoutError, OSError):  # the server stops reading: that is the point
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n" * 3000)
        time.sleep(0.3)
        buffered = [c.transport.get_write_buffer_size() for c in list(web.server.open) if c.transport]
        # Answers wait while the client does not read: at most the high-water mark and one page over it.
        assert max(buffered) < 64 * 1024 + 2 * len(web.server.page), buffered
        time.sleep(1.0)  # past request_s: the connection is cut
        s.settimeout(5)
        got = b""
        try:
            while chunk := s.recv(1 << 20):
                got += chunk
        except ConnectionResetError:
            pass
    answers = responses(got)
    assert len(answers) < 3000 and answers[-1][0] == 408
    assert_answers(web.port)


def test_an_event_stream_nobody_reads_is_closed(web: Running) -> None:
    now = time.time()
    for i in range(200):  # a state of some 60 KB, so that the buffers fill in a few changes
        status = {"v": 1, "type": "status", "table": f"T{i:03d}", "online": True, "sent": now, "reason": "x" * 200}
        web.venue.handle(f"venue/v1/T{i:03d}/status", contract.encode(status))
    assert web.venue.counts["statuses"] == 200
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", web.port))
    try:
        s.sendall(b"GET /events HTTP/1.1\r\nHost: t\r\n\r\n")
        deadline = time.monotonic() + 10
        while web.server.counts["stalled"] == 0 and time.monotonic() < deadline:
            web.venue._changed()
            time.sleep(0.06)
        assert web.server.counts["stalled"] == 1
        assert not web.server.streams
    finally:
        s.close()
    assert_answers(web.port)
