"""A loopback stand-in for Slack's Socket Mode, beside the Web API stand-in.

``apps.connections.open`` (called with the app-level token) answers a ``ws://``
URL of :class:`SocketModeServer`, a WebSocket server written to RFC 6455 as
far as Slack uses it: the handshake, a ``hello`` on connecting, envelopes sent
with :meth:`SocketModeServer.send_envelope`, pings answered with pongs, and the
acknowledgements (``{"envelope_id": ...}``) the app sends back, recorded.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import struct
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tests.slack.fake_slack import FakeSlack

_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _frame(opcode: int, payload: bytes) -> bytes:
    """A server frame: final, unmasked."""
    head = bytes([0x80 | opcode])
    n = len(payload)
    if n < 126:
        return head + bytes([n]) + payload
    if n < 1 << 16:
        return head + bytes([126]) + struct.pack("!H", n) + payload
    return head + bytes([127]) + struct.pack("!Q", n) + payload


def _read_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def _read_frame(conn: socket.socket) -> tuple[int, bytes]:
    """A client frame (always masked), as (opcode, payload)."""
    first, second = _read_exact(conn, 2)
    n = second & 0x7F
    if n == 126:
        n = struct.unpack("!H", _read_exact(conn, 2))[0]
    elif n == 127:
        n = struct.unpack("!Q", _read_exact(conn, 8))[0]
    mask = _read_exact(conn, 4) if second & 0x80 else b"\0\0\0\0"
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(_read_exact(conn, n)))
    return first & 0x0F, payload


@dataclass
class SocketModeServer:
    acks: list[dict[str, Any]] = field(default_factory=list)
    connections: list[socket.socket] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    connected: threading.Event = field(default_factory=threading.Event)
    _listener: socket.socket | None = None

    @property
    def url(self) -> str:
        assert self._listener is not None
        return f"ws://127.0.0.1:{self._listener.getsockname()[1]}/link/?ticket={uuid.uuid4().hex}"

    def start(self) -> SocketModeServer:
        self._listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._listener is not None:
            self._listener.close()
        with self.lock:
            for conn in self.connections:
                conn.close()

    def _accept(self) -> None:
        assert self._listener is not None
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        headers = dict(
            line.split(": ", 1) for line in request.decode().split("\r\n")[1:] if ": " in line
        )
        accept = base64.b64encode(
            hashlib.sha1((headers["Sec-WebSocket-Key"] + _GUID).encode()).digest()
        )
        conn.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        )
        hello = {
            "type": "hello",
            "num_connections": 1,
            "connection_info": {"app_id": "A1"},
            "debug_info": {"host": "loopback", "approximate_connection_time": 3600},
        }
        with self.lock:
            self.connections.append(conn)
            conn.sendall(_frame(1, json.dumps(hello).encode()))
        self.connected.set()
        try:
            while True:
                opcode, payload = _read_frame(conn)
                if opcode == 9:  # ping
                    with self.lock:
                        conn.sendall(_frame(10, payload))
                elif opcode == 1:
                    with self.lock:
                        self.acks.append(json.loads(payload))
                elif opcode == 8:  # close
                    with self.lock:
                        conn.sendall(_frame(8, payload[:2]))
                    break
        except (ConnectionError, OSError):
            pass
        finally:
            with self.lock:
                if conn in self.connections:
                    self.connections.remove(conn)
            conn.close()

    def open_connections(self) -> int:
        with self.lock:
            return len(self.connections)

    def send_envelope(self, kind: str, payload: dict[str, Any]) -> str:
        """Send ``payload`` as Slack does (``events_api``, ``slash_commands``, ``interactive``)."""
        envelope_id = str(uuid.uuid4())
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
            "retry_attempt": 0,
            "retry_reason": "",
        }
        with self.lock:
            conn = self.connections[-1]
            conn.sendall(_frame(1, json.dumps(envelope).encode()))
        return envelope_id

    def wait_for_ack(self, envelope_id: str, timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if any(a.get("envelope_id") == envelope_id for a in self.acks):
                    return True
            time.sleep(0.01)
        return False


@dataclass
class SocketSlack(FakeSlack):
    """The Web API stand-in whose ``apps.connections.open`` hands out ``socket``'s URL."""

    socket: SocketModeServer = field(default_factory=SocketModeServer)

    def answer(
        self, method: str, params: dict[str, Any], token: str | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        if method == "apps.connections.open":
            if not (token or "").startswith("xapp-"):
                return 200, {"ok": False, "error": "not_allowed_token_type"}, {}
            return 200, {"ok": True, "url": self.socket.url}, {}
        return super().answer(method, params, token)

    def start(self) -> SocketSlack:
        self.socket.start()
        super().start()
        return self

    def stop(self) -> None:
        self.socket.stop()
        super().stop()
