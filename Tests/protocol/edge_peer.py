"""An AllSpark edge server as PROTOCOL.md describes it, for uplink tests (aiohttp).

It greets each client with clientConfig, records clientInfo and chunkSaved, stores upload
pairs (metadata, then one binary message) per client, answers as the real server does, and
lets the test send commands. With auto_upload it answers every chunkSaved with an
uploadTimeRange for exactly that chunk's [startTime, endTime].

Its clock can be set apart from the machine's: `clock_shift` seconds ahead, running
`drift` seconds per second fast (0.005 = 5 ms/s); `now()` is that clock, which /api/health
answers and commands should be written in.
"""
import asyncio
import json
import time

from aiohttp import WSMsgType, web

MAX_MESSAGE = 314572800


class EdgePeer:
    def __init__(self, port, client_config=None, auto_upload=False, ssl_context=None, host="127.0.0.1",
                 clock_shift=0.0, drift=0.0):
        self.port = port
        self.host = host
        self.clock_shift = clock_shift
        self.drift = drift
        self.clock_origin = time.time()
        self.health_requests = 0
        self.ssl_context = ssl_context
        self.client_config = client_config or {
            "videoFormat": "mp4", "videoChunkDurationMs": 3000, "videoBufferMaxMB": 16000, "fps": 30.0,
            "audioFormat": "aac", "timestampFormat": "unix",
            "communicationsPolicy": {"wifi": True, "cellular": False, "ethernet": True, "usb": False, "bluetooth": False},
        }
        self.auto_upload = auto_upload
        self.client_names = []
        self.chunk_saved = []
        self.uploads = {}
        self.statuses = []
        self.unknown = []
        self.sockets = []
        self.connections = 0
        self.runner = None

    async def start(self):
        app = web.Application()
        app.router.add_get("/api/health", self.health)
        app.router.add_get("/", self.websocket)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        await web.TCPSite(self.runner, self.host, self.port, ssl_context=self.ssl_context).start()

    async def stop(self):
        for socket in list(self.sockets):
            await socket.close()
        await self.runner.cleanup()

    def now(self):
        """The peer's clock, in epoch seconds."""
        real = time.time()
        return real + self.clock_shift + self.drift * (real - self.clock_origin)

    async def health(self, request):
        self.health_requests += 1
        return web.json_response({"status": "ok", "timestamp": self.now(), "uptime": 1.0, "protocols": ["ws"],
                                  "address": self.host, "port": self.port})

    async def websocket(self, request):
        socket = web.WebSocketResponse(max_msg_size=MAX_MESSAGE)
        await socket.prepare(request)
        self.sockets.append(socket)
        self.connections += 1
        await socket.send_json({"type": "clientConfig", "config": self.client_config})
        metadata = None
        try:
            async for message in socket:
                if message.type == WSMsgType.TEXT:
                    try:
                        data = json.loads(message.data)
                    except ValueError:
                        await socket.send_json({"status": "error", "message": "Invalid JSON"})
                        continue
                    kind = data.get("type")
                    if kind == "clientInfo":
                        self.client_names.append(data["clientName"])
                    elif kind == "chunkSaved":
                        self.chunk_saved.append(data)
                        await socket.send_json({"status": "success", "message": "Chunk saved info received"})
                        if self.auto_upload:
                            await socket.send_json({"command": "uploadTimeRange", "message": "",
                                                    "startTime": data["startTime"], "endTime": data["endTime"]})
                    elif kind == "upload":
                        metadata = data
                    elif "status" in data:
                        self.statuses.append(data)
                    else:
                        self.unknown.append(data)
                elif message.type == WSMsgType.BINARY:
                    if metadata is None:
                        await socket.send_json({"status": "error", "message": "Metadata not received yet"})
                        continue
                    self.uploads[metadata["filename"]] = message.data
                    metadata = None
                    await socket.send_json({"status": "success", "message": "Video uploaded successfully"})
        finally:
            self.sockets.remove(socket)
        return socket

    async def command(self, body):
        """Relays a command body unchecked, as POST /api/command does."""
        for socket in self.sockets:
            await (socket.send_str(body) if isinstance(body, str) else socket.send_json(body))

    async def wait_for(self, condition, timeout=30, what="condition"):
        deadline = asyncio.get_running_loop().time() + timeout
        while asyncio.get_running_loop().time() < deadline:
            if condition():
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"timed out waiting for {what}")
