"""Cuts a recording node's power, again and again, the way storage engines prove crash
safety: QEMU (software emulation, virtme-ng sharing this machine's files read-only) boots
Debian's kernel with the store on a virtual disk of its own (ext4), Tests/powercut/guest.sh
starts the node at every boot, and the host kills QEMU at moments drawn from a seed. A
killed QEMU loses the guest's page cache as a power cut does; what reached the virtual disk
stays (../shared/TECH-NOTES.md, "Power cuts in the VM"). For the archive activity a real
radosgw runs on the host (Tests/protocol/radosgw.py) and the guest reaches it through QEMU's
user network, where 10.0.2.2 is the host's loopback.

Used by test_power_cut.py (3 cuts) and bench/power-cut-bench.py (20 cuts)."""
import glob
import hashlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests/protocol"))
from radosgw import Radosgw  # noqa: E402

NODE_BIN = Path(os.environ.get("ALLSPARK_NODE_BIN", REPO / ".build/debug/allspark-node")).resolve()
VNG_DIR = Path(os.environ.get("ALLSPARK_VNG", "/opt/allspark-vng/bin"))
# What the guest does while the power may go: the ring evicts every couple of seconds in
# all of them; "token" and "config" also rewrite those files in a tight loop, and
# "archive" uploads every 1 s chunk to the host's radosgw, appending a journal line each.
# By turns in this order. Archive is third, inside the 3-cut run of scripts/test.sh: without
# it the archive journal's check had nothing to check. (The guest's user-mode network has
# been seen not to come up, virtme-ng's DHCP, bench/README.md: such a boot fails the run,
# as a boot that cannot reach the bucket is no test of the journal.) The ring evicts in
# every activity, so the eviction-only cut, fourth, adds no check the others lack.
ACTIVITIES = ("token", "config", "archive", "eviction")
# The guest's view of the host's loopback on QEMU's user network (slirp).
HOST_FROM_GUEST = "10.0.2.2"
ARCHIVE_BUCKET = "power-cuts"
ARCHIVE_PREFIX = "cam/"
# Generous: a loaded machine boots the emulated guest slowly; only a broken boot misses it.
BOOT_TIMEOUT_S = 600
# And each chunk the guest lists is decoded there (ffmpeg, emulated): at load 11 on the
# 2 cores that took about 12 s a chunk. A cut just after an eviction can bring back
# dozens of chunks (the unlinks had not reached ext4's journal), all to be checked.
CHECK_TIMEOUT_S_PER_CHUNK = 30
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{43}\n$")


def why_the_vm_cannot_start():
    if not sorted(glob.glob("/boot/vmlinuz-*")):
        return "no Debian kernel in /boot (apt-get install linux-image-amd64)"
    if not shutil.which("qemu-system-x86_64"):
        return "qemu-system-x86_64 is not installed"
    if not (VNG_DIR / "vng").exists():
        return f"virtme-ng is not installed in {VNG_DIR} (scripts/setup.sh --test makes that venv)"
    if not shutil.which("mkfs.ext4"):
        return "mkfs.ext4 is missing (e2fsprogs)"
    if not NODE_BIN.exists():
        return f"no node binary at {NODE_BIN}"
    return None


def now_ms():
    return int(time.time() * 1000)


@dataclass
class GuestClock:
    """How far the guest's wall clock is behind the host's, bracketed. The emulated guest
    sets its clock from the virtual RTC, whole seconds, so it runs up to a second behind
    (about 0.9 s in a boot measured here), and the node stamps frames by that clock. The
    guest writes CLOCK lines: the host's time as it last read it from a file the host
    rewrites every 5 ms, and its own time; the host notes when each line arrived.
    host_read - guest <= offset <= host_arrived - guest, for every line."""
    lower_ms: int
    upper_ms: int

    @property
    def offset_ms(self):
        return (self.lower_ms + self.upper_ms) // 2

    @staticmethod
    def from_samples(samples):
        """samples: (host ms at arrival, host ms the guest read, guest ms) per CLOCK line."""
        if not samples:
            return None
        return GuestClock(lower_ms=max(read - guest for _, read, guest in samples),
                          upper_ms=min(arrived - guest for arrived, _, guest in samples))


@dataclass
class Cut:
    """One power cut and what was found after it."""
    index: int
    activity: str
    delay_s: float
    cut_ms: int
    guest_clock: GuestClock = None
    token_text: str = ""
    tokens_seen: list = field(default_factory=list)
    runtime_text: str = ""
    configs_seen: list = field(default_factory=list)
    archived_seen: int = 0
    journal_text: str = ""
    journal_stamps: list = field(default_factory=list)
    journal_torn_tail: str = ""
    journal_problems: list = field(default_factory=list)
    not_in_bucket: list = field(default_factory=list)
    restarted: bool = False
    # The hold the boot placed before the cut (id, chunk file), the holds file the cut left,
    # and the hold ids the next boot's node reported.
    held: tuple = None
    holds_text: str = ""
    holds_after: list = field(default_factory=list)
    listed: list = field(default_factory=list)
    checks: list = field(default_factory=list)

    @property
    def lost_ms(self):
        """Footage lost before the cut: from the last frame the node lists afterwards to the
        cut, on the guest's clock (the clock the node stamps frames by)."""
        return self._lost(self.guest_clock.offset_ms if self.guest_clock else 0)

    @property
    def lost_ms_on_host_clock(self):
        """The same as if the guest's clock were the host's (how it was counted before)."""
        return self._lost(0)

    @property
    def lost_ms_at_most(self):
        """The same with the guest's clock as far behind as it can be: an upper bound."""
        return self._lost(self.guest_clock.lower_ms if self.guest_clock else 0)

    def _lost(self, offset_ms):
        ends = [chunk["endMs"] for chunk in self.listed]
        return self.cut_ms - offset_ms - max(ends) if ends else None

    def torn_token(self):
        """None when the token file is whole and is the last rotation seen or a newer one."""
        if not TOKEN_PATTERN.match(self.token_text):
            return f"token file is not one whole token: {self.token_text!r}"
        token = self.token_text.strip()
        if self.tokens_seen and token != self.tokens_seen[-1] and token in self.tokens_seen:
            return f"token went back to an older one: {token}"
        return None

    def torn_runtime_config(self):
        """None when the runtime-config file is whole (or absent before any write landed)."""
        if not self.runtime_text:
            return None if not self.configs_seen else "runtime config vanished after writes landed"
        lines = self.runtime_text.splitlines()
        if not self.runtime_text.endswith("\n") or not lines[0].startswith("# Written by allspark-node"):
            return f"runtime config is torn: {self.runtime_text!r}"
        values = dict(line.split(": ", 1) for line in lines[1:])
        cap = values.get("videoBufferMaxMB")
        if cap is None or float(cap) not in (0.25, 0.5):
            return f"runtime config holds an unexpected cap: {self.runtime_text!r}"
        return None

    def lost_hold(self):
        """None when the holds file is whole, holds the hold placed before the cut, and the
        next boot's node kept it and its chunk; else what went wrong."""
        if self.held is None:
            return None
        hold_id, held_file = self.held
        try:
            contents = json.loads(self.holds_text)
            ids = [hold["id"] for hold in contents["holds"]]
        except (ValueError, KeyError, TypeError) as error:
            return f"holds file is not whole ({error}): {self.holds_text[:200]!r}"
        if hold_id not in ids:
            return f"hold {hold_id} placed before the cut is not in the holds file: {ids}"
        if hold_id not in self.holds_after:
            return f"hold {hold_id} is not among the holds the next boot reported: {self.holds_after}"
        if held_file not in [chunk["file"] for chunk in self.listed]:
            return f"the held chunk {held_file} is gone after the cut"
        return None

    def read_journal(self):
        """Splits the archive journal into the chunks it lists, a torn last line (which the
        node skips, and which only costs a HEAD at the next start) and problems: any other
        line that is not one whole entry."""
        lines = self.journal_text.split("\n")
        # Text after the last newline is a last line whose write the cut tore.
        self.journal_torn_tail = lines.pop()
        for number, line in enumerate(lines, 1):
            try:
                entry = json.loads(line)
                assert set(entry) == {"target", "archived"}
                self.journal_stamps.append(entry["archived"])
            except (ValueError, KeyError, TypeError, AssertionError):
                self.journal_problems.append(f"line {number} is not one whole entry: {line!r}")

    def undecodable(self):
        """Listed chunks that do not decode to their last frame."""
        return [check for check in self.checks if check["decoded"] < check["frames"] or check["errors"] > 0]


class GuestBoot:
    """One boot of the guest; its event lines (a file in a folder shared with the guest) are
    read as they are written."""

    def __init__(self, image, activity, folder, archive_env=None):
        kernel = sorted(glob.glob("/boot/vmlinuz-*"))[-1]
        folder.mkdir(parents=True, exist_ok=True)
        self.events = folder / "events.txt"
        self.events.touch()
        guest = f"bash {REPO}/Tests/powercut/guest.sh {self.events} {NODE_BIN} {activity}"
        network = []
        if archive_env:
            guest += f" {archive_env}"
            network = ["--network", "user"]
        command = [
            str(VNG_DIR / "vng"), "--run", kernel, "--disable-kvm", "--disable-microvm", "--memory", "1G", "--cpus", "2",
            "--disk", str(image), "--rwdir", str(folder), *network, "--exec", guest,
        ]
        environment = {**os.environ, "PATH": f"{VNG_DIR}:{os.environ['PATH']}"}
        self.lines = []
        self.clock_samples = []
        self.lock = threading.Lock()
        self.host_clock = folder / "host-clock"
        self._write_host_clock()
        self.console = open(folder / "console.txt", "wb")
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self.console, stderr=subprocess.STDOUT,
            env=environment, cwd=REPO, start_new_session=True)
        self.reading = True
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.clock_writer = threading.Thread(target=self._keep_host_clock, daemon=True)
        self.clock_writer.start()

    def _write_host_clock(self):
        staged = self.host_clock.with_suffix(".new")
        staged.write_text(f"{now_ms()}\n")
        os.replace(staged, self.host_clock)

    def _keep_host_clock(self):
        while self.reading:
            self._write_host_clock()
            time.sleep(0.005)

    def _read(self):
        with open(self.events, "rb") as events:
            pending = b""
            while self.reading:
                chunk = events.read()
                if not chunk:
                    # Often: a CLOCK line's arrival time bounds the guest's clock offset.
                    time.sleep(0.005)
                    continue
                arrived = now_ms()
                pending += chunk
                *complete, pending = pending.split(b"\n")
                decoded = [line.decode(errors="replace") for line in complete]
                with self.lock:
                    self.lines.extend(decoded)
                    for line in decoded:
                        fields = line.split()
                        if len(fields) == 3 and fields[0] == "CLOCK" and fields[1].isdigit() and fields[2].isdigit():
                            self.clock_samples.append((arrived, int(fields[1]), int(fields[2])))

    def guest_clock(self):
        with self.lock:
            return GuestClock.from_samples(self.clock_samples)

    def find(self, prefix):
        with self.lock:
            return [line for line in self.lines if line.startswith(prefix)]

    def wait_for(self, prefix, timeout=BOOT_TIMEOUT_S):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.find(prefix)
            if found:
                return found[0]
            failed = self.find("FAILED")
            if failed or self.process.poll() is not None:
                raise AssertionError(f"the guest stopped before {prefix}: {failed or 'QEMU exited'}")
            time.sleep(0.1)
        raise AssertionError(f"no {prefix} from the guest within {timeout} s")

    def cut_power(self):
        """SIGKILL to QEMU: the guest's page cache is lost, the disk keeps what reached it."""
        moment = now_ms()
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.console.close()
        # Lines the guest wrote before the cut are in the shared file: read them all.
        time.sleep(0.3)
        self.reading = False
        self.reader.join(timeout=10)
        return moment


class PowerCutRig:
    def __init__(self, work, seed):
        self.work = Path(work)
        self.random = random.Random(seed)
        self.image = self.work / "store.img"
        subprocess.run(["truncate", "-s", "512M", str(self.image)], check=True)
        subprocess.run(["mkfs.ext4", "-q", "-F", str(self.image)], check=True)
        self.radosgw = None
        self.archive_env = None

    def start_archive(self):
        """A real radosgw on the host's loopback, a bucket in it, and the file of settings
        guest.sh reads to archive there."""
        self.radosgw = Radosgw()
        self.s3 = self.radosgw.s3()
        self.s3.create_bucket(Bucket=ARCHIVE_BUCKET)
        self.archive_env = self.work / "archive.env"
        self.archive_env.write_text(
            f"ARCHIVE_ENDPOINT=http://{HOST_FROM_GUEST}:{self.radosgw.port}\n"
            f"ARCHIVE_BUCKET={ARCHIVE_BUCKET}\nARCHIVE_PREFIX={ARCHIVE_PREFIX}\n"
            f"AWS_ACCESS_KEY_ID={self.radosgw.access_key}\nAWS_SECRET_ACCESS_KEY={self.radosgw.secret_key}\n")

    def object_bytes(self, name):
        """The object's bytes, or None when the bucket does not hold it."""
        try:
            return self.s3.get_object(Bucket=ARCHIVE_BUCKET, Key=ARCHIVE_PREFIX + name)["Body"].read()
        except self.s3.exceptions.NoSuchKey:
            return None

    def check_archive(self, cut):
        """Every chunk the journal lists as archived must be in the bucket whole: its
        manifest, and both files with the manifest's sizes and SHA-256. A line for a chunk
        that never landed would be footage the node thinks is safe and is not."""
        cut.read_journal()
        for stamp in cut.journal_stamps:
            manifest_bytes = self.object_bytes(f"manifests/{stamp}.json")
            if manifest_bytes is None:
                cut.not_in_bucket.append(f"{stamp}: no manifest")
                continue
            manifest = json.loads(manifest_bytes)
            for name, size, digest in ((manifest["chunkFile"], manifest["chunkBytes"], manifest["chunkSHA256"]),
                                       (manifest["timestampsFile"], manifest["timestampsBytes"], manifest["timestampsSHA256"])):
                body = self.object_bytes(name)
                if body is None:
                    cut.not_in_bucket.append(f"{stamp}: {name} missing")
                elif len(body) != size or hashlib.sha256(body).hexdigest() != digest:
                    cut.not_in_bucket.append(f"{stamp}: {name} differs from its manifest ({len(body)} bytes, manifest {size})")

    def inspect(self, cut):
        """Reads the token and runtime config from a copy of the disk, as a boot would find
        them (mounting replays ext4's journal); the original stays for the next boot."""
        copy = self.work / "inspect.img"
        mount_point = Path(tempfile.mkdtemp(prefix="powercut-"))
        subprocess.run(["cp", "--sparse=always", str(self.image), str(copy)], check=True)
        subprocess.run(["mount", "-o", "loop", str(copy), str(mount_point)], check=True)
        try:
            store = mount_point / "node"
            token = store / ".allspark-token"
            runtime = store / ".allspark-runtime.yaml"
            journal = store / ".allspark-archive.jsonl"
            holds = store / ".allspark-holds.json"
            cut.holds_text = holds.read_text(errors="replace") if holds.exists() else ""
            cut.token_text = token.read_text() if token.exists() else ""
            cut.runtime_text = runtime.read_text() if runtime.exists() else ""
            cut.journal_text = journal.read_text(errors="replace") if journal.exists() else ""
        finally:
            subprocess.run(["umount", str(mount_point)], check=True)
            mount_point.rmdir()
            copy.unlink()

    def run(self, cuts, judged=None):
        """Boots, cuts and checks `cuts` times, then boots once more to judge the last cut.
        `judged(cuts)` is called with the cuts judged so far after each boot's checks."""
        activities = [ACTIVITIES[index % len(ACTIVITIES)] for index in range(cuts)] + ["eviction"]
        if "archive" in activities:
            self.start_archive()
        try:
            return self._run(activities, judged or (lambda done: None))
        finally:
            if self.radosgw:
                self.radosgw.close()

    def _run(self, activities, judged):
        done = []
        cuts = len(activities) - 1
        for index, activity in enumerate(activities):
            archive_env = self.archive_env if activity == "archive" else None
            boot = GuestBoot(self.image, activity, self.work / f"boot-{index}", archive_env)
            try:
                boot.wait_for("READY")
                listed_now = json.loads(boot.wait_for("LISTED ")[len("LISTED "):])
                boot.wait_for("CHECKED", timeout=BOOT_TIMEOUT_S + CHECK_TIMEOUT_S_PER_CHUNK * len(listed_now))
                if done:
                    previous = done[-1]
                    previous.restarted = True
                    previous.listed = listed_now
                    previous.holds_after = json.loads(boot.wait_for("HOLDS ")[len("HOLDS "):])
                    for line in boot.find("CHECK "):
                        _, name, frames, decoded, errors = line.split()
                        previous.checks.append({"file": name, "frames": int(frames), "decoded": int(decoded), "errors": int(errors)})
                    judged(done)
                if index == cuts:
                    break
                # Under emulation a token rotation (a process start) takes seconds: the cut
                # comes once the activity is under way, at a random moment of it.
                # Every cut finds a hold on disk: the boot holds its first chunk before its activity.
                boot.wait_for("HELD ")
                marker = {"token": "ROTATED", "config": "CONFIG", "archive": "ARCHIVED"}.get(activity)
                if marker:
                    boot.wait_for(marker)
                delay = self.random.uniform(0.5, 5.0)
                time.sleep(delay)
                cut = Cut(index=index, activity=activity, delay_s=delay, cut_ms=boot.cut_power(),
                          guest_clock=boot.guest_clock())
                cut.tokens_seen = [line.split()[2] for line in boot.find("ROTATED ")]
                cut.configs_seen = [line.split()[1] for line in boot.find("CONFIG ")]
                held = boot.find("HELD ")
                cut.held = tuple(held[-1].split()[1:3]) if held else None
                archived = boot.find("ARCHIVED ")
                cut.archived_seen = int(archived[-1].split()[1]) if archived else 0
                self.inspect(cut)
                self.check_archive(cut)
                done.append(cut)
            finally:
                if boot.process.poll() is None:
                    boot.cut_power()
        return done


def summary(cuts):
    lost = [cut.lost_ms for cut in cuts if cut.lost_ms is not None]
    at_most = [cut.lost_ms_at_most for cut in cuts if cut.lost_ms_at_most is not None]
    return {
        "cuts": len(cuts),
        "recovered": sum(cut.restarted for cut in cuts),
        "undecodable_listed": sum(len(cut.undecodable()) for cut in cuts),
        "torn_tokens": sum(cut.torn_token() is not None for cut in cuts),
        "torn_runtime_configs": sum(cut.torn_runtime_config() is not None for cut in cuts),
        "torn_journals": sum(bool(cut.journal_problems) for cut in cuts),
        "holds_placed": sum(cut.held is not None for cut in cuts),
        "holds_lost": sum(cut.lost_hold() is not None for cut in cuts),
        "journal_torn_last_lines": sum(bool(cut.journal_torn_tail) for cut in cuts),
        "journal_chunks_checked_in_bucket": sum(len(cut.journal_stamps) for cut in cuts),
        "journal_chunks_not_in_bucket": sum(len(cut.not_in_bucket) for cut in cuts),
        "lost_ms_median": statistics.median(lost) if lost else None,
        "lost_ms_max": max(lost) if lost else None,
        "lost_ms": lost,
        "lost_ms_at_most_median": statistics.median(at_most) if at_most else None,
        "guest_clock_behind_ms": [cut.guest_clock.offset_ms for cut in cuts if cut.guest_clock],
        "guest_clock_bracket_ms_max": max((cut.guest_clock.upper_ms - cut.guest_clock.lower_ms
                                           for cut in cuts if cut.guest_clock), default=None),
        "by_activity": {activity: sum(cut.activity == activity for cut in cuts) for activity in ACTIVITIES},
    }
