"""The node's signed footage judged by ONVIF's own reference validator (media-signing-framework
r25.12.3, built by ../shared/third-party/onvif-media-signing-framework/build-validator.sh):
chunks, clips, remuxes and the live streams under the trust anchor the node serves, and
under an operator's CA; tampered copies that it and `allspark-node verify` must both reject;
the framework's own test files, on which the two must agree; and a first start on a full disk.

The validator's report is read in full (onvif_validator.parse_report): the public key line,
the verdict, validated against received frames, and the first signed time, which it prints
ten times too large (onvif_validator.SignedTime)."""
import base64
import copy
import hashlib
import json
import os
import re
import subprocess
import urllib.parse

import pytest
from node_harness import NODE_BIN, REPO, Node, free_port
from onvif_validator import (PUBLIC_KEY_VALID, VIDEO_INVALID, VIDEO_MISSING, VIDEO_NOT_SIGNED, VIDEO_VALID,
                             build_validator, describe_nals, extract_framework_test_files, is_gop_sei,
                             is_signing_sei, is_slice, join_nals, read_video_track, run_validator, write_annexb,
                             write_mp4)
from store_disks import fill, tmpfs
from test_live_video import dechunk, read_stream

# pytest-xdist (scripts/test.sh, --dist loadgroup): the module's nodes and footage are module fixtures, built once on one worker.
pytestmark = pytest.mark.xdist_group("onvif-validator")

TOKEN = "onvif-s3cret"
# 30 fps: a frame lasts 33 ms in the node's millisecond times, less than the 33.3 ms the
# stream's timing says, the rate at which a file's last GOP once went unvalidated (issue 59).
FPS = 30
FRAME_MS = 1000 / FPS
CHUNK_MS = 4000


def bearer():
    return {"Authorization": f"Bearer {TOKEN}"}


def run(arguments, timeout=120, **kwargs):
    return subprocess.run([str(argument) for argument in arguments], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def cli(*arguments, timeout=120):
    """The node's command line, run as the harness runs the node (no config file but the flags)."""
    return run([NODE_BIN, *arguments], timeout=timeout, cwd=REPO)


# ---------------------------------------------------------------------------------------
# Certificates


def pem_certificates(text):
    """The DER of each certificate in PEM text, in order."""
    if isinstance(text, bytes):
        text = text.decode()
    blocks = re.findall(r"-----BEGIN CERTIFICATE-----\s*(.*?)\s*-----END CERTIFICATE-----", text, re.S)
    return [base64.b64decode("".join(block.split())) for block in blocks]


def fingerprint(der):
    return hashlib.sha256(der).hexdigest()


def normalized_fingerprint(text):
    return re.sub(r"[^0-9a-f]", "", (text or "").lower())


def openssl(*arguments, input=None):
    done = subprocess.run(["openssl", *map(str, arguments)], capture_output=True, text=True, input=input, timeout=60)
    assert done.returncode == 0, f"openssl {' '.join(map(str, arguments))}: {done.stderr}"
    return done.stdout


def make_ca(directory, name, issuer=None):
    """An ECDSA P-256 CA: self-signed (the trust anchor) or, with `issuer` (a CA from this
    function), an intermediate it signs. Returns {"key", "cert", "name"} paths."""
    directory.mkdir(parents=True, exist_ok=True)
    key, cert = directory / f"{name}.key", directory / f"{name}.pem"
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key)
    extensions = directory / f"{name}.ext"
    extensions.write_text("basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
                          "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n")
    if issuer is None:
        openssl("req", "-new", "-x509", "-key", key, "-sha256", "-days", "3650", "-subj", f"/O=AllSpark Tests/CN={name}",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                "-out", cert)
    else:
        request = directory / f"{name}.csr"
        openssl("req", "-new", "-key", key, "-subj", f"/O=AllSpark Tests/CN={name}", "-out", request)
        openssl("x509", "-req", "-in", request, "-CA", issuer["cert"], "-CAkey", issuer["key"], "-CAcreateserial",
                "-days", "3650", "-sha256", "-extfile", extensions, "-out", cert)
    return {"key": key, "cert": cert, "name": name}


def issue_leaf(directory, csr_path, ca, name="leaf"):
    """A signing certificate for the CSR's key: digitalSignature, not a CA."""
    extensions = directory / f"{name}.ext"
    extensions.write_text("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                          "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
    cert = directory / f"{name}.pem"
    openssl("x509", "-req", "-in", csr_path, "-CA", ca["cert"], "-CAkey", ca["key"], "-CAcreateserial", "-days", "365",
            "-sha256", "-extfile", extensions, "-out", cert)
    return cert


def signing_request(store, directory):
    made = cli("signing", "request", "--config", "/dev/null", "--store", store)
    assert made.returncode == 0, made.stdout + made.stderr
    assert "-----BEGIN CERTIFICATE REQUEST-----" in made.stdout, made.stdout
    csr = directory / "node.csr"
    csr.write_text(made.stdout)
    openssl("req", "-in", csr, "-noout", "-verify")  # its self-signature holds
    return csr


def csr_public_key(csr):
    return openssl("req", "-in", csr, "-noout", "-pubkey")


def install(store, chain):
    return cli("signing", "install", chain, "--config", "/dev/null", "--store", store)


def concatenate(path, *parts):
    path.write_text("".join(part.read_text() if hasattr(part, "read_text") else part for part in parts))
    return path


# ---------------------------------------------------------------------------------------
# Judges: the validator and `allspark-node verify`, and what a valid file must show


def probe(path):
    probed = cli("probe", path, "--json")
    assert probed.returncode == 0, probed.stdout + probed.stderr
    return json.loads(probed.stdout)


class VerifyReport(dict):
    """verify's JSON report for one file, printed in full in assertion messages."""

    def __repr__(self):
        return "verify report:\n" + json.dumps(self, indent=1)


def verify(path, certificate=None):
    """`allspark-node verify PATH --json [--certificate PEM]`: (exit code, the file's report)."""
    arguments = ["verify", path, "--json"] + (["--certificate", certificate] if certificate else [])
    done = cli(*arguments)
    assert done.returncode in (0, 1), f"verify exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    try:
        reports = json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"verify --json printed no JSON:\n{done.stdout}\n{done.stderr}") from None
    assert isinstance(reports, list) and len(reports) == 1, reports
    return done.returncode, VerifyReport(reports[0])


def common_name(pem_path):
    subject = openssl("x509", "-in", pem_path, "-noout", "-subject", "-nameopt", "RFC2253")
    match = re.search(r"CN=((?:[^,\\]|\\.)+)", subject)
    assert match, subject
    return match.group(1)


def assert_names_anchor(report, anchor_pem):
    """verify's report names the trust anchor it checked against, by SHA-256 fingerprint and
    subject: as "anchor": {"subject", "fingerprint"} or as "anchorSubject" and "anchorFingerprint"."""
    anchor = report.get("anchor")
    if isinstance(anchor, dict):
        subject, printed = anchor.get("subject"), anchor.get("fingerprint")
    else:
        subject, printed = report.get("anchorSubject"), report.get("anchorFingerprint")
    assert subject and printed, f"verify's report names no anchor: {report}"
    expected = fingerprint(pem_certificates(anchor_pem.read_text())[0])
    assert normalized_fingerprint(printed) == expected, f"verify names anchor {subject} {printed}, not SHA-256 {expected}"
    assert common_name(anchor_pem) in subject, f"verify names anchor {subject!r}, not {common_name(anchor_pem)!r}"


def assert_validator_accepts(report, first_frame_ms=None, first_time_slack_ms=FRAME_MS, max_pending=None, joined=False):
    """PUBLIC KEY IS VALID, VIDEO IS VALID, every frame validated and none pending (or, for a
    recording cut at any moment, at most `max_pending` frames pending: the GOP open at the
    cut has no signature yet), and the first signed
    time the file's first frame time (real time, within `first_time_slack_ms`). `joined`: a
    stream joined at a keyframe, whose first SEI signs the GOP before it and comes before any
    certificate: the validator says once that it cannot check it yet (-10), and no more."""
    assert report.public_key == PUBLIC_KEY_VALID, str(report)
    assert report.verdict == VIDEO_VALID, str(report)
    allowed = 1 if joined else 0
    assert len(report.errors) <= allowed and all(error.endswith(": -10") for error in report.errors), str(report)
    assert report.received_frames > 0, str(report)
    if max_pending is None:
        assert report.pending_frames == 0 and report.validated_frames == report.received_frames, \
            f"{report.validated_frames} of {report.received_frames} frames validated, {report.pending_frames} pending\n{report}"
    else:
        assert report.pending_frames <= max_pending, f"{report.pending_frames} frames pending, at most {max_pending}\n{report}"
    assert report.first is not None and report.last is not None, str(report)
    assert report.first.displayed_seconds <= report.last.displayed_seconds, str(report)
    if first_frame_ms is not None:
        assert report.first.matches(first_frame_ms, first_time_slack_ms), \
            f"first signed time {report.first}, but the first frame is at {first_frame_ms} ms " \
            f"(off by {(report.first.low_ms - first_frame_ms) / 1000:+.3f} s)\n{report}"


def keyframe_flags(path):
    probed = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=key_frame", "-of", "csv=p=0",
                  path])
    assert probed.returncode == 0, probed.stderr
    return [line.strip(",") == "1" for line in probed.stdout.split()]


def frames_from_last_keyframe(path):
    flags = keyframe_flags(path)
    assert any(flags), f"{path}: no keyframe"
    return len(flags) - max(index for index, key in enumerate(flags) if key)


# ---------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="session")
def validator():
    """ONVIF's reference validator, built on first use (CI starts without it: minutes)."""
    return build_validator()


@pytest.fixture(scope="session")
def framework_files(tmp_path_factory):
    """The framework's examples/test-files and tests/, from its tarball."""
    return extract_framework_test_files(tmp_path_factory.mktemp("framework"))


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """One node for the module: 320x240 at 15 fps, 4 s chunks, a token, RTSP on."""
    rtsp_port = free_port()
    node = Node(tmp_path_factory.mktemp("onvif") / "store", "--token", TOKEN, size="320x240", fps=FPS,
                chunk_ms=CHUNK_MS, env={"ALLSPARK_SERVER_RTSP_PORT": str(rtsp_port)})
    node.rtsp_port = rtsp_port
    try:
        node.wait_for_chunks(3, timeout=90, headers=bearer())
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="module")
def node_anchor(recording, tmp_path_factory):
    """The node's trust anchor as GET /api/signing/anchor gives it, saved for -C."""
    status, _, body = recording.request("/api/signing/anchor", headers=bearer())
    assert status == 200, body
    path = tmp_path_factory.mktemp("anchor") / "anchor.pem"
    path.write_bytes(body)
    return path


def finished_chunks(node, count):
    chunks = sorted(node.wait_for_chunks(count, timeout=90, headers=bearer()), key=lambda chunk: chunk["startTime"])
    return chunks[:count]


# ---------------------------------------------------------------------------------------
# 1. The node's own anchor


def test_the_signing_endpoints_give_a_ca_anchor_the_signing_certificate_chains_up_to(recording, node_anchor, tmp_path):
    anchors = pem_certificates(node_anchor.read_text())
    assert len(anchors) == 1, f"/api/signing/anchor holds {len(anchors)} certificates:\n{node_anchor.read_text()}"
    anchor_text = openssl("x509", "-in", node_anchor, "-noout", "-subject", "-issuer", "-ext", "basicConstraints,keyUsage",
                          "-nameopt", "RFC2253")
    subject = re.search(r"^subject=(.*)$", anchor_text, re.M).group(1)
    issuer = re.search(r"^issuer=(.*)$", anchor_text, re.M).group(1)
    assert subject == issuer, f"the anchor is not self-signed:\n{anchor_text}"
    assert "CA:TRUE" in anchor_text and "Certificate Sign" in anchor_text, anchor_text

    status, signing = recording.json("/api/signing", headers=bearer())
    assert status == 200, signing
    assert signing["operatorChain"] is False, signing
    assert pem_certificates(signing["anchor"]["pem"]) == anchors, "GET /api/signing's anchor is /api/signing/anchor's"
    assert normalized_fingerprint(signing["anchor"]["fingerprint"]) == fingerprint(anchors[0]), signing["anchor"]
    leaf = pem_certificates(signing["signingCertificate"]["pem"])
    assert len(leaf) == 1 and leaf != anchors, signing["signingCertificate"]
    assert normalized_fingerprint(signing["signingCertificate"]["fingerprint"]) == fingerprint(leaf[0])
    assert signing["anchor"]["subject"] and signing["signingCertificate"]["subject"], signing

    leaf_path = tmp_path / "signing.pem"
    leaf_path.write_text(signing["signingCertificate"]["pem"])
    leaf_text = openssl("x509", "-in", leaf_path, "-noout", "-ext", "basicConstraints,keyUsage")
    assert "CA:TRUE" not in leaf_text and "Digital Signature" in leaf_text, leaf_text
    checked = run(["openssl", "verify", "-CAfile", node_anchor, leaf_path])
    assert checked.returncode == 0 and ": OK" in checked.stdout, checked.stdout + checked.stderr

    status, _, chain = recording.request("/api/signing/certificate", headers=bearer())
    assert status == 200, chain
    served = pem_certificates(chain)
    assert anchors[0] in served and leaf[0] in served, "GET /api/signing/certificate holds the anchor and the signing certificate"
    # The anchor first: a validator's -C reads the first certificate of its file.
    assert served[0] == anchors[0], "GET /api/signing/certificate starts with the anchor"


def test_the_validator_accepts_finished_chunks_under_the_nodes_anchor(recording, node_anchor, validator, tmp_path):
    """The node's first chunk and the next one, as MP4 and as a raw Annex B stream (what an
    RTSP client or `ffmpeg -bsf:v h264_mp4toannexb` gives: the SEIs must survive start codes)."""
    for chunk in finished_chunks(recording, 3)[:2]:
        path = recording.store / chunk["file"]
        first_frame_ms = probe(path)["firstFrameMs"]
        report = run_validator(validator, path, anchor=node_anchor)
        assert_validator_accepts(report, first_frame_ms)
        # The whole chunk was read, its last frame too.
        assert report.received_frames == chunk["frames"], f"{chunk['frames']} frames in the chunk\n{report}"

        track = read_video_track(path)
        annexb = write_annexb(track, track.samples, tmp_path / (path.stem + ".h264"))
        assert_validator_accepts(run_validator(validator, annexb, anchor=node_anchor), first_frame_ms)

        code, verified = verify(path, node_anchor)
        assert code == 0 and verified["status"] == "valid", repr(verified)
        assert_names_anchor(verified, node_anchor)

    # The whole of GET /api/signing/certificate as the anchor file, as a user would save it.
    status, _, chain = recording.request("/api/signing/certificate", headers=bearer())
    assert status == 200, chain
    served = tmp_path / "certificate.pem"
    served.write_bytes(chain)
    path = recording.store / finished_chunks(recording, 3)[1]["file"]
    assert_validator_accepts(run_validator(validator, path, anchor=served), probe(path)["firstFrameMs"])


def test_the_validator_accepts_a_clip_over_two_chunks_and_its_ffmpeg_remux(recording, node_anchor, validator, tmp_path):
    chunks = finished_chunks(recording, 3)
    # From the second chunk's first frame (a keyframe) into the third: the clip's first signed
    # time must be its first frame's, as a chunk's is.
    start, end = chunks[1]["startTime"], chunks[2]["startTime"] + 2.0
    status, headers, body = recording.request(f"/api/clip?start={start}&end={end}", headers=bearer())
    assert status == 200, body[:500]
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(body)
    times = probe(clip)
    assert times["lastFrameMs"] - times["firstFrameMs"] >= CHUNK_MS, f"the clip spans two chunks: {times}"
    assert_validator_accepts(run_validator(validator, clip, anchor=node_anchor), times["firstFrameMs"])

    remux = tmp_path / "remux.mp4"
    copied = run(["ffmpeg", "-v", "error", "-i", clip, "-c", "copy", remux])
    assert copied.returncode == 0, copied.stderr
    assert_validator_accepts(run_validator(validator, remux, anchor=node_anchor), probe(remux)["firstFrameMs"])


@pytest.mark.parametrize("fps", [25, 30])
def test_the_last_chunk_before_sigterm_is_validated_to_its_last_frame(fps, validator, tmp_path):
    """The chunk a node finishes as it stops ends with the SEIs that sign its last GOP behind
    its last picture, which readers date one frame interval later: at 25 fps (a frame lasts
    exactly 40 ms) and 30 fps (33 ms against the stream's 33.3) the file must last past
    that, or the validator never reads the signature and leaves the last GOP pending."""
    store = tmp_path / "store"
    node = Node(store, "--token", TOKEN, size="320x240", fps=fps, chunk_ms=2000, log_dir=tmp_path)
    try:
        node.wait_for_chunks(1, timeout=90, headers=bearer())
        status, _, anchor_pem = node.request("/api/signing/anchor", headers=bearer())
        assert status == 200, anchor_pem
        # Into the next chunk, then SIGTERM: the node finishes the open chunk as it stops.
        node.wait_until(lambda: list(store.glob(".chunk_*.part")), timeout=30, what="the next chunk's part file")
    finally:
        node.stop()
    assert node.process.returncode == 0, f"the node exited {node.process.returncode}"
    anchor = tmp_path / "anchor.pem"
    anchor.write_bytes(anchor_pem)
    chunks = sorted(store.glob("chunk_*.mp4"))
    assert len(chunks) >= 2 and not list(store.glob(".chunk_*.part")), sorted(p.name for p in store.iterdir())
    for path in (chunks[0], chunks[-1]):
        frames = len(keyframe_flags(path))
        report = run_validator(validator, path, anchor=anchor)
        assert_validator_accepts(report, probe(path)["firstFrameMs"])
        assert report.received_frames == frames, f"{frames} frames in {path.name}\n{report}"


def rtsp_url(node):
    return f"rtsp://allspark:{urllib.parse.quote(TOKEN)}@127.0.0.1:{node.rtsp_port}/live"


@pytest.mark.parametrize("stream", ["fmp4-feed", "rtsp-copy"])
def test_the_validator_accepts_seven_seconds_of_a_live_stream(stream, recording, node_anchor, validator, tmp_path):
    """/live/stream.mp4 as a browser gets it, or `ffmpeg -c copy` of the RTSP stream, cut at any
    moment: only the GOP still open at the cut may be unsigned; the first signed time is in
    the recording (a GOP before its first frame at most: a viewer joins at a keyframe, and a
    SEI signing the GOP before may come with it)."""
    recorded = tmp_path / f"{stream}.mp4"
    if stream == "fmp4-feed":
        head, body = read_stream(recording, 7, bearer())
        assert head.startswith("HTTP/1.1 200"), head
        recorded.write_bytes(dechunk(body))
    else:
        copied = run(["ffmpeg", "-v", "error", "-rtsp_transport", "tcp", "-i", rtsp_url(recording), "-t", "7", "-c", "copy",
                      recorded], timeout=90)
        assert copied.returncode == 0, copied.stderr
    times = probe(recorded)
    assert times["lastFrameMs"] - times["firstFrameMs"] >= 4000, times
    report = run_validator(validator, recorded, anchor=node_anchor)
    assert_validator_accepts(report, max_pending=frames_from_last_keyframe(recorded) + 1, joined=True)
    keyframes = [index for index, key in enumerate(keyframe_flags(recorded)) if key]
    gop_ms = (keyframes[1] - keyframes[0]) * FRAME_MS if len(keyframes) > 1 else 1000
    assert times["firstFrameMs"] - gop_ms - FRAME_MS <= report.first.high_ms and report.first.low_ms <= times["lastFrameMs"], \
        f"first signed time {report.first}, the recording is {times['firstFrameMs']}..{times['lastFrameMs']}\n{report}"


# ---------------------------------------------------------------------------------------
# 2. An operator's CA


@pytest.mark.parametrize("intermediate", [False, True], ids=["ca-signs-the-node", "through-an-intermediate"])
def test_an_operator_ca_chain_is_what_the_validator_and_verify_trust(intermediate, validator, framework_files, tmp_path):
    store = tmp_path / "store"
    root = make_ca(tmp_path / "ca", "AllSpark Test Root CA")
    issuer = make_ca(tmp_path / "ca", "AllSpark Test Intermediate CA", issuer=root) if intermediate else root
    leaf = issue_leaf(tmp_path, signing_request(store, tmp_path), issuer)
    chain = concatenate(tmp_path / "chain.pem", leaf, *([issuer["cert"]] if intermediate else []), root["cert"])
    installed = install(store, chain)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    node = Node(store, "--token", TOKEN, size="320x240", fps=FPS, chunk_ms=CHUNK_MS)
    try:
        chunk = finished_chunks(node, 2)[0]
        status, signing = node.json("/api/signing", headers=bearer())
        assert status == 200 and signing["operatorChain"] is True, signing
        root_der = pem_certificates(root["cert"].read_text())[0]
        assert normalized_fingerprint(signing["anchor"]["fingerprint"]) == fingerprint(root_der), signing["anchor"]
        status, _, served = node.request("/api/signing/anchor", headers=bearer())
        assert status == 200 and pem_certificates(served) == [root_der], served
        assert pem_certificates(signing["signingCertificate"]["pem"]) == pem_certificates(leaf.read_text())
    finally:
        node.stop()

    path = store / chunk["file"]
    first_frame_ms = probe(path)["firstFrameMs"]
    assert_validator_accepts(run_validator(validator, path, anchor=root["cert"]), first_frame_ms)
    # Another CA is no anchor for it.
    stranger = make_ca(tmp_path / "stranger", "Stranger CA")
    report = run_validator(validator, path, anchor=stranger["cert"])
    assert report.public_key != PUBLIC_KEY_VALID, f"a CA that signed nothing was taken as the anchor\n{report}"

    code, verified = verify(path, root["cert"])
    assert code == 0 and verified["status"] == "valid", repr(verified)
    assert_names_anchor(verified, root["cert"])
    # A PEM of several anchors: the one that signed is named.
    several = concatenate(tmp_path / "anchors.pem", framework_files / "examples/test-files/ca.pem", stranger["cert"],
                          root["cert"])
    code, verified = verify(path, several)
    assert code == 0 and verified["status"] == "valid", repr(verified)
    assert_names_anchor(verified, root["cert"])
    code, verified = verify(path, stranger["cert"])
    assert code == 1 and verified["status"] != "valid", f"verify took a CA that signed nothing: {verified}"


def test_signing_install_refuses_a_chain_for_another_key_or_that_does_not_chain_up(tmp_path):
    store = tmp_path / "store"
    csr = signing_request(store, tmp_path)
    key_before = csr_public_key(csr)
    ca = make_ca(tmp_path / "ca", "Install Test CA")
    other_ca = make_ca(tmp_path / "other", "Other CA")

    # A certificate the CA issued for some other key.
    other_key = tmp_path / "other.key"
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", other_key)
    other_csr = tmp_path / "other.csr"
    openssl("req", "-new", "-key", other_key, "-subj", "/CN=someone else", "-out", other_csr)
    foreign = concatenate(tmp_path / "foreign.pem", issue_leaf(tmp_path, other_csr, ca, "foreign-leaf"), ca["cert"])
    refused = install(store, foreign)
    assert refused.returncode != 0, f"installed a certificate for another key:\n{refused.stdout}"
    assert re.search(r"key", refused.stdout + refused.stderr, re.I), refused.stdout + refused.stderr

    # The node's certificate, but a chain ending in a CA that did not issue it.
    leaf = issue_leaf(tmp_path, csr, ca)
    for name, parts in [("wrong-anchor", [leaf, other_ca["cert"]]), ("no-anchor", [leaf])]:
        refused = install(store, concatenate(tmp_path / f"{name}.pem", *parts))
        assert refused.returncode != 0, f"{name}: installed a chain that does not chain up:\n{refused.stdout}"
        message = refused.stdout + refused.stderr
        assert re.search(r"chain|issue|anchor|sign|self-signed|root", message, re.I), f"{name}: {message}"

    assert csr_public_key(signing_request(store, tmp_path)) == key_before, "a refused install changed the node's key"
    accepted = install(store, concatenate(tmp_path / "chain.pem", leaf, ca["cert"]))
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


# ---------------------------------------------------------------------------------------
# 3. Tampered chunks


@pytest.fixture(scope="module")
def tamper_base(recording, node_anchor, validator, tmp_path_factory):
    """Two consecutive finished chunks (the node's second and third), read into samples, and a
    rewrite of the first through the same MP4 writer the tampering uses: that must still be
    valid, or a tamper test proves nothing."""
    directory = tmp_path_factory.mktemp("tamper")
    chunks = finished_chunks(recording, 3)[1:3]
    tracks = [read_video_track(recording.store / chunk["file"]) for chunk in chunks]
    control = write_mp4(tracks[0], tracks[0].samples, directory / "control.mp4")
    assert_validator_accepts(run_validator(validator, control, anchor=node_anchor), probe(control)["firstFrameMs"])
    code, verified = verify(control, node_anchor)
    assert code == 0 and verified["status"] == "valid", repr(verified)
    return directory, tracks


def covered_sample(track):
    """A frame deep inside the chunk, signed by a SEI in the same chunk: the middle of its
    second GOP (not the first frame, not a keyframe, not the tail the next chunk may sign)."""
    keyframes = [index for index, sample in enumerate(track.samples) if sample.sync]
    assert len(keyframes) >= 3, f"{track.path}: keyframes at {keyframes}: a 4 s chunk should hold 3 GOPs or more"
    index = (keyframes[1] + keyframes[2]) // 2
    while track.samples[index].sync or any(is_signing_sei(nal) for nal in track.nals(track.samples[index])):
        index += 1
    assert index < keyframes[2], f"{track.path}: no plain frame in the second GOP"
    return index


def flip_a_slice_byte(track, index):
    sample = copy.copy(track.samples[index])
    nals = track.nals(sample)
    slices = [position for position, nal in enumerate(nals) if is_slice(nal)]
    assert slices, f"{track.path} frame {index}: no slice in {describe_nals(nals)}"
    changed = bytearray(nals[slices[0]])
    changed[len(changed) // 2] ^= 0x01
    nals[slices[0]] = bytes(changed)
    sample.data = join_nals(nals, track.length_size)
    return sample


def tampered(track, kind):
    samples = list(track.samples)
    if kind == "flipped-byte":
        index = covered_sample(track)
        samples[index] = flip_a_slice_byte(track, index)
    elif kind == "dropped-frame":
        del samples[covered_sample(track)]
    elif kind == "removed-sei":
        # A GOP SEI (not the certificate SEI) with one before and one after it in the chunk:
        # without the first, a file looks like one that starts later.
        found = [(index, position) for index, sample in enumerate(samples)
                 for position, nal in enumerate(track.nals(sample)) if is_gop_sei(nal)]
        assert len(found) >= 3, f"{track.path}: {len(found)} GOP SEIs in a 4 s chunk"
        index, position = found[1]
        sample = copy.copy(samples[index])
        nals = track.nals(sample)
        del nals[position]
        sample.data = join_nals(nals, track.length_size)
        samples[index] = sample
    return samples


@pytest.mark.parametrize("kind", ["flipped-byte", "dropped-frame", "removed-sei"])
def test_a_tampered_chunk_is_rejected_by_the_validator_and_verify(kind, tamper_base, node_anchor, validator):
    directory, (track, _) = tamper_base
    path = write_mp4(track, tampered(track, kind), directory / f"{kind}.mp4")
    report = run_validator(validator, path, anchor=node_anchor)
    allowed = (VIDEO_INVALID,) if kind == "flipped-byte" else (VIDEO_INVALID, VIDEO_MISSING)
    assert report.verdict in allowed, f"{kind}: the validator says {report.verdict!r}, not one of {allowed}\n{report}"
    code, verified = verify(path, node_anchor)
    assert code == 1 and verified["status"] == "invalid", f"{kind}: verify says {verified}"


def test_two_chunks_swapped_are_rejected_by_the_validator_and_verify(tamper_base, node_anchor, validator):
    directory, (first, second) = tamper_base
    assert first.nals(first.samples[0]) and second.samples, "two chunks"
    # Control: the two in their order are one continuous, valid recording.
    joined = write_mp4(first, first.samples + second.samples, directory / "joined.mp4")
    assert_validator_accepts(run_validator(validator, joined, anchor=node_anchor), probe(joined)["firstFrameMs"])
    code, verified = verify(joined, node_anchor)
    assert code == 0 and verified["status"] == "valid", f"two consecutive chunks joined: {verified}"

    swapped = write_mp4(first, second.samples + first.samples, directory / "swapped.mp4")
    report = run_validator(validator, swapped, anchor=node_anchor)
    assert report.verdict == VIDEO_INVALID, f"swapped chunks: the validator says {report.verdict!r}\n{report}"
    code, verified = verify(swapped, node_anchor)
    assert code == 1 and verified["status"] == "invalid", f"swapped chunks: verify says {verified}"


# ---------------------------------------------------------------------------------------
# 4. The framework's own test files


def framework_flipped(framework_files, directory):
    """test_signed_h264.mp4 with one byte flipped in a slice of frame 100 (its GOPs are 62
    frames; the last 7 frames are signed by no SEI in the file, so not those)."""
    track = read_video_track(framework_files / "examples/test-files/test_signed_h264.mp4")
    samples = list(track.samples)
    samples[100] = flip_a_slice_byte(track, 100)
    return write_mp4(track, samples, directory / "test_signed_h264_flipped.mp4")


@pytest.mark.parametrize("case", ["signed", "unsigned", "flipped"])
def test_verify_and_the_validator_agree_on_the_frameworks_test_files(case, framework_files, validator, tmp_path):
    files = framework_files / "examples/test-files"
    ca = files / "ca.pem"  # "Test RootCA": it issued the "Test camera" certificate the signed file carries
    path = {"signed": files / "test_signed_h264.mp4", "unsigned": files / "test_h264.mp4",
            "flipped": framework_flipped(framework_files, tmp_path)}[case]
    report = run_validator(validator, path, anchor=ca)
    code, verified = verify(path, ca)
    if case == "signed":
        # The README's control: 248 of 255 frames, the video intact; but the key is not proven
        # (its "Test camera" certificate expired on 2025-11-13, and the file's times are not
        # epoch times, so it was never valid at them either).
        assert report.verdict == VIDEO_VALID and report.validated_frames == 248 and report.received_frames == 255, str(report)
        assert report.public_key == "PUBLIC KEY IS NOT VALID!", str(report)
        # verify agrees: every signed GOP checks out against the certificate the file carries...
        own_code, own = verify(path)
        assert own_code == 0 and own["status"] == "valid" and own["trust"] == "embedded", repr(own)
        assert own["validGOPs"] == own["signedGOPs"] >= 4 and "Test camera" in own["certificateSubject"], repr(own)
        # ...and the anchor does not vouch for that certificate, which verify says and fails on.
        assert code == 1 and verified["status"] == "invalid" and verified.get("trust") is None, repr(verified)
        assert verified["validGOPs"] == verified["signedGOPs"], repr(verified)
        assert any("not valid when the footage was signed" in problem["reason"] for problem in verified["problems"]), repr(verified)
    elif case == "unsigned":
        assert report.verdict == VIDEO_NOT_SIGNED and report.validated_frames == 0, str(report)
        assert verified["status"] == "unsigned", repr(verified)
    else:
        assert report.verdict == VIDEO_INVALID, str(report)
        assert code == 1 and verified["status"] == "invalid", repr(verified)


# ---------------------------------------------------------------------------------------
# 5. A first start on a full disk


def full_disk_reason(node):
    status, health = node.json("/api/health")
    reasons = [problem for problem in health.get("problems", [])
               if re.search(r"disk full|no space|ENOSPC|full", problem, re.I)]
    return status == 503 and reasons


def test_a_first_start_on_a_full_disk_waits_for_space_then_makes_its_keys_and_records(validator, tmp_path):
    with tmpfs(tmp_path / "disk", 32) as disk:
        store = disk / "store"
        store.mkdir()
        filler = fill(disk)
        assert os.statvfs(disk).f_bavail == 0, "the disk is full"
        node = Node(store, "--token", TOKEN, size="320x240", fps=FPS, chunk_ms=CHUNK_MS, log_dir=tmp_path)
        try:
            reasons = node.wait_until(lambda: full_disk_reason(node), timeout=30, what="/api/health 503 naming the full disk")
            assert reasons, reasons
            assert node.process.poll() is None, "the node keeps running on a full disk"
            status, _, _ = node.request("/api/signing/anchor", headers=bearer())
            assert status in (503, 404), f"/api/signing/anchor answers {status} before there is a key"

            filler.unlink()
            node.wait_until(lambda: node.request("/api/signing/anchor", headers=bearer())[0] == 200, timeout=60,
                            what="the signing key made once there is space")
            chunk = finished_chunks(node, 1)[0]
            node.wait_until(lambda: node.json("/api/health")[0] == 200, timeout=60, what="/api/health 200")
            anchor = tmp_path / "anchor.pem"
            anchor.write_bytes(node.request("/api/signing/anchor", headers=bearer())[2])
            path = store / chunk["file"]
            assert_validator_accepts(run_validator(validator, path, anchor=anchor), probe(path)["firstFrameMs"])
        finally:
            node.stop()
