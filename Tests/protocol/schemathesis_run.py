"""Schemathesis (PyPI: a fuzzer no one here wrote) over the OpenAPI document a node serves,
with its checks for server errors, status codes, content types and response schemas. Shared
by Tests/protocol/test_openapi_schemathesis.py (a short run) and bench/api-fuzz.py (the long
one). Schemathesis runs as its CLI (`schemathesis run`, 4.x), with a fixed seed; what each
operation met is read back from its NDJSON report."""
import collections
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
import urllib.parse
import urllib.request
from pathlib import Path

from node_harness import put_ahead_of_the_rest_of_the_machine

CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance", "response_schema_conformance"]
SEED = 49
# Never fuzzed against the recording node, and why:
# - the live stream is one endless response (it ends only when the encoder restarts), so no
#   case against it would finish; Tests/protocol/test_live_video.py reads it;
# - PUT /api/config changes the recording itself (chunk length, size cap, age limit, format):
#   a cap of 0.25 MB or an age of 0 h evicts the very timeline the run checks for gaps. It is
#   fuzzed against a second recording node of its own (CONFIG_ONLY), checked for lost frames.
STREAM = "GET /live/stream.mp4"
OTHER_METHODS = "a documented path with a method it lacks"
CONFIG_PUT = "PUT /api/config"
SCHEMATHESIS = [sys.executable, "-c", "import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())"]


PHASES = ("examples", "coverage", "fuzzing", "stateful")


def run(base_url, token, report_dir, examples, include=(), exclude=(), phases=PHASES, seed=SEED, workers=1, timeout=None,
        known=None, continuous_seconds=None):
    """Runs `phases` (all: examples, coverage, fuzzing, stateful) over the operations named in
    `include` (all when empty) less `exclude`, at most `examples` cases per operation and
    phase; or, with `continuous_seconds`, `schemathesis fuzz` for that long instead (chains
    of calls across the operations, each operation many times, until the time is spent).
    `known` maps a path parameter to values that exist on the node (chunk files, live
    files): Schemathesis takes one of them for half its cases, so they reach the code that
    serves real files, not only the refusals. Returns (exit code, console output,
    {operation: Counter of statuses})."""
    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    ndjson = report_dir / "schemathesis.ndjson"
    # The served document, read without a token and handed over as a file: Schemathesis
    # leaves out the operation a schema was loaded from, and GET /api/openapi.json is one.
    document = report_dir / "openapi.json"
    with urllib.request.urlopen(f"{base_url}/api/openapi.json", timeout=10) as served:
        document.write_bytes(served.read())
    config = report_dir / "schemathesis.toml"
    known = known or {}
    config.write_text(
        f"[headers]\nAuthorization = {json.dumps('Bearer ' + token)}\n"
        + "".join(f"[dictionaries.{name}]\nvalues = {json.dumps(values)}\n" for name, values in known.items())
        + "[parameters]\n"
        + "".join(f'"path.{name}" = {{ dictionary = "{name}", probability = 0.5 }}\n' for name in known))
    if continuous_seconds:
        arguments = [*SCHEMATHESIS, "--config-file", str(config), "fuzz", str(document), "--url", base_url,
                     "--max-time", str(continuous_seconds)]
    else:
        arguments = [*SCHEMATHESIS, "--config-file", str(config), "run", str(document), "--url", base_url,
                     "--phases", ",".join(phases), "--max-examples", str(examples)]
    arguments += [
        # The token comes from the config's header, never from generated security parameters:
        # a wrong token counts as a failed attempt, and 10 of them slow this address to 429s.
        "--checks", ",".join(CHECKS), "--seed", str(seed), "--workers", str(workers),
        "--generation-with-security-parameters", "false", "--generation-database", "none",
        "--request-timeout", "30", "--no-color",
        "--report", "junit,ndjson", "--report-junit-path", str(report_dir / "junit.xml"), "--report-ndjson-path", str(ndjson),
    ]
    for name in include:
        arguments += ["--include-name", name]
    for name in exclude:
        arguments += ["--exclude-name", name]
    # Run in the report folder: Schemathesis keeps a crash cache (.schemathesis/) where it runs.
    finished = subprocess.run(arguments, capture_output=True, text=True, timeout=timeout, cwd=report_dir)
    output = finished.stdout + finished.stderr
    (report_dir / "console.txt").write_text(output)
    return finished.returncode, output, statuses(ndjson)


def statuses(ndjson):
    """{`METHOD /template`: Counter({status code: cases})} from the NDJSON report, each
    request put under the documented operation its method and path match (stateful chains
    too); OTHER_METHODS for what the coverage phase sends with methods a path lacks."""
    seen = collections.defaultdict(collections.Counter)
    if not Path(ndjson).exists():
        return seen
    with open(ndjson) as events:
        for line in events:
            event = json.loads(line)
            finished = event.get("ScenarioFinished") or event.get("FuzzScenarioFinished")
            if not finished or not finished.get("recorder"):
                continue
            for interaction in (finished["recorder"].get("interactions") or {}).values():
                request, response = interaction.get("request", {}), interaction.get("response")
                seen[operation_of(request)][response["status_code"] if response else None] += 1
    return seen


def operation_of(request):
    method = request.get("method", "?").upper()
    path = urllib.parse.urlsplit(request.get("uri", "")).path
    given = path.split("/")
    matches = [template for template in TEMPLATES
               if len(template.split("/")) == len(given)
               and all(part.startswith("{") or part == segment for part, segment in zip(template.split("/"), given))]
    # A literal path wins over a template (/live/stream.mp4 over /live/{file}).
    matches.sort(key=lambda template: template.count("{"))
    for template in matches:
        if f"{method} {template}" in OPERATIONS:
            return f"{method} {template}"
    return OTHER_METHODS if matches else f"{method} {path} (no route)"


def documented_operations(document):
    return sorted(f"{method.upper()} {path}" for path, item in document["paths"].items() for method in item
                  if method in ("get", "put", "post", "delete", "patch"))


DOCUMENT = json.loads((Path(__file__).resolve().parents[2] / "docs/reference/openapi.json").read_text())
OPERATIONS = set(documented_operations(DOCUMENT))
TEMPLATES = sorted(DOCUMENT["paths"])


def summary(seen):
    lines = []
    for operation in sorted(seen):
        counts = seen[operation]
        lines.append(f"{operation}: {sum(counts.values())} cases, " + ", ".join(f"{code}: {n}" for code, n in sorted(counts.items(), key=str)))
    return "\n".join(lines)


def timeline_problems(chunks, fps):
    """What is wrong with a run of consecutive chunks of a live source at `fps`: a chunk with
    fewer frames than its span holds (frames lost inside it), or a pause between two."""
    interval = 1000 / fps
    problems = []
    for chunk in chunks:
        expected = round((chunk["endMs"] - chunk["startMs"]) / interval) + 1
        if chunk["frames"] < expected - 1:
            problems.append(f"{chunk['file']}: {chunk['frames']} frames over {chunk['endMs'] - chunk['startMs']} ms ({expected} expected)")
    for previous, following in zip(chunks, chunks[1:]):
        gap = following["startMs"] - previous["endMs"]
        if not 0 < gap <= 1.5 * interval:
            problems.append(f"{gap} ms between {previous['file']} and {following['file']}")
    return problems


def live_files(node, token):
    """The names the LL-HLS playlist lists now (they leave its window within seconds)."""
    _, _, playlist = node.request("/live/index.m3u8", headers={"Authorization": f"Bearer {token}"})
    names = re.findall(r'(?:URI="|^)((?:init|part|seg)-[0-9]+\\.mp4)', playlist.decode(), re.MULTILINE)
    return ["index.m3u8", *dict.fromkeys(names)][:12]


def fuzz_recording_nodes(node, config_node, token, report_dir, examples, seed=SEED, continuous_seconds=0):
    """Every operation of the document `node` serves, fuzzed while both nodes record: all
    but the stream and PUT /api/config against `node`, PUT /api/config alone against
    `config_node`, both at once; then, with `continuous_seconds`, `schemathesis fuzz` as
    long on both. Then, once the chunk being written at the end is finished, what the
    recording went through. Returns a dict of all of it."""
    auth = {"Authorization": f"Bearer {token}"}
    for each in (node, config_node):
        each.wait_healthy()
    chunks = node.wait_for_chunks(2, headers=auth)
    for each in (node, config_node):
        put_ahead_of_the_rest_of_the_machine(each.process.pid)
    document_status, document = node.json("/api/openapi.json")
    known = {"filename": [name for chunk in chunks[:2] for name in (chunk["file"], chunk["timestampsFile"])],
             "file": live_files(node, token)}
    started_ms = time.time() * 1000
    with ThreadPoolExecutor(2) as pool:
        recording = pool.submit(run, node.url(""), token, Path(report_dir) / "recording", examples, exclude=[STREAM, CONFIG_PUT],
                                known=known, seed=seed)
        # No stateful phase for PUT /api/config alone: its links lead to no other operation.
        config = pool.submit(run, config_node.url(""), token, Path(report_dir) / "config", examples, include=[CONFIG_PUT],
                             phases=[phase for phase in PHASES if phase != "stateful"], seed=seed)
        (code, output, seen), (config_code, config_output, config_seen) = recording.result(), config.result()
        if continuous_seconds:
            more = pool.submit(run, node.url(""), token, Path(report_dir) / "recording-continuous", examples,
                               exclude=[STREAM, CONFIG_PUT], known=known, seed=seed, continuous_seconds=continuous_seconds)
            config_more = pool.submit(run, config_node.url(""), token, Path(report_dir) / "config-continuous", examples,
                                      include=[CONFIG_PUT], seed=seed, continuous_seconds=continuous_seconds)
            for (more_code, more_output, more_seen), target in ((more.result(), seen), (config_more.result(), config_seen)):
                for operation, counts in more_seen.items():
                    target[operation] += counts
                if target is seen:
                    code, output = code or more_code, output + more_output
                else:
                    config_code, config_output = config_code or more_code, config_output + more_output
    ended_ms = time.time() * 1000
    node.wait_until(lambda: node.chunks(headers=auth)[-1]["endMs"] > ended_ms, timeout=30, what="a chunk after the run")
    recorders = [each.json("/api/status", headers=auth)[1]["recorder"] for each in (node, config_node)]
    chunks = [chunk for chunk in node.chunks(headers=auth) if chunk["endMs"] >= started_ms]
    return {
        "documentStatus": document_status, "operations": documented_operations(document),
        "exitCode": code, "output": output, "seen": seen, "configExitCode": config_code, "configOutput": config_output,
        "configSeen": config_seen, "startedMs": started_ms, "endedMs": ended_ms, "seconds": round((ended_ms - started_ms) / 1000, 1),
        "recorders": recorders, "health": [each.json("/api/health")[0] for each in (node, config_node)],
        "chunks": chunks, "timelineProblems": timeline_problems(chunks, node.fps),
    }
