#!/usr/bin/env python3
"""ONVIF's set-up against issue 62's goals: how soon a WS-Discovery Probe is answered, the
wall time of Home Assistant's add-and-set-up sequence, and what ONVIF costs an idle node
(RSS and CPU with ONVIF on and off, in the same run).

The nodes record the test pattern at 720p30 with privacy on (the defaults), each in a network
namespace joined to the clients' by a veth pair (Tests/onvif's harness), as a camera on a
LAN is. From the clients' side:
- probe: a Probe for NetworkVideoTransmitter sent to 239.255.255.250:3702, as WSDiscovery
  sends it, timed to the ProbeMatch's arrival; 40 probes 0.3 s apart (the node answers one
  source at most 5 times a second).
- set-up: bench/onvif_setup_timer.py, Home Assistant's sequence (Tests/onvif/ha_client.py:
  update_xaddrs, interfaces, device information, profiles, capabilities, clock, stream URI,
  snapshot) with onvif-zeep-async 4.0.4, Home Assistant's pin, 10 times, each in a fresh
  process as Home Assistant's config flow makes a fresh camera object: the sequence's wall
  time, and the part spent waiting on the node's answers (the rest is the client's own
  work, chiefly zeep reading the WSDL files).
- idle cost: a node with ONVIF off (ALLSPARK_ONVIF_ENABLED=false) beside one with it on,
  started together, 60 s after both are up: RSS and CPU seconds of each.

Usage (root, for the namespaces): bench/onvif-setup-bench.py [--node BIN]
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = (REPO / "Tests/Fuzz/seeds/ws-discovery/probe-nvt.xml").read_text()


def probe_times(count, gap_s):
    """Inside the clients' namespace: ms from each Probe to its ProbeMatch."""
    times = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        sock.settimeout(2)
        for _ in range(count):
            message_id = f"urn:uuid:{uuid.uuid4()}"
            datagram = PROBE.replace("urn:uuid:2f7e2f0a-0f3c-4c1e-9d1f-8f6d1c0b7a11", message_id).encode()
            sent = time.perf_counter()
            sock.sendto(datagram, ("239.255.255.250", 3702))
            while True:
                try:
                    reply, _ = sock.recvfrom(65536)
                except socket.timeout:
                    times.append(None)
                    break
                if message_id.encode() in reply and b"ProbeMatch" in reply:
                    times.append(round((time.perf_counter() - sent) * 1000, 3))
                    break
            time.sleep(gap_s)
    return times


def node_usage(pid):
    """CPU seconds and RSS (MiB) of a node (`ip netns exec` execs it: the Popen's pid is its)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = next(int(line.split()[1]) / 1024 for line in Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("VmRSS"))
    return cpu, rss


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node", default=str(REPO / ".build-package-deb12/release/allspark-node"))
    parser.add_argument("--probe-times", nargs=2, metavar=("COUNT", "GAP_S"), help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.probe_times:
        print(json.dumps(probe_times(int(arguments.probe_times[0]), float(arguments.probe_times[1]))))
        return
    os.environ["ALLSPARK_NODE_BIN"] = str(Path(arguments.node).resolve())
    sys.path.insert(0, str(REPO / "Tests/onvif"))
    from onvif_harness import TOKEN, USER, NamespacedNode, NetworkPair  # noqa: E402

    network = NetworkPair()
    work = Path(tempfile.mkdtemp(prefix="onvif-setup-bench-"))
    for name in ("on", "on2", "off"):
        (work / name).mkdir()
    nodes = []
    try:
        node = NamespacedNode(network, work / "on" / "store", discovery=True, size="1280x720", fps=30, privacy="face")
        nodes.append(node)
        probes = json.loads(network.inside(network.clients, sys.executable, __file__, "--probe-times", "40", "0.3", timeout=120).stdout)
        answered = [ms for ms in probes if ms is not None]
        setups = []
        for _ in range(10):
            done = network.inside(network.clients, sys.executable, str(REPO / "bench/onvif_setup_timer.py"), node.host, str(node.port),
                                  USER, TOKEN, timeout=120)
            setups.append(json.loads(done.stdout.strip().splitlines()[-1]))
        assert all(s["fault"] is None and s["snapshot_is_jpeg"] for s in setups), setups

        # Idle cost: ONVIF on (the node above, restarted beside the other so both are as old)
        # and off, the same recording, 60 s.
        node.stop()
        nodes.clear()
        on = NamespacedNode(network, work / "on2" / "store", discovery=True, size="1280x720", fps=30, privacy="face")
        nodes.append(on)
        off = NamespacedNode(network, work / "off" / "store", port=8091, rtsp_port=8555, size="1280x720", fps=30, privacy="face",
                             extra_env={"ALLSPARK_ONVIF_ENABLED": "false"})
        nodes.append(off)
        time.sleep(10)
        before = {"on": node_usage(on.process.pid), "off": node_usage(off.process.pid)}
        time.sleep(60)
        after = {"on": node_usage(on.process.pid), "off": node_usage(off.process.pid)}
        idle = {name: {"cpu_s_per_60s": round(after[name][0] - before[name][0], 2), "rss_mib": round(after[name][1], 1)}
                for name in ("on", "off")}
        print(json.dumps({
            "probe_ms": {"answered": len(answered), "sent": len(probes), "median": statistics.median(answered),
                         "p95": sorted(answered)[int(0.95 * (len(answered) - 1))], "max": max(answered)},
            "home_assistant_setup_s": {"median": round(statistics.median(s["seconds"] for s in setups), 4),
                                       "max": max(s["seconds"] for s in setups),
                                       "waiting_on_node_median": round(statistics.median(s["node_seconds"] for s in setups), 4),
                                       "requests": setups[0]["requests"]},
            "idle_720p30_face_privacy": idle,
        }, indent=2))
    finally:
        for node in nodes:
            node.stop()
        network.close()


if __name__ == "__main__":
    main()
