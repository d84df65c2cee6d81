"""Boots one VM with a real V4L2 driver (vivid) for the whole camera suite: QEMU in
software emulation, a Debian kernel, virtme-ng sharing this machine's file system
(../shared/TECH-NOTES.md). The guest runs guest.sh, which records from the camera through
its faults and writes what happened to a folder the tests then judge."""
import glob
import json
import os
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE_BIN = Path(os.environ.get("ALLSPARK_NODE_BIN", REPO / ".build/debug/allspark-node")).resolve()
VNG_DIR = Path(os.environ.get("ALLSPARK_VNG", "/opt/allspark-vng/bin"))
# Generous: the guest is software-emulated and the test command runs the power-cut guest
# and the package suite beside it; only a broken guest misses this (a run beside a loaded
# box's other suites took 1500 s and more).
GUEST_TIMEOUT_S = 2700


class GuestRun:
    """What guest.sh left in its output folder."""

    def __init__(self, out, console, seconds):
        self.out = out
        self.console = console
        self.seconds = seconds

    def path(self, *parts):
        return self.out.joinpath(*parts)

    def text(self, *parts):
        path = self.path(*parts)
        return path.read_text(errors="replace") if path.exists() else ""

    def json(self, *parts):
        return json.loads(self.text(*parts))

    def steps(self):
        """{step text: guest time} from steps.txt."""
        found = {}
        for line in self.text("steps.txt").splitlines():
            moment, _, what = line.partition(" ")
            found[what] = float(moment)
        return found

    def health_samples(self, *parts):
        """[(time, HTTP code, body dict or None)] from a sample_health file."""
        samples = []
        for line in self.text(*parts).splitlines():
            moment, _, rest = line.partition(" ")
            body, _, code = rest.rpartition(" ")
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            samples.append((float(moment), int(code or 0), parsed))
        return samples


def why_the_vm_cannot_start():
    kernels = sorted(glob.glob("/boot/vmlinuz-*"))
    if not kernels:
        return "no Debian kernel in /boot (apt-get install linux-image-amd64)"
    if not shutil.which("qemu-system-x86_64"):
        return "qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)"
    if not (VNG_DIR / "vng").exists():
        return f"virtme-ng is not installed in {VNG_DIR} (scripts/setup.sh --test makes that venv)"
    if not shutil.which("busybox"):
        return "busybox is not installed (virtme-ng builds its initramfs with it; apt-get install busybox-static)"
    if not NODE_BIN.exists():
        return f"no node binary at {NODE_BIN}"
    return None


@pytest.fixture(scope="session")
def guest(tmp_path_factory):
    reason = why_the_vm_cannot_start()
    if reason:
        # Said loudly: a skipped camera suite is not a passed one.
        print(f"\nCAMERA SUITE NOT RUN: {reason}", file=sys.stderr)
        pytest.skip(f"the camera VM cannot start here: {reason}")
    out = tmp_path_factory.mktemp("vivid-guest")
    kernel = sorted(glob.glob("/boot/vmlinuz-*"))[-1]
    command = [
        str(VNG_DIR / "vng"), "--run", kernel, "--disable-kvm", "--disable-microvm", "--memory", "2G", "--cpus", "2",
        "--rwdir", str(out), "--exec", f"bash {REPO}/Tests/camera/guest.sh {out} {NODE_BIN}",
    ]
    environment = {**os.environ, "PATH": f"{VNG_DIR}:{os.environ['PATH']}"}
    started = time.monotonic()
    # vng in a session of its own: on the timeout its QEMU goes too (killing vng alone left
    # QEMU taking a core for the rest of the run).
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment, cwd=REPO,
                               start_new_session=True)
    try:
        console, _ = process.communicate(timeout=GUEST_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        console = f"(the guest ran over {GUEST_TIMEOUT_S} s)\n{output or ''}"
    seconds = time.monotonic() - started
    (out / "console.txt").write_text(console if isinstance(console, str) else console.decode(errors="replace"))
    print(f"\ncamera VM: {seconds:.0f} s, output in {out}", file=sys.stderr)
    if not (out / "steps.txt").exists():
        pytest.fail(f"the camera VM did not run the guest script (booting failed?):\n{console[-4000:]}")
    return GuestRun(out, console, seconds)
