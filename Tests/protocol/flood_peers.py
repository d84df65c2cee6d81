"""The floods of issue 49 (part 5), as asyncio peers on loopback, for Tests/protocol/test_floods.py
and bench/floods.py: idle connections held open, WebSocket peers sending as fast as they can,
1 GB request bodies, JSON nested 100,000 deep, 10,000 holds, and a bucket of 100,000 archive
keys asked for by every route that lists the archive. Each returns what the node answered;
`measure` runs one beside the token holder's own requests and samples the node's memory, and
`recorder_losses` reads what the recorder lost."""
import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import aiohttp

from node_harness import peak_rss_mib, rss_mib
from wsclient import Peer

GIB = 1 << 30


def recorder_losses(node, auth):
    """Frames the recorder lost (dropped by capture, encoder, privacy pass or store)."""
    recorder = node.json("/api/status", headers=auth)[1]["recorder"]
    return recorder["framesDropped"] + recorder["framesDroppedForStore"]


def reset_peak_rss(pid):
    """Starts the kernel's peak-RSS mark (VmHWM) afresh (clear_refs 5), so it measures one flood."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


async def owner_requests(node, auth, stop, latencies, failures, every_s=0.2):
    """The token holder's own GET /api/status, each on a new connection, until `stop` is set."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
                async with session.get(node.url("/api/status"), headers=auth) as response:
                    await response.read()
                    if response.status != 200:
                        failures.append(f"status {response.status}")
            latencies.append(time.monotonic() - started)
        except Exception as error:  # noqa: BLE001 - any failure is the finding
            failures.append(f"{type(error).__name__}: {error}")
            latencies.append(time.monotonic() - started)
        await asyncio.sleep(every_s)


async def measure(node, auth, flood):
    """Runs `flood()` while the owner asks for /api/status and the node's RSS is sampled.
    Returns the flood's result with the figures: frames lost, RSS before and peak, the
    owner's slowest answer and failures, health after."""
    pid = node.process.pid
    lost_before = recorder_losses(node, auth)
    rss_before = rss_mib(pid)
    reset = reset_peak_rss(pid)
    peak = [rss_before]
    stop = asyncio.Event()
    latencies, failures = [], []

    async def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], rss_mib(pid))
            except OSError:
                return
            await asyncio.sleep(0.05)

    owner = asyncio.create_task(owner_requests(node, auth, stop, latencies, failures))
    sampler = asyncio.create_task(sample())
    started = time.monotonic()
    try:
        result = await flood()
    finally:
        stop.set()
        await asyncio.gather(owner, sampler)
    seconds = time.monotonic() - started
    peak_mib = max(peak[0], (peak_rss_mib(pid) or 0) if reset else 0)
    health, recovered_s = None, time.monotonic()
    for _ in range(30):
        try:
            health = node.request("/api/health")[0]
            break
        except OSError:
            await asyncio.sleep(1)
    recovered_s = time.monotonic() - recovered_s
    return {
        "result": result, "seconds": round(seconds, 1), "healthAnsweredAfterS": round(recovered_s, 1),
        "framesLost": recorder_losses(node, auth) - lost_before,
        "rssBeforeMiB": round(rss_before, 1), "rssPeakMiB": round(peak_mib, 1), "rssGrowthMiB": round(peak_mib - rss_before, 1),
        "ownerRequests": len(latencies), "ownerSlowestS": round(max(latencies, default=0), 3), "ownerFailures": failures[:5],
        "health": health, "alive": node.process.poll() is None,
    }


# -- the floods --------------------------------------------------------------------------


async def read_answer(reader, timeout, until_closed=False):
    """What the node sends within `timeout`: (bytes, closed). Returns once one whole answer
    (head and Content-Length bytes) is in, unless `until_closed`; then waits up to 1 s more
    to see whether the node closes the connection."""
    data = b""
    try:
        async with asyncio.timeout(timeout):
            while chunk := await reader.read(65536):
                data += chunk
                if not until_closed and complete(data):
                    break
            else:
                return data, True
        try:
            async with asyncio.timeout(1):
                while chunk := await reader.read(65536):
                    data += chunk
                return data, True
        except TimeoutError:
            return data, False
    except TimeoutError:
        return data, False
    except (ConnectionError, OSError):
        return data, True


def complete(data):
    head, separator, body = data.partition(b"\r\n\r\n")
    if not separator:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value)
    return False


def parse_response(data):
    """(status, JSON body or None) of a raw HTTP/1.1 answer."""
    if not data.startswith(b"HTTP/1."):
        return None, None
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    try:
        return status, json.loads(body)
    except ValueError:
        return status, None


async def idle_connections(port, count=1000, hold_s=20.0, partial=b"GET /api/status HTTP/1.1\r\nHost: x\r\n", all_sent=None):
    """`count` connections opened at once that send the start of a request head and nothing
    more (slowloris); held up to `hold_s`. Returns how many the node accepted, closed (and
    after how long), and what it answered them. `all_sent`, an asyncio.Event, is set once
    every connection has been opened (or refused) and has sent its partial head."""
    opened, refused, started = [], 0, time.monotonic()

    def settled():
        if all_sent is not None and len(opened) + refused == count:
            all_sent.set()

    async def one():
        nonlocal refused
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(partial)
            await writer.drain()
        except OSError:
            refused += 1
            settled()
            return None
        opened.append(writer)
        settled()
        data, closed = await read_answer(reader, hold_s)
        return (time.monotonic() - started if closed else None), data

    outcomes = [o for o in await asyncio.gather(*(one() for _ in range(count))) if o]
    for writer in opened:
        writer.close()
    closed_after = sorted(t for t, _ in outcomes if t is not None)
    answers = {}
    for _, data in outcomes:
        status, body = parse_response(data)
        key = f"{status} {body.get('message') if body else data[:60]!r}" if status else ("closed" if data == b"" else repr(data[:60]))
        answers[key] = answers.get(key, 0) + 1
    return {"connections": count, "opened": len(opened), "refused": refused, "closedByNode": len(closed_after),
            "closedAfterS": [round(closed_after[0], 1), round(closed_after[-1], 1)] if closed_after else None,
            "answers": answers}


async def websocket_flood(node, token, peers=200, seconds=15.0):
    """`peers` WebSocket clients, each sending small JSON messages as fast as its socket
    takes them for `seconds` (clientInfo, an unknown command, a malformed text) while reading
    what the node sends. Returns how many sessions the node refused (and its message), the
    close codes it sent, the answers it gave (how many, the notices naming a limit), and the
    messages sent (those the kernel took: a peer the node reads slowly fills its socket)."""
    refused, sent, closes, notices, answered = {}, [], {}, {}, [0]
    messages = [json.dumps({"type": "clientInfo", "clientName": "flood"}), json.dumps({"command": "flood"}), "{not json"]
    deadline = time.monotonic() + seconds

    async def read(ws):
        async for message in ws:
            if message.type == aiohttp.WSMsgType.TEXT:
                answered[0] += 1
                try:
                    body = json.loads(message.data)
                except ValueError:
                    continue
                if "limit" in body:
                    notices[body["message"]] = notices.get(body["message"], 0) + 1

    async def one(session):
        try:
            ws = await session.ws_connect(node.ws_url(f"/?token={token}"), autoping=True, max_msg_size=0)
        except aiohttp.WSServerHandshakeError as error:
            key = f"{error.status} {error.message}"
            refused[key] = refused.get(key, 0) + 1
            return
        except OSError as error:
            refused[repr(error)] = refused.get(repr(error), 0) + 1
            return
        reader = asyncio.create_task(read(ws))
        count = 0
        try:
            async with asyncio.timeout_at(asyncio.get_running_loop().time() + max(0.0, deadline - time.monotonic())):
                while not ws.closed:
                    await ws.send_str(messages[count % 3])
                    count += 1
                    if count % 16 == 0:
                        await asyncio.sleep(0)
        except (TimeoutError, ConnectionError, aiohttp.ClientError, RuntimeError):
            pass
        sent.append(count)
        if ws.closed:
            key = str(ws.close_code)
            closes[key] = closes.get(key, 0) + 1
        await ws.close()
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        await asyncio.gather(*(one(session) for _ in range(peers)))
    return {"peers": peers, "upgraded": len(sent), "refusedUpgrades": refused, "closedByNode": closes,
            "limitNotices": notices, "answersRead": answered[0], "messagesSent": sum(sent)}


async def big_body(port, path, method="POST", token=None, size=GIB, chunked=False, give_up_s=60.0):
    """A request to `path` that announces (or, chunked, streams) a `size`-byte body, sent as
    fast as the node reads it while its answer is awaited. Returns the answer, how many body
    bytes went before it, and how long it took."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {size}\r\n\r\n"
    writer.write(head.encode())
    block = b"[" * (1 << 20)
    framed = f"{len(block):x}\r\n".encode() + block + b"\r\n" if chunked else block
    sent, started = 0, time.monotonic()

    async def send():
        nonlocal sent
        try:
            while sent < size:
                writer.write(framed)
                await writer.drain()
                sent += len(block)
        except (ConnectionError, OSError):
            pass

    sender = asyncio.create_task(send())
    data, closed = await read_answer(reader, give_up_s)
    answered_s = time.monotonic() - started
    sender.cancel()
    writer.close()
    status, body = parse_response(data)
    return {"path": path, "status": status, "body": body, "bodyBytesSentBeforeAnswer": sent,
            "answeredS": round(answered_s, 2), "closed": closed}


def deep_json(depth=100_000):
    return "[" * depth + "]" * depth


# Each route that parses a JSON body, with its body limit: JSON nested as deep as fits under
# the limit reaches the route's parser (a body over it is answered 413 before any parser
# runs: the gigabyte-bodies test's).
JSON_ROUTES = [("POST", "/api/holds", 16 * 1024), ("PUT", "/api/config", 64 * 1024),
               ("POST", "/api/fleet/exports", 64 * 1024), ("POST", "/api/fleet/holds", 64 * 1024)]


def deep_bodies(limit_bytes):
    """Arrays and objects nested as deep as fits in `limit_bytes` (a little under it)."""
    arrays = (limit_bytes - 64) // 2
    objects = (limit_bytes - 64) // 6
    return [("arrays", deep_json(arrays)), ("objects", '{"a":' * objects + "1" + "}" * objects)]


async def deep_json_requests(node, token, depth=100_000):
    """JSON nested as deep as each route's body limit allows to every route that parses a
    JSON body, and `depth` deep over the WebSocket (its 1 MiB message limit takes it)."""
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    answers = {}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        for method, path, limit in JSON_ROUTES:
            for name, body in deep_bodies(limit):
                assert len(body) < limit
                key = f"{method} {path} {name} ({len(body)} bytes)"
                try:
                    async with session.request(method, node.url(path), data=body, headers=auth) as response:
                        answers[key] = [response.status, await response.json(content_type=None)]
                except Exception as error:  # noqa: BLE001
                    answers[key] = [None, repr(error)]
        for name, body in [("arrays", deep_json(depth)), ("objects", '{"a":' * depth + "1" + "}" * depth)]:
            assert len(body) < 1 << 20
            try:
                ws = await session.ws_connect(node.ws_url(f"/?token={token}"))
                await ws.receive(timeout=10)  # clientConfig
                await ws.send_str(body)
                reply = await ws.receive(timeout=10)
                answers[f"WebSocket {name}"] = [reply.type.name, reply.data if isinstance(reply.data, str) else repr(reply.data)]
                await ws.close()
            except Exception as error:  # noqa: BLE001
                answers[f"WebSocket {name}"] = [None, repr(error)]
    return answers


async def many_holds(node, token, start_s, end_s, count=10_000, at_once=16):
    """`count` POST /api/holds over one range, `at_once` in flight. Returns the answers by
    status with one message of each, and the holds the node lists after."""
    auth = {"Authorization": f"Bearer {token}"}
    statuses, messages = {}, {}
    queue = iter(range(count))

    async def worker(session):
        for index in queue:
            body = {"start": start_s, "end": end_s, "reason": f"flood {index}"}
            try:
                async with session.post(node.url("/api/holds"), json=body, headers=auth) as response:
                    answer = await response.json(content_type=None)
                    statuses[response.status] = statuses.get(response.status, 0) + 1
                    if response.status != 201:
                        messages.setdefault(response.status, answer)
            except Exception as error:  # noqa: BLE001
                statuses[repr(error)] = statuses.get(repr(error), 0) + 1

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as session:
        await asyncio.gather(*(worker(session) for _ in range(at_once)))
        async with session.get(node.url("/api/holds"), headers=auth) as response:
            listed = len((await response.json())["holds"])
    return {"requested": count, "statuses": statuses, "refusals": messages, "listed": listed}


def flood_manifests(prefix, start_ms, count, step_ms=2000):
    """(key, body) of `count` manifests of back-to-back chunks from `start_ms`, `step_ms` each,
    under the archive `prefix`, as another writer to the bucket could leave them: the node's own
    format, tiny (the chunks they name are not there)."""
    for index in range(count):
        first_ms = start_ms + index * step_ms
        stamp = f"{first_ms // 1000}.{first_ms % 1000:03d}"
        manifest = {"manifestVersion": 1, "node": "flood", "stamp": stamp, "format": "mp4", "chunkFile": f"chunk_{stamp}.mp4",
                    "timestampsFile": f"timestamps_{stamp}.txt", "firstFrameMs": first_ms, "lastFrameMs": first_ms + step_ms - 1,
                    "frames": 30, "chunkBytes": 1, "timestampsBytes": 1, "chunkSHA256": "0" * 64, "timestampsSHA256": "0" * 64,
                    "archivedAtMs": first_ms + step_ms}
        yield f"{prefix}manifests/{stamp}.json", json.dumps(manifest).encode()


def put_objects(s3, bucket, objects, workers=32):
    """PUTs every (key, body) of `objects`, `workers` at once. Returns how many and how long it took."""
    started = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        count = sum(1 for _ in pool.map(lambda item: s3.put_object(Bucket=bucket, Key=item[0], Body=item[1]), objects))
    return {"objects": count, "seconds": round(time.monotonic() - started, 1)}


def answer_summary(status, started, text):
    """An answer's status and time, and whether it names the bucket listing limit (with the sentence that does)."""
    at = text.find("the bucket listing limit")
    return {"status": status, "seconds": round(time.monotonic() - started, 2), "namesLimit": at >= 0,
            "message": text[max(0, text.rfind('"', 0, at) + 1):text.find('"', at)] if at >= 0 else text[:300]}


async def archive_listings(node, token, start_s, end_s, timeout_s=600):
    """Every route that lists the archive for [start_s, end_s), asked in turn by the token
    holder: GET /api/chunks and /api/clip, a WebSocket uploadTimeRange, and GET /api/fleet (the
    fleet's node records, listed from the same bucket). Returns each answer's summary."""
    auth = {"Authorization": f"Bearer {token}"}
    answers = {}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout_s)) as session:
        for name, path in [("chunks", f"/api/chunks?start={start_s}&end={end_s}"), ("clip", f"/api/clip?start={start_s}&end={end_s}"),
                           ("fleet", "/api/fleet")]:
            started = time.monotonic()
            try:
                async with session.get(node.url(path), headers=auth) as response:
                    answers[name] = answer_summary(response.status, started, (await response.read()).decode(errors="replace"))
            except Exception as error:  # noqa: BLE001 - any failure is the finding
                answers[name] = answer_summary(None, started, repr(error))
    started = time.monotonic()
    try:
        peer = await Peer.connect(node.ws_url(f"/?token={token}"))
        try:
            await peer.send({"command": "uploadTimeRange", "startTime": start_s, "endTime": end_s})
            final = await peer.receive_json(lambda message: message.get("command") == "uploadTimeRange", timeout=timeout_s)
            answers["websocket"] = answer_summary(final.get("status"), started, json.dumps(final))
        finally:
            await peer.close()
    except Exception as error:  # noqa: BLE001
        answers["websocket"] = answer_summary(None, started, repr(error))
    return answers
