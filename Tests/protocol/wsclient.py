"""A small asyncio WebSocket peer (aiohttp) that speaks PROTOCOL.md to the node."""
import asyncio
import base64
import json
import os
import socket as stdsocket
import struct

import aiohttp


class Peer:
    def __init__(self, session, socket):
        self.session = session
        self.socket = socket

    @classmethod
    async def connect(cls, url, headers=None, ssl=True):
        session = aiohttp.ClientSession()
        try:
            socket = await session.ws_connect(url, headers=headers or {}, max_msg_size=0, ssl=ssl)
        except BaseException:
            await session.close()
            raise
        return cls(session, socket)

    async def close(self):
        await self.socket.close()
        await self.session.close()

    async def send(self, message):
        await self.socket.send_str(message if isinstance(message, str) else json.dumps(message))

    async def receive(self, timeout=10):
        message = await asyncio.wait_for(self.socket.receive(), timeout)
        if message.type == aiohttp.WSMsgType.TEXT:
            return json.loads(message.data)
        if message.type == aiohttp.WSMsgType.BINARY:
            return message.data
        raise AssertionError(f"connection ended: {message.type} {message.data}")

    async def receive_json(self, predicate=lambda message: True, timeout=10):
        """The next JSON message that satisfies predicate (skipping pushed events)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            message = await self.receive(max(0.1, deadline - loop.time()))
            if isinstance(message, dict) and predicate(message):
                return message

    async def receive_uploads(self, timeout=30):
        """Upload pairs until the final status: returns ({filename: bytes}, status)."""
        files = {}
        while True:
            message = await self.receive(timeout)
            if isinstance(message, dict) and message.get("type") == "upload":
                data = await self.receive(timeout)
                assert isinstance(data, bytes), f"expected the file after its metadata, got {message}"
                assert len(data) == message["filesize"]
                files[message["filename"]] = data
            elif isinstance(message, dict) and message.get("command") == "uploadTimeRange":
                return files, message


class StallingPeer:
    """A WebSocket peer on a plain socket with a tiny receive buffer, so that it can stop
    reading (a peer on a congested link) and later read again. Blocking, one thread."""

    def __init__(self, host, port, receive_buffer=4096):
        self.socket = stdsocket.socket()
        self.socket.setsockopt(stdsocket.SOL_SOCKET, stdsocket.SO_RCVBUF, receive_buffer)
        self.socket.settimeout(30)
        self.socket.connect((host, port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.socket.sendall(
            f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 101"), head.decode(errors="replace")

    def _fill(self):
        data = self.socket.recv(1 << 20)
        if not data:
            raise AssertionError("the node closed the connection")
        self.buffer += data

    def _take(self, count):
        while len(self.buffer) < count:
            self._fill()
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken

    def send(self, message):
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
        self.socket.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        """The next whole message: a dict for text, bytes for binary (server frames are unmasked)."""
        opcode, parts = None, []
        while True:
            first, second = self._take(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._take(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._take(8))[0]
            payload = self._take(length)
            frame_opcode = first & 0x0F
            if frame_opcode == 0x8:
                raise AssertionError(f"the node closed the WebSocket: {payload!r}")
            if frame_opcode in (0x9, 0xA):
                continue
            if frame_opcode != 0x0:
                opcode = frame_opcode
            parts.append(payload)
            if first & 0x80:
                data = b"".join(parts)
                return json.loads(data) if opcode == 0x1 else data

    def close(self):
        self.socket.close()
