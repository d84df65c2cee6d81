"""Raw SOAP at the node's ONVIF services: what a hostile or broken client sends gets a SOAP
Fault with HTTP 400, never a 500, a hang or a read file; the pre-auth calls answer without
credentials and the rest want a UsernameToken digest of the token."""
import base64
import datetime as dt
import hashlib
import os
import re
import subprocess
import time
import urllib.parse
import urllib.request

import pytest
from node_harness import Node, timestamps_name
from onvif_harness import TOKEN, USER

pytestmark = pytest.mark.xdist_group("onvif")

ENVELOPE = ('<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope">'
            '{header}<s:Body>{body}</s:Body></s:Envelope>')


def security(password=TOKEN, created=None, nonce=None):
    nonce = nonce or os.urandom(16)
    created = created or dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    digest = base64.b64encode(hashlib.sha1(nonce + created.encode() + password.encode()).digest()).decode()
    return ('<s:Header><Security xmlns="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">'
            f'<UsernameToken><Username>{USER}</Username><Password Type="http://docs.oasis-open.org/wss/2004/01/'
            f'oasis-200401-wss-username-token-profile-1.0#PasswordDigest">{digest}</Password>'
            f'<Nonce>{base64.b64encode(nonce).decode()}</Nonce><Created xmlns="http://docs.oasis-open.org/wss/2004/01/'
            f'oasis-200401-wss-wssecurity-utility-1.0.xsd">{created}</Created></UsernameToken></Security></s:Header>')


def post(node, path, data, headers=None):
    request = urllib.request.Request(node.url(path), data=data, method="POST",
                                     headers={"Content-Type": "application/soap+xml", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def call(node, operation, service="device", header="", namespace="http://www.onvif.org/ver10/device/wsdl", inner=""):
    body = f'<{operation} xmlns="{namespace}">{inner}</{operation}>'
    return post(node, f"/onvif/{service}_service", ENVELOPE.format(header=header, body=body).encode())


def test_pre_auth_calls_answer_without_credentials_and_the_rest_want_them(loopback_node):
    for operation in ("GetSystemDateAndTime", "GetCapabilities", "GetServices", "GetHostname", "GetEndpointReference"):
        status, text = call(loopback_node, operation)
        assert status == 200 and f"{operation}Response" in text, text
    status, text = call(loopback_node, "GetDeviceInformation")
    assert status == 400 and "ter:NotAuthorized" in text and "env:Sender" in text
    status, text = call(loopback_node, "GetDeviceInformation", header=security(password="wrong"))
    assert status == 400 and "ter:NotAuthorized" in text
    status, text = call(loopback_node, "GetDeviceInformation", header=security())
    assert status == 200 and "<tds:SerialNumber>" in text
    status, text = call(loopback_node, "GetProfiles", service="media", namespace="http://www.onvif.org/ver10/media/wsdl", header=security())
    assert status == 200 and "<tt:Encoding>H264</tt:Encoding>" in text


def test_a_replayed_nonce_and_an_old_created_are_refused(loopback_node):
    header = security(nonce=b"fixed-nonce-0001")
    assert call(loopback_node, "GetScopes", header=header)[0] == 200
    assert "ter:NotAuthorized" in call(loopback_node, "GetScopes", header=header)[1]
    old = (dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert "ter:NotAuthorized" in call(loopback_node, "GetScopes", header=security(created=old))[1]
    # Created with +00:00 is read as given.
    plus = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    assert call(loopback_node, "GetScopes", header=security(created=plus))[0] == 200


def test_setters_and_unknown_operations_are_faults(loopback_node):
    for operation in ("SetSystemDateAndTime", "SystemReboot", "NoSuchOperation"):
        status, text = call(loopback_node, operation, header=security())
        assert status == 400 and "ter:ActionNotSupported" in text, text


@pytest.mark.parametrize("name,document", [
    ("xxe", '<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><GetHostname xmlns="http://www.onvif.org/ver10/device/wsdl">&x;</GetHostname></s:Body></s:Envelope>'),
    ("billion-laughs", '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)) + ']><l>&j;</l>'),
    ("not-xml", "this is not xml"),
    ("truncated", '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><GetHostname'),
    ("not-an-envelope", "<Envelope><Body><GetHostname/></Body></Envelope>"),
    ("empty-body", '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body/></s:Envelope>'),
    ("too-deep", '<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body>' + "<a>" * 200 + "</a>" * 200 + "</s:Body></s:Envelope>"),
    ("binary", "\x00\x01\x02\xff"),
])
def test_bad_bodies_get_a_fault_never_a_500(loopback_node, name, document):
    status, text = post(loopback_node, "/onvif/device_service", document.encode("utf-8", "surrogatepass"))
    assert status == 400, (status, text)
    assert "env:Fault" in text and "root:" not in text
    # The node still answers.
    assert call(loopback_node, "GetSystemDateAndTime")[0] == 200


def test_a_body_over_the_limit_is_refused_before_it_is_read(loopback_node):
    # The server's own limit (64 KiB, the largest any route takes) answers an announced
    # length over it with 413 before the service sees a byte: a SOAP Fault saying why.
    document = ('<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><GetHostname>' + "x" * 200_000
                + "</GetHostname></s:Body></s:Envelope>")
    status, text = post(loopback_node, "/onvif/device_service", document.encode())
    assert status == 413 and "env:Fault" in text and "65536 bytes" in text, (status, text[:500])
    assert call(loopback_node, "GetSystemDateAndTime")[0] == 200


EVENTS = "http://www.onvif.org/ver10/events/wsdl"


def test_event_subscriptions_want_credentials_and_an_unknown_one_is_a_fault(loopback_node):
    status, text = call(loopback_node, "CreatePullPointSubscription", service="event", namespace=EVENTS)
    assert status == 400 and "ter:NotAuthorized" in text, text
    status, text = call(loopback_node, "CreatePullPointSubscription", service="event", namespace=EVENTS, header=security(),
                        inner="<InitialTerminationTime>PT60S</InitialTerminationTime>")
    assert status == 200, text
    path = urllib.parse.urlsplit(re.search(r"<wsa5:Address>([^<]+)</wsa5:Address>", text).group(1)).path

    def pull(header):
        return ENVELOPE.format(header=header, body=f'<PullMessages xmlns="{EVENTS}"><Timeout>PT2S</Timeout>'
                               '<MessageLimit>10</MessageLimit></PullMessages>').encode()

    status, text = post(loopback_node, path, pull(security()))
    assert status == 200 and "tns1:RecordingConfig/JobState" in text and 'PropertyOperation="Initialized"' in text, text
    status, text = post(loopback_node, path, pull(""))
    assert status == 400 and "ter:NotAuthorized" in text, text
    status, text = post(loopback_node, "/onvif/subscription/0-0", pull(security()))
    assert status == 400 and "ter:ResourceUnknown" in text, text


def mid_chunk_keyframes_ms(node, chunks):
    """Capture times of the key frames that are not a chunk's first frame."""
    found = []
    for chunk in chunks:
        flags = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0",
                                str(node.store / chunk["file"])], capture_output=True, text=True, check=True).stdout.split()
        times = [int(line) for line in (node.store / timestamps_name(chunk["file"])).read_text().split()]
        assert len(flags) == len(times) and flags[0].startswith("K"), (chunk["file"], flags[:3])
        found += [time_ms for index, (flag, time_ms) in enumerate(zip(flags, times)) if index > 0 and flag.startswith("K")]
    return found


def test_set_synchronization_point_puts_a_key_frame_in_the_middle_of_a_chunk(tmp_path):
    """Media's and Media2's SetSynchronizationPoint: the recorder makes its next frame a key
    frame. Chunks of 4 s with a key frame every 4 s have one key frame each, at their start;
    the chunk recorded while a client asks gets a second one, near the time it asked."""
    node = Node(tmp_path / "store", "--token", TOKEN, chunk_ms=4000, env={"ALLSPARK_ENCODER_KEYFRAME_INTERVAL_MS": "4000"})
    try:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        node.wait_healthy(headers=headers)
        node.wait_for_chunks(1, headers=headers)
        asked_ms = []
        for service, namespace in (("media", "http://www.onvif.org/ver10/media/wsdl"), ("media2", "http://www.onvif.org/ver20/media/wsdl")):
            asked_ms.append(int(time.time() * 1000))
            status, text = call(node, "SetSynchronizationPoint", service=service, namespace=namespace, header=security(),
                                inner="<ProfileToken>main</ProfileToken>")
            assert status == 200 and "SetSynchronizationPointResponse" in text, text
            status, text = call(node, "SetSynchronizationPoint", service=service, namespace=namespace, header=security(),
                                inner="<ProfileToken>other</ProfileToken>")
            assert status == 400 and "ter:NoProfile" in text, text
            # The next request once this one's key frame is recorded (two at once make one).
            node.wait_until(lambda: (c := node.chunks(headers)) and c[-1]["startMs"] > asked_ms[-1] + 1500, timeout=60,
                            what="the chunk after the request")
        # One key frame inside a chunk for each request, each in the chunk's span around it
        # (frames wait for the privacy pass, and a loaded box for its CPU); none where no one asked.
        found = mid_chunk_keyframes_ms(node, node.chunks(headers))
        assert len(found) == len(asked_ms), (found, asked_ms)
        assert all(asked - 4000 <= at <= asked + 4000 for asked, at in zip(asked_ms, found)), (found, asked_ms)
    finally:
        node.stop()
