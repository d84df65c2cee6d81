"""A replay moved while it plays, as ONVIF Streaming's `Immediate: yes` asks: RTSP over one
TCP connection, written here because no client library sends that header (RTSP's text
and RFC 2326's interleaved frames; Basic credentials, which the node takes as a VMS puts
them in the URI). A first PLAY from A at the recorded pace (Rate-Control: yes); once its
frames arrive, a second PLAY from B with Immediate: yes, without a PAUSE. Prints one JSON
object: both responses (status and Range), and the ONVIF extension's times (unix ms) and
C bits, [ms, C], of the packets read after the first PLAY, of those read between the
second PLAY and its response (the first range's, in flight), and of those after it.

usage: immediate_client.py HOST PORT USER PASSWORD A_MS B_MS
"""
import base64
import datetime
import json
import socket
import struct
import sys

from onvif_rtp import onvif_extension

def clock(ms):
    moment = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return moment.strftime("%Y%m%dT%H%M%S.") + f"{moment.microsecond // 1000:03d}Z"


class Connection:
    def __init__(self, host, port, user, password):
        self.socket = socket.create_connection((host, port), timeout=30)
        self.buffer = b""
        self.cseq = 0
        self.credentials = base64.b64encode(f"{user}:{password}".encode()).decode()

    def read(self, count):
        while len(self.buffer) < count:
            data = self.socket.recv(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.buffer += data
        taken, self.buffer = self.buffer[:count], self.buffer[count:]
        return taken

    def next_message(self):
        """('rtp', channel, payload) for an interleaved frame, or ('response', status, headers, body)."""
        if self.read(1) == b"$":
            channel, length = struct.unpack("!BH", self.read(3))
            return ("rtp", channel, self.read(length))
        line = b"R"
        while not line.endswith(b"\r\n\r\n"):
            line += self.read(1)
        lines = line.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for header in lines[1:]:
            if ":" in header:
                name, value = header.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        body = self.read(int(headers.get("content-length", "0")))
        return ("response", status, headers, body)

    def request(self, method, url, headers, frames=None):
        """Sends a request; returns its response, keeping the frames read before it in `frames`."""
        self.cseq += 1
        lines = [f"{method} {url} RTSP/1.0", f"CSeq: {self.cseq}", f"Authorization: Basic {self.credentials}",
                 "Require: onvif-replay", *[f"{name}: {value}" for name, value in headers.items()]]
        self.socket.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while True:
            message = self.next_message()
            if message[0] == "response":
                return message
            if frames is not None and message[1] == 0:
                frames.append(message[2])


def main(host, port, user, password, a_ms, b_ms):
    url = f"rtsp://{host}:{port}/replay"
    connection = Connection(host, port, user, password)
    described = connection.request("DESCRIBE", url, {"Accept": "application/sdp"})
    base = described[2].get("content-base", url + "/")
    control = next(line[len("a=control:"):] for line in described[3].decode().splitlines()
                   if line.startswith("a=control:") and line != "a=control:*")
    track = control if control.startswith("rtsp://") else base.rstrip("/") + "/" + control
    set_up = connection.request("SETUP", track, {"Transport": "RTP/AVP/TCP;unicast;interleaved=0-1"})
    session = set_up[2]["session"].split(";")[0]
    first_frames, second_frames = [], []
    first = connection.request("PLAY", url, {"Session": session, "Range": f"clock={clock(a_ms)}-", "Rate-Control": "yes"},
                               frames=first_frames)
    while len(first_frames) < 30:
        message = connection.next_message()
        if message[0] == "rtp" and message[1] == 0:
            first_frames.append(message[2])
    in_flight = []
    second = connection.request("PLAY", url, {"Session": session, "Range": f"clock={clock(b_ms)}-", "Rate-Control": "yes",
                                              "Immediate": "yes"}, frames=in_flight)
    while len(second_frames) < 60:
        message = connection.next_message()
        if message[0] == "rtp" and message[1] == 0:
            second_frames.append(message[2])
    connection.request("TEARDOWN", url, {"Session": session})
    times = lambda frames: [ext[:2] for ext in map(onvif_extension, frames) if ext is not None]
    return {"first": {"status": first[1], "range": first[2].get("range")}, "first_frames": times(first_frames),
            "second": {"status": second[1], "range": second[2].get("range")}, "in_flight": times(in_flight),
            "second_frames": times(second_frames)}


if __name__ == "__main__":
    host, port, user, password, a_ms, b_ms = sys.argv[1:7]
    print(json.dumps(main(host, int(port), user, password, int(a_ms), int(b_ms))))
