#!/usr/bin/env python3
"""The long Schemathesis run (issue 49): every operation of the OpenAPI document a node
serves, at least --examples generated cases per operation and phase (100 by default), with
Schemathesis' checks for server errors, status codes, content types and response schemas,
against two nodes recording the test pattern with a token; the same scenario as
Tests/protocol/test_openapi_schemathesis.py, whose short run CI makes (schemathesis_run.py
has both, and says what is not fuzzed against the recording node and why).

Prints each operation's cases by status, the failures, and the recording's figures (frames
dropped, chunks and gaps over the run), and writes them to bench/out/api-fuzz/result.json
with Schemathesis' own reports beside it. Exits non-zero on any failure.

    python3 bench/api-fuzz.py [--node BIN] [--examples 100] [--seed 49]
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from node_harness import NODE_BIN, Node, peak_rss_mib  # noqa: E402
from schemathesis_run import OTHER_METHODS, SEED, STREAM, fuzz_recording_nodes, summary  # noqa: E402

TOKEN = "api-fuzz-token"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--node", default=str(NODE_BIN), help="the allspark-node binary (default: %(default)s)")
    parser.add_argument("--examples", type=int, default=100, help="cases per operation and phase (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--continuous", type=int, default=300,
                        help="seconds of `schemathesis fuzz` after the seeded phases, so that operations without input "
                             "are called as often as the rest (default: %(default)s; 0: none)")
    parser.add_argument("--out", default=str(REPO / "bench/out/api-fuzz"))
    arguments = parser.parse_args()
    import node_harness
    node_harness.NODE_BIN = Path(arguments.node)

    out = Path(arguments.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="api-fuzz-") as work:
        nodes = [Node(Path(work) / f"store{index}", "--token", TOKEN, log_dir=out) for index in range(2)]
        try:
            began = time.time()
            result = fuzz_recording_nodes(*nodes, TOKEN, out, arguments.examples, seed=arguments.seed,
                                          continuous_seconds=arguments.continuous)
            peaks = [peak_rss_mib(node.process.pid) for node in nodes]
        finally:
            codes = [node.stop() for node in nodes]

    seen = {**result["seen"], **{f"{name} (its own node)": counts for name, counts in result["configSeen"].items()}}
    cases = {name: sum(counts.values()) for name, counts in seen.items()}
    operations = [name for name in result["operations"] if name != STREAM]
    figures = {
        "examples": arguments.examples, "seed": arguments.seed, "continuousSeconds": arguments.continuous, "node": arguments.node, "seconds": round(time.time() - began, 1),
        "exitCodes": [result["exitCode"], result["configExitCode"]],
        "fewestCases": min((cases.get(name) or cases.get(f"{name} (its own node)", 0), name) for name in operations),
        "cases": sum(cases.values()),
        "statuses": {name: {str(code): count for code, count in counts.items()} for name, counts in seen.items()},
        "framesDropped": [recorder["framesDropped"] for recorder in result["recorders"]],
        "framesDroppedForStore": [recorder["framesDroppedForStore"] for recorder in result["recorders"]],
        "framesCaptured": [recorder["framesCaptured"] for recorder in result["recorders"]],
        "chunksOverTheRun": len(result["chunks"]), "timelineProblems": result["timelineProblems"],
        "health": result["health"], "peakRssMiB": peaks, "nodeExitCodes": codes,
        "otherMethods": {str(code): count for code, count in result["seen"].get(OTHER_METHODS, {}).items()},
    }
    (out / "result.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(summary(result["seen"]))
    print(summary(result["configSeen"]))
    for name in ("output", "configOutput"):
        print("\n".join(result[name].splitlines()[-14:]))
    print(json.dumps({key: value for key, value in figures.items() if key != "statuses"}, indent=2))
    failed = (result["exitCode"] or result["configExitCode"] or any(figures["framesDropped"]) or any(figures["framesDroppedForStore"])
              or result["timelineProblems"] or result["health"] != [200, 200])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
