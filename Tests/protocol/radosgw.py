"""A real S3 service for the tests: Ceph's radosgw in front of a one-host cluster (one monitor,
one OSD that keeps its data in memory), all on loopback, in a temp dir of its own.

Debian 12's ceph-mon, ceph-osd, radosgw and ceph-common packages provide it
(scripts/setup.sh --test).
"""
import ctypes
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import boto3
from botocore.config import Config

from node_harness import free_port

BINARIES = ("monmaptool", "ceph-mon", "ceph-osd", "ceph", "radosgw", "radosgw-admin")

# No cephx keys and one copy of everything: it is a throwaway cluster on loopback. Placement
# groups are few because one OSD holds every pool radosgw creates (the default 32 per pool
# comes close to the monitor's limit of 250 per OSD). Only messenger v2 is bound, all on
# 127.0.0.1; radosgw defaults to asking the monitor for "secure" mode, which needs cephx,
# so clients are told to accept "crc".
CONF = """\
[global]
fsid = {fsid}
mon initial members = a
mon host = v2:127.0.0.1:{mon_port}
public network = 127.0.0.0/8
public addr = 127.0.0.1
ms bind msgr1 = false
ms mon client mode = crc
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
osd objectstore = memstore
memstore device bytes = {memstore_bytes}
osd crush chooseleaf type = 0
run dir = {dir}/run
log file = {dir}/log/$name.log
admin socket = {dir}/run/$name.asok
mon data = {dir}/mon
osd data = {dir}/osd
"""


PR_SET_PDEATHSIG = 1


def die_with_parent():
    # A test run killed before close() takes its daemons with it.
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class RadosgwUnavailable(Exception):
    """The Ceph binaries are not installed."""


class Radosgw:
    """The running service: S3 at `endpoint` (path-style, SigV4, `region`) for one user with
    `access_key` and `secret_key`. Each step of starting may take `timeout` seconds. The OSD
    holds at most `memstore_bytes` (in memory; it takes only what is stored)."""

    region = "us-east-1"

    def __init__(self, timeout=120, memstore_bytes=1 << 30):
        missing = [name for name in BINARIES if shutil.which(name) is None]
        if missing:
            raise RadosgwUnavailable(
                f"missing {', '.join(missing)}: install ceph-mon ceph-osd radosgw ceph-common "
                "(scripts/setup.sh --test)")
        self.timeout = timeout
        self.memstore_bytes = memstore_bytes
        self.dir = Path(tempfile.mkdtemp(prefix="radosgw-"))
        self.conf = self.dir / "ceph.conf"
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.daemons = {}
        try:
            self._start_cluster()
            self.start_gateway()
            self.access_key = secrets.token_hex(10).upper()
            self.secret_key = secrets.token_urlsafe(30)
            self._run("radosgw-admin", "user", "create", "--uid=node", "--display-name=node",
                      f"--access-key={self.access_key}", f"--secret={self.secret_key}")
        except BaseException:
            self.close()
            raise

    def _start_cluster(self):
        for sub in ("run", "log", "mon", "osd"):
            (self.dir / sub).mkdir()
        fsid = str(uuid.uuid4())
        mon_port = free_port()
        self.conf.write_text(CONF.format(fsid=fsid, mon_port=mon_port, dir=self.dir,
                                          memstore_bytes=self.memstore_bytes))
        monmap = self.dir / "monmap"
        self._run("monmaptool", "--create", "--addv", "a", f"[v2:127.0.0.1:{mon_port}]",
                  "--fsid", fsid, monmap)
        self._run("ceph-mon", "--mkfs", "-i", "a", "--monmap", monmap)
        self._spawn("mon.a", "ceph-mon", "-i", "a")
        # Registers OSD 0 in the cluster map; waits for the monitor to answer first.
        self._run("ceph", "--connect-timeout", self.timeout, "osd", "create")
        self._run("ceph-osd", "-i", "0", "--mkfs")
        # On boot the OSD places itself under root=default (osd crush update on start).
        self._spawn("osd.0", "ceph-osd", "-i", "0")

    def _run(self, *command):
        # One-shot tools write to commands.out, so a failure's message shows their output too.
        with open(self.dir / "log" / "commands.out", "ab") as out:
            try:
                subprocess.run([*map(str, command), "-c", str(self.conf)], check=True,
                               stdout=out, stderr=subprocess.STDOUT, timeout=self.timeout)
            except subprocess.SubprocessError as error:
                raise RuntimeError(f"{error}{self._log_tails()}") from None

    def _spawn(self, name, *command):
        # -f: stay in the foreground so the pid we hold is the daemon's; it still logs to its file.
        with open(self.dir / "log" / f"{name}.out", "ab") as out:
            self.daemons[name] = subprocess.Popen(
                [*map(str, command), "-f", "-c", str(self.conf)],
                stdout=out, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)

    def _log_tails(self, lines=15):
        tails = []
        for log in sorted((self.dir / "log").glob("*")):
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            if tail:
                tails.append(f"\n--- {log.name} (last {len(tail)} lines)\n" + "\n".join(tail))
        return "".join(tails)

    def start_gateway(self):
        """Starts radosgw on self.port and waits until it answers HTTP."""
        self._spawn("client.rgw.a", "radosgw", "-n", "client.rgw.a",
                    "--rgw-frontends", f"beast endpoint=127.0.0.1:{self.port}")
        gateway = self.daemons["client.rgw.a"]
        # The first start takes ~8 s: radosgw creates its pools before it listens.
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if gateway.poll() is not None:
                raise RuntimeError(f"radosgw exited with {gateway.returncode}{self._log_tails()}")
            try:
                with urllib.request.urlopen(self.endpoint, timeout=2):
                    return
            except urllib.error.HTTPError:
                return  # any HTTP answer means it is serving
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"radosgw did not answer on {self.endpoint} within {self.timeout} s"
                           f"{self._log_tails()}")

    def stop_gateway(self):
        """Stops radosgw alone (the cluster keeps its data), for outage tests."""
        self._stop("client.rgw.a")

    def _stop(self, name):
        daemon = self.daemons.pop(name, None)
        if daemon is None:
            return
        daemon.terminate()
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()

    def s3(self, access_key=None, secret_key=None, connections=10):
        """A boto3 S3 client for this service (SigV4, path-style), for up to `connections` threads at once."""
        return boto3.client(
            "s3", endpoint_url=self.endpoint, region_name=self.region,
            aws_access_key_id=access_key or self.access_key,
            aws_secret_access_key=secret_key or self.secret_key,
            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}, max_pool_connections=connections))

    def close(self):
        """Stops every daemon (the data goes with the OSD's memory) and removes the temp dir."""
        for name in reversed(list(self.daemons)):
            self._stop(name)
        shutil.rmtree(self.dir, ignore_errors=True)


def serve_for_tests():
    """A generator for pytest fixtures: the service while the fixture lasts. Without Ceph
    the tests fail rather than skip: scripts/setup.sh --test installs it, so its absence is
    a broken setup, not a machine that cannot run them."""
    import pytest

    try:
        service = Radosgw()
    except RadosgwUnavailable as missing:
        pytest.fail(f"no S3 service: {missing}")
    yield service
    service.close()
