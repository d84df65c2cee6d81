"""One Home Assistant set-up (Tests/onvif/ha_client.py, onvif-zeep-async) timed from inside
the client: the sequence's wall time (imports and interpreter start excluded) and the part
of it spent waiting on the node (each HTTP request aiohttp makes, from sending to the
answer read). Run by bench/onvif-setup-bench.py in the clients' network namespace.

usage: onvif_setup_timer.py HOST PORT USER PASSWORD
"""
import asyncio
import json
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "Tests/onvif"))
import ha_client  # noqa: E402

waiting = {"seconds": 0.0, "requests": 0}
original_request = aiohttp.ClientSession._request


async def timed_request(self, *arguments, **options):
    begun = time.perf_counter()
    try:
        response = await original_request(self, *arguments, **options)
        await response.read()
        return response
    finally:
        waiting["seconds"] += time.perf_counter() - begun
        waiting["requests"] += 1


aiohttp.ClientSession._request = timed_request

if __name__ == "__main__":
    host, port, user, password = sys.argv[1:5]
    begun = time.perf_counter()
    found = asyncio.run(ha_client.set_up(host, int(port), user, password))
    took = time.perf_counter() - begun
    print(json.dumps({"seconds": round(took, 4), "node_seconds": round(waiting["seconds"], 4), "requests": waiting["requests"],
                      "fault": found.get("fault"), "snapshot_is_jpeg": found.get("snapshot_is_jpeg")}))
