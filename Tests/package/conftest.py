"""Boots a Debian with systemd as PID 1 for the package suite, once per release the
package is built for (12 and 13, each with its own .deb): a root made from Debian's
registry with mmdebstrap, booted with systemd-nspawn (../shared/TECH-NOTES.md).
The container shares the host's network, so the node's ports answer on 127.0.0.1 and apt
inside it installs the package's real dependencies. Commands run inside it through
nsenter into its namespaces, so the tests drive the live system step by step."""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# The ONVIF validator's harness (Tests/protocol/onvif_validator.py) judges the installed node's footage too.
sys.path.insert(0, str(REPO / "Tests/protocol"))
BOOT_TIMEOUT_S = 120


SUITES = {12: "bookworm", 13: "trixie"}


@pytest.fixture(scope="module", params=sorted(SUITES), ids=lambda release: f"debian{release}")
def release(request):
    return request.param


@pytest.fixture(scope="module")
def package_file(release):
    """The newest dist/allspark-node_*+deb<N>_amd64.deb (scripts/test.sh builds both with
    scripts/package.sh --debian N)."""
    found = sorted(glob.glob(str(REPO / f"dist/allspark-node_*+deb{release}_amd64.deb")), key=os.path.getmtime)
    if not found:
        pytest.fail(f"no dist/allspark-node_*+deb{release}_amd64.deb: run bash scripts/package.sh --debian {release} first")
    return Path(found[-1])


def process_name(pid):
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


class BootedDebian:
    """A booted Debian container: run commands in it, read its files from the host."""

    def __init__(self, release, root, log_path):
        self.release = release
        self.root = Path(root)
        self.log_path = log_path
        self.process = None
        self.leader = None

    def boot(self):
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            ["systemd-nspawn", "-q", "-D", str(self.root), "--boot", "--register=no", "--keep-unit", "--console=pipe"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        state = ""
        while time.monotonic() < deadline and state not in ("running", "degraded"):
            if self.process.poll() is not None:
                pytest.fail(f"systemd-nspawn ended; see {self.log_path}")
            # The container's PID 1 is nspawn's child once that child is systemd (a loaded
            # machine shows the child before it has become systemd).
            children = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout.split()
            self.leader = next((int(pid) for pid in children if process_name(pid) == "systemd"), None)
            if self.leader is None:
                time.sleep(0.2)
                continue
            state = self.run("systemctl is-system-running --wait", check=False, timeout=BOOT_TIMEOUT_S).stdout.strip()
            if state not in ("running", "degraded"):
                time.sleep(1)
        assert state in ("running", "degraded"), f"the container did not boot: {state!r}; see {self.log_path}"

    def run(self, command, check=True, timeout=300):
        """Runs a shell command inside the booted system, as root."""
        result = subprocess.run(
            ["nsenter", "-t", str(self.leader), "-m", "-u", "-i", "-p", "-C", "--", "sh", "-c", command],
            capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"`{command}` exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
        return result

    def path(self, inside):
        return self.root / inside.lstrip("/")

    def shutdown(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.run("systemctl poweroff", check=False, timeout=30)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def debian(release):
    for tool in ("mmdebstrap", "systemd-nspawn", "nsenter"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: scripts/setup.sh --test installs it")
    work = Path(tempfile.mkdtemp(prefix="allspark-package-"))
    root = work / "root"
    subprocess.run(
        ["mmdebstrap", "--variant=minbase", "--include=systemd,systemd-sysv,dbus,curl,procps,ca-certificates",
         SUITES[release], str(root)],
        check=True, capture_output=True, timeout=900)
    system = BootedDebian(release, root, work / "console.log")
    try:
        system.boot()
        yield system
    finally:
        system.shutdown()
        shutil.rmtree(work, ignore_errors=True)
