"""A small asyncio WebSocket peer (aiohttp) that speaks PROTOCOL.md to the node."""
import asyncio
import json

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
