#!/usr/bin/env python3
"""Power cuts at seeded random moments while the node records (Tests/powercut/power_cut_vm.py):
20 by default, by turns during token rotations, runtime-config writes, archive uploads (to
a real radosgw on the host: a journal line per chunk) and eviction alone. Prints and writes
bench/out/power-cuts.json: recovered cuts, undecodable listed chunks, torn token,
runtime-config or archive-journal files, journal lines for chunks the bucket does not hold
whole, the footage lost before each cut (on the guest's clock, which the node stamps frames
by: the guest's clock runs up to a second behind the host's, bracketed by CLOCK lines; and
an upper bound), and the host's load average over the run.

    sudo python3 bench/power-cut-bench.py [--cuts 20] [--seed 20261124]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests/powercut"))
from power_cut_vm import PowerCutRig, summary, why_the_vm_cannot_start  # noqa: E402


def sample_load(samples, stop):
    """The 1-minute load average every 30 s: the other builds on the machine slow the
    emulated guest, and the footage lost grows with them."""
    while True:
        samples.append(os.getloadavg()[0])
        if stop.wait(30):
            return


def write_result(out, cuts, seed, loads):
    result = summary(cuts)
    result["seed"] = seed
    result["host_load_1min"] = {"median": statistics.median(loads), "min": min(loads), "max": max(loads)}
    result["per_cut"] = [
        {"cut": cut.index, "activity": cut.activity, "delay_s": round(cut.delay_s, 2), "lost_ms": cut.lost_ms,
         "lost_ms_at_most": cut.lost_ms_at_most,
         "guest_clock_behind_ms": [cut.guest_clock.lower_ms, cut.guest_clock.upper_ms] if cut.guest_clock else None,
         "lost_ms_on_host_clock": cut.lost_ms_on_host_clock,
         "listed": len(cut.listed), "undecodable": cut.undecodable(), "torn_token": cut.torn_token(),
         "torn_runtime_config": cut.torn_runtime_config(), "rotations_seen": len(cut.tokens_seen),
         "config_writes_seen": len(cut.configs_seen), "archived_seen": cut.archived_seen,
         "journal_lines": len(cut.journal_stamps), "journal_torn_last_line": cut.journal_torn_tail,
         "journal_problems": cut.journal_problems, "not_in_bucket": cut.not_in_bucket}
        for cut in cuts]
    (out / "power-cuts.json").write_text(json.dumps(result, indent=2))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cuts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261124)
    arguments = parser.parse_args()
    reason = why_the_vm_cannot_start()
    if reason:
        sys.exit(f"the VM cannot start: {reason}")
    work = Path(tempfile.mkdtemp(prefix="power-cut-bench-"))
    loads, stop = [], threading.Event()
    sampler = threading.Thread(target=sample_load, args=(loads, stop), daemon=True)
    sampler.start()
    out = REPO / "bench/out"
    out.mkdir(parents=True, exist_ok=True)
    # Written again after every judged cut, so that a run stopped early keeps what it found.
    cuts = PowerCutRig(work, arguments.seed).run(
        arguments.cuts, judged=lambda done: write_result(out, done, arguments.seed, loads))
    stop.set()
    sampler.join()
    result = write_result(out, cuts, arguments.seed, loads)
    print(json.dumps({key: value for key, value in result.items() if key != "per_cut"}, indent=2))
    print(f"per cut: bench/out/power-cuts.json; guest events and consoles: {work}/boot-N")


if __name__ == "__main__":
    main()
