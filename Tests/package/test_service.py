"""Each release's Debian package in a booted Debian of that release (conftest.py: 12 and
13): apt installs it with its real dependencies, systemd runs it as a hardened Type=notify service with a watchdog, template
instances record side by side, an upgrade keeps the store and token, purge removes what
docs/guide/install.md says. The tests run in file order and share the one booted system."""
import hashlib
import json
import re
import subprocess
import time
import urllib.error
import urllib.request

import pytest

import onvif_validator

MAIN = "allspark-node.service"
MAIN_PORT = 18190
MAIN_RTSP_PORT = 18554
INSTANCES = {"cam1": 18191, "cam2": 18192}
STORE = "/var/lib/allspark-node"
# A light recording, so three nodes share two cores with the rest of the test run.
LIGHT = {"source": "testsrc", "width": 320, "height": 180, "fps": 10, "videoChunkDurationMs": 2000, "clockSyncRequired": "false"}
# Bounds that only a broken node misses; the measured times are printed, not asserted.
PATIENCE_S = 120

state = {}


def wait_for(what, predicate, timeout=PATIENCE_S):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {timeout} s waiting for {what}")
        time.sleep(0.5)


def http_get(port, path, token=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return None, b""


def main_pid(debian, unit):
    return int(debian.run(f"systemctl show -p MainPID --value {unit}").stdout.strip() or 0)


def is_active(debian, unit):
    return debian.run(f"systemctl is-active {unit}", check=False).stdout.strip() == "active"


def chunks(debian, instance):
    listing = debian.run(f"ls {STORE}/{instance}", check=False).stdout.split()
    return sorted(name for name in listing if name.startswith("chunk_"))


def new_chunk_after(debian, instance, seen):
    return [name for name in chunks(debian, instance) if name not in seen]


def test_install_starts_a_recording_serving_service(debian, package_file):
    deb = package_file
    (debian.path("/root") / deb.name).write_bytes(deb.read_bytes())
    state["deb"] = deb
    # The default instance's settings, made light for the test through the unit's
    # environment file (the shipped yaml stays as the package made it).
    debian.run("mkdir -p /etc/allspark-node")
    env = "".join(f"{environment_name(key)}={value}\n" for key, value in LIGHT.items())
    debian.path("/etc/allspark-node/allspark-node.env").write_text(
        env + f"ALLSPARK_SERVER_PORT={MAIN_PORT}\nALLSPARK_SERVER_RTSP_PORT={MAIN_RTSP_PORT}\n")
    started = time.monotonic()
    debian.run(f"apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /root/{deb.name}", timeout=900)
    print(f"apt-get install with dependencies: {time.monotonic() - started:.0f} s")
    assert is_active(debian, MAIN), debian.run(f"systemctl status {MAIN}", check=False).stdout
    code, body = http_get(MAIN_PORT, "/api/health")
    assert code == 200, body
    wait_for("the first chunk of the default instance", lambda: chunks(debian, "default"))
    owners = debian.run(f"stat -c '%U %n' {STORE}/default/chunk_*").stdout.split("\n")
    assert all(line.startswith("allspark-node ") for line in owners if line), owners


def test_ready_is_sent_after_the_first_frame_and_status_says_what_it_does(debian):
    status = debian.run(f"systemctl show -p StatusText --value {MAIN}").stdout.strip()
    assert status.startswith("recording 320x180 from test pattern"), status
    assert f"serving on port {MAIN_PORT}" in status
    timing = debian.run(
        f"systemctl show -p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic --value {MAIN}").stdout.split()
    print(f"start to READY: {(int(timing[1]) - int(timing[0])) / 1e6:.2f} s")


def test_installed_node_finds_its_dashboard_and_model(debian):
    code, body = http_get(MAIN_PORT, "/")
    assert code == 200 and b"<html" in body.lower()
    health = json.loads(http_get(MAIN_PORT, "/api/health")[1])
    assert not any("privacy degraded" in warning for warning in health.get("warnings", [])), health
    assert debian.path("/usr/share/allspark-node/centerface.onnx").stat().st_size == 7_304_518
    yunet = debian.path("/usr/share/allspark-node/face_detection_yunet_2023mar.onnx").read_bytes()
    assert hashlib.sha256(yunet).hexdigest() == "8f2383e4dd3cfbb4553ea8718107fc0423210dc964f9f4280604804ed2552fa4"
    token = debian.run("allspark-node token").stdout.strip()
    status = json.loads(http_get(MAIN_PORT, "/api/status", token)[1])
    assert status["privacy"]["detector"] == "yunet", status["privacy"]
    # ONNX Runtime runs the net under the hardened unit: on Debian 13 Debian's own package
    # (a dependency), on 12 the official build in the package's own lib folder.
    assert status["privacy"]["engine"].startswith("onnxruntime 1.21"), status["privacy"]
    assert status["privacy"]["engineFallbackReason"] is None, status["privacy"]
    # ONNX Runtime's start says nothing to the journal that is not a problem (Debian 13's
    # printed a line for each of ONNX's 567 operator schemas it registered a second time).
    journal = debian.run(f"journalctl -u {MAIN} -b --no-pager -o cat").stdout
    assert "Schema error" not in journal, journal[:2000]
    copyright = debian.path("/usr/share/doc/allspark-node/copyright").read_text()
    private_library = debian.path("/usr/lib/allspark-node/libonnxruntime.so.1.21.1")
    if debian.release == 12:
        assert private_library.stat().st_size > 10_000_000
        notices = debian.path("/usr/share/doc/allspark-node/onnxruntime")
        assert "Microsoft Corporation" in (notices / "LICENSE").read_text()
        assert (notices / "ThirdPartyNotices.txt.gz").stat().st_size > 10_000   # dh_compress gzips it
        assert "usr/lib/allspark-node/libonnxruntime.so.1.21.1" in copyright
    else:
        assert not private_library.exists() and "libonnxruntime" not in copyright
        assert debian.run("dpkg-query -W -f '${Status}' libonnxruntime1.21").stdout == "install ok installed"
        depends = debian.run("dpkg-query -W -f '${Depends}' allspark-node").stdout
        assert "libonnxruntime1.21" in depends and "libavcodec61" in depends, depends
    assert "centerface.onnx" in copyright and "MIT" in copyright and "Permission is hereby granted" in copyright
    assert "face_detection_yunet_2023mar.onnx" in copyright and "Shiqi Yu" in copyright


def test_installed_verify_and_onvifs_validator_accept_a_recorded_chunk(debian, tmp_path):
    """The footage the installed node signs: its own `verify` (under the node's anchor, as
    a user on the box would check it) and ONVIF's reference validator (on the host) accept
    a finished chunk."""
    anchor = "/root/anchor.pem"
    debian.run(f"allspark-node signing show --anchor --store {STORE}/default > {anchor}")
    finished = wait_for("two finished chunks", lambda: chunks(debian, "default")[:-1] or None)
    chunk = f"{STORE}/default/{finished[-1]}"
    done = debian.run(f"allspark-node verify {chunk} --certificate {anchor} --json", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)[0]
    assert report["status"] == "valid", report
    validator = onvif_validator.build_validator()
    copied = tmp_path / finished[-1]
    copied.write_bytes(debian.path(chunk).read_bytes())
    judged = onvif_validator.run_validator(validator, copied, anchor=debian.path(anchor))
    assert judged.public_key == onvif_validator.PUBLIC_KEY_VALID, str(judged)
    # Every frame of the chunk validated, none pending: the count ffprobe decodes.
    frames = int(subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
         "-of", "csv=p=0", str(copied)], capture_output=True, text=True, timeout=120, check=True).stdout.strip())
    assert frames > 0
    assert judged.verdict == onvif_validator.VIDEO_VALID, str(judged)
    assert judged.received_frames == frames and judged.validated_frames == frames and judged.pending_frames == 0, \
        f"{judged.validated_frames} of {judged.received_frames} frames validated ({frames} in the chunk), {judged.pending_frames} pending\n{judged}"


def test_root_reads_the_token_and_it_opens_the_api(debian):
    token = debian.run("allspark-node token").stdout.strip()
    assert len(token) >= 40
    state["token"] = token
    assert http_get(MAIN_PORT, "/api/status")[0] == 401
    code, body = http_get(MAIN_PORT, "/api/status", token)
    assert code == 200, body
    # The API's OpenAPI document, installed beside the dashboard, needs no token.
    code, body = http_get(MAIN_PORT, "/api/openapi.json")
    assert code == 200 and json.loads(body)["openapi"] == "3.1.0", body[:300]
    owner = debian.run(f"stat -c '%U %a' {STORE}/default/.allspark-token").stdout.strip()
    assert owner == "allspark-node 600"


def decoded_frames(url, count=10, *options):
    """The MD5 of each of the first `count` frames ffmpeg decodes from `url` (framemd5)."""
    done = subprocess.run(["ffmpeg", "-v", "error", *options, "-i", url, "-map", "0:v:0", "-frames:v", str(count),
                           "-f", "framemd5", "-"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [line.rsplit(",", 1)[1].strip() for line in done.stdout.splitlines() if line and not line.startswith("#")]


def test_live_video_plays_under_the_hardened_unit(debian):
    """RTSP and LL-HLS carry H.264 at the recording's size, and decode: ten frames each,
    the picture moving (the test pattern's frames differ)."""
    token = state["token"]
    probe = ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0"]
    rtsp_url = f"rtsp://allspark:{token}@127.0.0.1:{MAIN_RTSP_PORT}/live"
    hls_url = f"http://127.0.0.1:{MAIN_PORT}/live/index.m3u8?token={token}"
    rtsp = subprocess.run(probe + ["-rtsp_transport", "tcp", rtsp_url], capture_output=True, text=True, timeout=120)
    assert rtsp.stdout.strip() == "h264,320,180", rtsp.stderr
    hls = subprocess.run(probe + [hls_url], capture_output=True, text=True, timeout=120)
    assert hls.stdout.strip().startswith("h264,320,180"), hls.stderr
    for name, frames in [("RTSP", decoded_frames(rtsp_url, 10, "-rtsp_transport", "tcp")), ("HLS", decoded_frames(hls_url, 10))]:
        assert len(frames) == 10, f"{name}: {len(frames)} frames decoded"
        assert len(set(frames)) > 1, f"{name}: every decoded frame is the same picture"


def test_service_runs_as_its_own_user_with_the_video_group(debian):
    pid = main_pid(debian, MAIN)
    status = debian.run(f"cat /proc/{pid}/status").stdout
    uid = re.search(r"^Uid:\s+(\d+)", status, re.M).group(1)
    groups = re.search(r"^Groups:\s*(.*)$", status, re.M).group(1).split()
    assert debian.run(f"id -u allspark-node").stdout.strip() == uid
    assert debian.run("getent group video | cut -d: -f3").stdout.strip() in groups
    capabilities = re.search(r"^CapBnd:\s+(\w+)", status, re.M).group(1)
    assert int(capabilities, 16) == 0, "the bounding set is empty"


def test_logs_reach_the_journal_with_priorities_and_no_colours(debian):
    entries = [json.loads(line) for line in debian.run(f"journalctl -u {MAIN} -o json --no-pager").stdout.splitlines()]
    node = [entry for entry in entries if entry.get("_COMM") == "allspark-node"]
    serving = [entry for entry in node if "serving the API" in str(entry.get("MESSAGE"))]
    assert serving and serving[0]["PRIORITY"] == "5", serving
    chunk_lines = [entry for entry in node if str(entry.get("MESSAGE", "")).startswith("chunk chunk_")]
    assert chunk_lines and chunk_lines[0]["PRIORITY"] == "6"
    assert not any("\x1b[" in str(entry.get("MESSAGE")) or str(entry.get("MESSAGE")).startswith("<") for entry in node)


def test_two_template_instances_record_side_by_side(debian):
    for name, port in INSTANCES.items():
        yaml = "".join(f"{key}: {value}\n" for key, value in LIGHT.items()) + f"server:\n  port: {port}\n  rtspPort: {port + 400}\n"
        debian.path(f"/etc/allspark-node/{name}.yaml").write_text(yaml)
    debian.run("systemctl enable --now allspark-node@cam1.service allspark-node@cam2.service")
    for name, port in INSTANCES.items():
        assert is_active(debian, f"allspark-node@{name}.service")
        assert http_get(port, "/api/health")[0] == 200
        wait_for(f"a chunk from {name}", lambda: chunks(debian, name))
        token = debian.run(f"allspark-node token --instance {name}").stdout.strip()
        assert token != state["token"], "each instance has its own store and token"
        assert http_get(port, "/api/status", token)[0] == 200


def test_a_stopped_node_is_restarted_by_the_watchdog_and_records_again(debian):
    pid = main_pid(debian, MAIN)
    seen = chunks(debian, "default")
    stopped = time.monotonic()
    debian.run(f"kill -STOP {pid}")
    new_pid = wait_for("a new main process", lambda: (lambda now: now if now not in (0, pid) else None)(main_pid(debian, MAIN)))
    print(f"SIGSTOP to a new process: {time.monotonic() - stopped:.1f} s (WatchdogSec=15)")
    journal = debian.run(f"journalctl -u {MAIN} --no-pager").stdout
    assert "Watchdog timeout" in journal
    wait_for("the restarted node to be active", lambda: is_active(debian, MAIN))
    wait_for("a chunk from the restarted node", lambda: new_chunk_after(debian, "default", seen))
    assert new_pid != pid


def test_a_killed_node_is_restarted(debian):
    pid = main_pid(debian, MAIN)
    restarts = int(debian.run(f"systemctl show -p NRestarts --value {MAIN}").stdout)
    debian.run(f"kill -KILL {pid}")
    wait_for("a new main process", lambda: main_pid(debian, MAIN) not in (0, pid))
    wait_for("the restarted node to be active", lambda: is_active(debian, MAIN))
    assert int(debian.run(f"systemctl show -p NRestarts --value {MAIN}").stdout) == restarts + 1


def test_security_exposure_is_within_the_goal(debian):
    for unit in (MAIN, "allspark-node@cam1.service"):
        report = debian.run(f"systemd-analyze security --no-pager {unit}").stdout
        score = float(re.search(r"Overall exposure level for \S+: ([\d.]+)", report).group(1))
        print(f"{unit}: exposure {score}")
        assert score <= 2.5, report


def test_the_installed_binary_is_linked_with_full_relro(debian):
    # lintian's hardening-no-relro, asserted on the binary itself: both releases' links
    # give the dynamic linker's relocations a read-only segment and resolve every symbol at
    # start (setup.sh gives Debian 13 the gold linker Debian 12's binutils carries).
    binary = debian.path("/usr/bin/allspark-node")
    headers = subprocess.run(["readelf", "-lW", str(binary)], capture_output=True, text=True, check=True).stdout
    dynamic = subprocess.run(["readelf", "-dW", str(binary)], capture_output=True, text=True, check=True).stdout
    assert "GNU_RELRO" in headers, headers
    assert "BIND_NOW" in dynamic or re.search(r"FLAGS_1.*\bNOW\b", dynamic), dynamic


def test_sigterm_finishes_the_chunk_being_recorded(debian):
    debian.run("systemctl stop allspark-node@cam2.service")
    assert debian.run("systemctl show -p Result --value allspark-node@cam2.service").stdout.strip() == "success"
    leftovers = debian.run(f"ls -a {STORE}/cam2").stdout.split()
    assert not [name for name in leftovers if name.endswith(".part")], leftovers
    last = chunks(debian, "cam2")[-1]
    decoded = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
         "-of", "csv=p=0", str(debian.path(f"{STORE}/cam2/{last}"))], capture_output=True, text=True)
    assert decoded.returncode == 0 and int(decoded.stdout.strip()) > 0, decoded.stderr
    debian.run("systemctl start allspark-node@cam2.service")


def test_upgrade_keeps_store_token_and_runtime_config_and_restarts_every_instance(debian):
    token = state["token"]
    code, _ = http_get_put_config(MAIN_PORT, token, {"videoBufferMaxMB": 512})
    assert code == 200
    runtime = debian.path(f"{STORE}/default/.allspark-runtime.yaml").read_text()
    before = chunks(debian, "default")
    pids = {unit: main_pid(debian, unit) for unit in (MAIN, "allspark-node@cam1.service", "allspark-node@cam2.service")}
    newer = newer_build(debian, state["deb"])
    debian.run(f"DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /root/{newer}", timeout=600)
    assert debian.run("dpkg-query -W -f '${Version}' allspark-node").stdout.endswith("+upgrade")
    for unit, pid in pids.items():
        wait_for(f"{unit} restarted on the new build", lambda: main_pid(debian, unit) not in (0, pid))
        wait_for(f"{unit} active again", lambda: is_active(debian, unit))
    assert debian.run("allspark-node token").stdout.strip() == token
    assert http_get(MAIN_PORT, "/api/status", token)[0] == 200
    assert debian.path(f"{STORE}/default/.allspark-runtime.yaml").read_text() == runtime
    after = chunks(debian, "default")
    assert set(before) <= set(after), "no chunk lost in the upgrade"
    wait_for("a chunk recorded after the upgrade", lambda: new_chunk_after(debian, "default", after))


def test_remove_keeps_configuration_and_footage(debian):
    debian.run("DEBIAN_FRONTEND=noninteractive apt-get remove -y -q allspark-node")
    assert not is_active(debian, MAIN) and not is_active(debian, "allspark-node@cam1.service")
    assert not debian.path("/usr/bin/allspark-node").exists()
    assert debian.path("/etc/allspark-node/allspark-node.yaml").exists()
    assert debian.path("/etc/allspark-node/cam1.yaml").exists()
    assert chunks(debian, "default") and chunks(debian, "cam1")
    assert debian.path(f"{STORE}/default/.allspark-token").exists()


def test_purge_removes_configuration_footage_and_user(debian):
    debian.run("DEBIAN_FRONTEND=noninteractive apt-get purge -y -q allspark-node")
    assert not debian.path("/etc/allspark-node").exists()
    assert not debian.path(STORE).exists()
    assert debian.run("getent passwd allspark-node", check=False).returncode != 0


def environment_name(key):
    """ALLSPARK_ and the key in upper snake case, as the node derives it (videoChunkDurationMs: ALLSPARK_VIDEO_CHUNK_DURATION_MS)."""
    return "ALLSPARK_" + re.sub(r"([A-Z])", r"_\1", key).upper()


def http_get_put_config(port, token, changes):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/config", data=json.dumps(changes).encode(), method="PUT",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def newer_build(debian, deb):
    """The same build with a higher version: what installing a newer build does to the
    package's life cycle (maintainer scripts, conffiles, restarts) does not depend on the
    binary's bytes."""
    unpacked = debian.path("/root/newer")
    subprocess.run(["rm", "-rf", str(unpacked)], check=True)
    subprocess.run(["dpkg-deb", "-R", str(deb), str(unpacked)], check=True)
    control = unpacked / "DEBIAN/control"
    text = control.read_text()
    version = re.search(r"^Version: (.*)$", text, re.M).group(1)
    control.write_text(text.replace(f"Version: {version}", f"Version: {version}+upgrade"))
    name = f"allspark-node_{version}+upgrade_amd64.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", str(unpacked), str(debian.path(f"/root/{name}"))],
                   check=True, capture_output=True)
    return name
