"""A TCP proxy that delays every piece of data, each direction on its own, by a random
delay (e.g. 20 ms ± 10 ms), keeping the stream's order: a jittery, asymmetric link for
clock tests. It stands in for `tc netem`, whose kernel module (sch_netem) these machines
cannot load; the node sees the same thing, TCP segments arriving late by varying amounts.
"""
import asyncio
import random


class DelayProxy:
    def __init__(self, listen_port, target_port, delay_ms=20.0, jitter_ms=10.0, seed=1, host="127.0.0.1"):
        self.listen_port = listen_port
        self.target_port = target_port
        self.delay = delay_ms / 1000
        self.jitter = jitter_ms / 1000
        self.random = random.Random(seed)
        self.host = host
        self.server = None
        self.tasks = set()
        # How late, at the most, a piece went out after its deadline (s): this process's own
        # scheduling delay, which a loaded machine adds to the link's delays.
        self.max_lateness = 0.0

    async def start(self):
        self.server = await asyncio.start_server(self._accept, self.host, self.listen_port)

    async def stop(self):
        self.server.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.server.wait_closed()

    def _delay(self):
        return max(0.0, self.delay + self.random.uniform(-self.jitter, self.jitter))

    async def _accept(self, client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            client_writer.close()
            return
        for reader, writer in ((client_reader, server_writer), (server_reader, client_writer)):
            task = asyncio.create_task(self._pump(reader, writer))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pump(self, reader, writer):
        """Reads as data comes and writes each piece at its own deadline, never before the previous one."""
        loop = asyncio.get_running_loop()
        queue = asyncio.Queue()

        async def deliver():
            while True:
                due, data = await queue.get()
                if data is None:
                    break
                await asyncio.sleep(max(0.0, due - loop.time()))
                self.max_lateness = max(self.max_lateness, loop.time() - due)
                writer.write(data)
                await writer.drain()
            writer.close()

        sender = asyncio.create_task(deliver())
        last_due = 0.0
        try:
            while data := await reader.read(65536):
                last_due = max(last_due, loop.time() + self._delay())
                queue.put_nowait((last_due, data))
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            queue.put_nowait((last_due, None))
            try:
                await sender
            except (ConnectionError, asyncio.CancelledError):
                pass
