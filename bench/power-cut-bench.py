#!/usr/bin/env python3
"""Power cuts at seeded random moments while the node records (Tests/powercut/power_cut_vm.py):
20 by default, a third each during eviction alone, token rotations and runtime-config
writes. Prints and writes bench/out/power-cuts.json: recovered cuts, undecodable listed
chunks, torn token or runtime-config files, and the footage lost before each cut.

    sudo python3 bench/power-cut-bench.py [--cuts 20] [--seed 20261124]
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/powercut"))
from power_cut_vm import PowerCutRig, summary, why_the_vm_cannot_start  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261124)
    arguments = parser.parse_args()
    reason = why_the_vm_cannot_start()
    if reason:
        sys.exit(f"the VM cannot start: {reason}")
    work = Path(tempfile.mkdtemp(prefix="power-cut-bench-"))
    cuts = PowerCutRig(work, arguments.seed).run(arguments.cuts)
    result = summary(cuts)
    result["seed"] = arguments.seed
    result["per_cut"] = [
        {"cut": cut.index, "activity": cut.activity, "delay_s": round(cut.delay_s, 2), "lost_ms": cut.lost_ms,
         "listed": len(cut.listed), "undecodable": cut.undecodable(), "torn_token": cut.torn_token(),
         "torn_runtime_config": cut.torn_runtime_config(), "rotations_seen": len(cut.tokens_seen),
         "config_writes_seen": len(cut.configs_seen)}
        for cut in cuts]
    out = REPO / "bench/out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "power-cuts.json").write_text(json.dumps(result, indent=2))
    print(json.dumps({key: value for key, value in result.items() if key != "per_cut"}, indent=2))
    print(f"per cut: bench/out/power-cuts.json; guest events and consoles: {work}/boot-N")


if __name__ == "__main__":
    main()
