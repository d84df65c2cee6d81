"""ONVIF's reference validator (media-signing-framework r25.12.3) as a judge of signed
footage, and the small tools the tests around it need: a strict reader of its
validation_results.txt, an MP4 sample reader and writer (to tamper with footage the way an
editor would: a byte, a frame, a SEI, the order of chunks) and H.264 NAL/SEI helpers.

The validator is built by the framework's build-validator.sh (first call only; it prints
the program's path). It reads FILE.mp4 with GStreamer's qtdemux, FILE.mkv, or a raw Annex B
stream for any other name, and writes one report at the end (-b) to ./validation_results.txt.
"""
import calendar
import dataclasses
import os
import re
import struct
import subprocess
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FRAMEWORK_DIR = Path(os.environ.get(
    "ONVIF_FRAMEWORK_DIR", REPO.parent / "shared/third-party/onvif-media-signing-framework"))
BUILD_SCRIPT = FRAMEWORK_DIR / "build-validator.sh"
FRAMEWORK_TARBALL = FRAMEWORK_DIR / "media-signing-framework-r25.12.3.tar.gz"

SIGNING_UUID = bytes.fromhex("005bc93f2d715e95ada4796f90877a6f")
CERTIFICATE_SEI_FLAG = 0x80  # the reserved byte after the UUID: a SEI sent once (certificates), not a GOP's

PUBLIC_KEY_VALID = "PUBLIC KEY IS VALID!"
VIDEO_VALID = "VIDEO IS VALID!"
VIDEO_MISSING = "VIDEO IS VALID, BUT HAS MISSING FRAMES!"
VIDEO_INVALID = "VIDEO IS INVALID!"
VIDEO_NOT_SIGNED = "VIDEO IS NOT SIGNED!"

PUBLIC_KEY_LINES = (PUBLIC_KEY_VALID, "PUBLIC KEY IS NOT VALID!", "PUBLIC KEY VERIFIABLE WITHOUT TRUSTED CERT!",
                    "PUBLIC KEY COULD NOT BE VALIDATED!")
VERDICT_LINES = (VIDEO_VALID, VIDEO_MISSING, VIDEO_INVALID, VIDEO_NOT_SIGNED,
                 "PUBLIC KEY COULD NOT BE VALIDATED!")  # the last: batch mode's fall-through


class ReportFormatError(AssertionError):
    """validation_results.txt is not what r25.12.3 writes in batch mode."""


# ---------------------------------------------------------------------------------------
# The validator and its report


def build_validator():
    """The validator's path: build-validator.sh builds it on first use (minutes), then prints the path."""
    assert BUILD_SCRIPT.exists(), f"{BUILD_SCRIPT} is missing"
    built = subprocess.run(["bash", str(BUILD_SCRIPT)], capture_output=True, text=True, timeout=3600)
    assert built.returncode == 0, f"build-validator.sh failed ({built.returncode}):\n{built.stdout}\n{built.stderr}"
    lines = built.stdout.strip().splitlines()
    assert lines, f"build-validator.sh printed no path:\n{built.stderr}"
    path = Path(lines[-1].strip())
    assert path.is_file() and os.access(path, os.X_OK), f"build-validator.sh printed {path}, not a program"
    return path


def extract_framework_test_files(directory):
    """examples/test-files/ and tests/ of the framework's tarball, extracted into `directory`;
    returns the directory holding examples/ and tests/."""
    directory = Path(directory)
    with tarfile.open(FRAMEWORK_TARBALL) as tar:
        members = [m for m in tar.getmembers()
                   if re.search(r"(^|/)(examples/test-files|tests)/[^/]+$", m.name) and m.isfile()]
        assert members, f"no examples/test-files in {FRAMEWORK_TARBALL}"
        for member in members:
            relative = re.sub(r"^[^/]*/", "", member.name)  # strip the top folder
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(member).read())
    return directory


def days_from_civil(year, month, day):
    """Days since 1970-01-01 of a proleptic Gregorian date, any year (the report can print
    negative years for a file whose times are not epoch times)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


TIME_LINE = re.compile(r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (-?\d+)-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) (GMT|UTC)")


@dataclasses.dataclass
class SignedTime:
    """A time the report prints. r25.12.3 prints unix microseconds / 100000 as if they were
    seconds, so the time shown is ten times the real one: the displayed "seconds" are tenths
    of a real second, truncated. The real time is in [low_ms, low_ms + 100)."""
    text: str
    displayed_seconds: int

    @property
    def low_ms(self):
        return self.displayed_seconds * 100

    @property
    def high_ms(self):
        return self.low_ms + 99

    def matches(self, ms, tolerance_ms):
        """Whether a real time `ms` (epoch milliseconds) is this printed time within `tolerance_ms`."""
        return self.low_ms - tolerance_ms <= ms <= self.high_ms + tolerance_ms

    def __str__(self):
        return f"{self.text} (real time {self.low_ms}..{self.high_ms} ms)"


def parse_time(text):
    if text == "N/A":
        return None
    match = TIME_LINE.fullmatch(text)
    if not match:
        raise ReportFormatError(f"a time the report should print as '%a %Y-%m-%d %H:%M:%S %Z': {text!r}")
    year, month, day, hour, minute, second = (int(group) for group in match.groups()[:6])
    displayed = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    if year > 1:
        assert displayed == calendar.timegm((year, month, day, hour, minute, second)), text
    return SignedTime(text, displayed)


RULE = r"-{29}"
# r25.12.3's batch report (examples/apps/validator/main.c, on EOS), one pattern a line.
REPORT_LINES = [
    RULE, r"(?P<public_key>.*)", RULE, r"(?P<verdict>.*)",
    r"Number of received NAL Units : (?P<received_nalus>\d+)",
    r"Number of validated NAL Units: (?P<validated_nalus>\d+)",
    r"Number of pending NAL Units  : (?P<pending_nalus>\d+)",
    r"Number of received frames : (?P<received_frames>\d+)",
    r"Number of validated frames: (?P<validated_frames>\d+)",
    r"Number of pending frames  : (?P<pending_frames>\d+)",
    RULE, r"", r"Vendor Info", RULE,
    r"Serial Number:    (?P<serial>.*)", r"Firmware version: (?P<firmware>.*)", r"Manufacturer:     (?P<manufacturer>.*)",
    RULE, r"", r"Media Signing timestamps", RULE,
    r"First frame:           (?P<first>.*)", r"Last validated frame:  (?P<last>.*)",
    RULE, r"", r"Media Signing size footprint", RULE,
    r"Total video: +(?P<total_bytes>\d+) B", r"Media Signing data: +(?P<sei_bytes>\d+) B",
    r"Bitrate increase: +(?P<increase>-?[\d.]+|-?nan|-?inf) %",
    RULE, r"", r"Versions of media-signing-framework", RULE,
    r"Validator runs:    (?P<validator_version>.*)", r"Camera runs:       (?P<camera_version>.*)", RULE,
]


@dataclasses.dataclass
class ValidationReport:
    text: str
    public_key: str
    verdict: str
    received_nalus: int
    validated_nalus: int
    pending_nalus: int
    received_frames: int
    validated_frames: int
    pending_frames: int
    serial: str
    firmware: str
    manufacturer: str
    first: SignedTime
    last: SignedTime
    total_bytes: int
    sei_bytes: int
    validator_version: str
    camera_version: str
    errors: list = dataclasses.field(default_factory=list)  # the validator's "error during verification" lines
    file: str = ""

    def __str__(self):
        errors = "".join(f"\n  {line}" for line in self.errors[:10])
        return f"validator report on {self.file}:\n{self.text}{errors}"


def parse_report(text):
    """The batch report (-b) of r25.12.3, field by field; raises ReportFormatError on any line
    that is not as that version writes it."""
    lines = text.split("\n")
    if lines[-1] != "":
        raise ReportFormatError(f"validation_results.txt does not end in a new line:\n{text}")
    lines = lines[:-1]
    if len(lines) != len(REPORT_LINES):
        raise ReportFormatError(f"validation_results.txt has {len(lines)} lines, not {len(REPORT_LINES)}:\n{text}")
    fields = {}
    for number, (pattern, line) in enumerate(zip(REPORT_LINES, lines), 1):
        match = re.fullmatch(pattern, line)
        if not match:
            raise ReportFormatError(f"validation_results.txt line {number} is {line!r}, not /{pattern}/:\n{text}")
        fields.update(match.groupdict())
    if fields["public_key"] not in PUBLIC_KEY_LINES:
        raise ReportFormatError(f"unknown public key line {fields['public_key']!r}:\n{text}")
    if fields["verdict"] not in VERDICT_LINES:
        raise ReportFormatError(f"unknown verdict line {fields['verdict']!r}:\n{text}")
    report = ValidationReport(
        text=text, public_key=fields["public_key"], verdict=fields["verdict"],
        **{name: int(fields[name]) for name in ("received_nalus", "validated_nalus", "pending_nalus", "received_frames",
                                                 "validated_frames", "pending_frames", "total_bytes", "sei_bytes")},
        serial=fields["serial"], firmware=fields["firmware"], manufacturer=fields["manufacturer"],
        first=parse_time(fields["first"]), last=parse_time(fields["last"]),
        validator_version=fields["validator_version"], camera_version=fields["camera_version"])
    if report.validator_version != "r25.12.3":
        raise ReportFormatError(f"validator version {report.validator_version!r}, not r25.12.3")
    for counted in ("nalus", "frames"):
        received = getattr(report, f"received_{counted}")
        validated, pending = getattr(report, f"validated_{counted}"), getattr(report, f"pending_{counted}")
        if validated > received or pending > received:
            raise ReportFormatError(f"{counted}: {validated} validated and {pending} pending of {received} received:\n{text}")
    return report


def run_validator(validator, path, anchor=None, codec="h264", timeout=300):
    """Runs `validator -b [-C anchor] -c codec path` in a fresh directory; returns the parsed report."""
    path = Path(path).resolve()
    with tempfile.TemporaryDirectory(prefix="onvif-validator-") as directory:
        arguments = [str(validator), "-b"]
        if anchor is not None:
            anchor = Path(anchor).resolve()
            assert anchor.is_file(), f"no anchor file {anchor}"
            arguments += ["-C", str(anchor)]
        arguments += ["-c", codec, str(path)]
        ran = subprocess.run(arguments, cwd=directory, capture_output=True, text=True, errors="replace", timeout=timeout)
        results = Path(directory) / "validation_results.txt"
        if ran.returncode != 0 or not results.exists():
            raise AssertionError(f"validator {' '.join(arguments)} exited {ran.returncode} "
                                 f"{'with' if results.exists() else 'without'} validation_results.txt:\n"
                                 f"stdout (tail): {ran.stdout[-3000:]}\nstderr (tail): {ran.stderr[-3000:]}")
        report = parse_report(results.read_text())
    report.file = str(path)
    report.errors = [line.strip() for line in ran.stderr.splitlines() if "error during verification" in line]
    return report


# ---------------------------------------------------------------------------------------
# H.264 NAL units and the signing SEIs


def nal_type(nal):
    return nal[0] & 0x1F


def is_slice(nal):
    return nal_type(nal) in (1, 5)


def signing_sei_reserved_byte(nal):
    """The reserved byte after the ONVIF Media Signing UUID, or None if `nal` is no signing SEI.
    Read as the framework reads it (oms_common.c): the SEI's first message must be user data
    unregistered with the UUID; the bytes up to the reserved byte hold no emulation prevention
    (and the rest is not unescaped here: the framework removes 00 00 03 only when the NAL
    unit is longer than its payload size says, and its own test files carry 00 00 03 as data)."""
    if len(nal) < 2 or nal_type(nal) != 6:
        return None
    position, kind = 1, 0
    while position < len(nal) and nal[position] == 0xFF:
        kind, position = kind + 255, position + 1
    if position >= len(nal) or kind + nal[position] != 5:
        return None
    position += 1
    while position < len(nal) and nal[position] == 0xFF:
        position += 1
    position += 1  # the last byte of the payload size
    if nal[position:position + 16] != SIGNING_UUID or len(nal) <= position + 16:
        return None
    return nal[position + 16]


def is_signing_sei(nal):
    return signing_sei_reserved_byte(nal) is not None


def is_gop_sei(nal):
    """A signing SEI that signs a (partial) GOP, not the one that carries the certificates."""
    reserved = signing_sei_reserved_byte(nal)
    return reserved is not None and not reserved & CERTIFICATE_SEI_FLAG


def is_certificate_sei(nal):
    reserved = signing_sei_reserved_byte(nal)
    return reserved is not None and bool(reserved & CERTIFICATE_SEI_FLAG)


def describe_nals(nals):
    """A short picture of NAL units: types, G for a GOP SEI, C for a certificate SEI, S for another SEI."""
    def one(nal):
        if is_gop_sei(nal):
            return "G"
        if is_certificate_sei(nal):
            return "C"
        return "S" if nal_type(nal) == 6 else str(nal_type(nal))
    return " ".join(one(nal) for nal in nals)


# ---------------------------------------------------------------------------------------
# MP4: the video track's samples, and a new file made of (changed) samples


CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"mvex", b"udta"}


@dataclasses.dataclass
class Box:
    kind: bytes
    start: int  # offset of the header in the file
    header: int
    size: int
    children: list = dataclasses.field(default_factory=list)

    def payload(self, data):
        return data[self.start + self.header:self.start + self.size]

    def child(self, kind):
        found = [box for box in self.children if box.kind == kind]
        return found[0] if found else None


def parse_boxes(data, start, end, containers=CONTAINERS):
    boxes, offset = [], start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[offset + 8:offset + 16])[0], 16
        elif size == 0:
            size = end - offset
        if size < header or offset + size > end:
            raise ValueError(f"box {kind!r} at {offset} of size {size} runs past {end}")
        box = Box(kind, offset, header, size)
        if kind in containers:
            box.children = parse_boxes(data, offset + header, offset + size, containers)
        boxes.append(box)
        offset += size
    return boxes


@dataclasses.dataclass
class Sample:
    data: bytes
    duration: int
    composition_offset: int
    sync: bool


@dataclasses.dataclass
class VideoTrack:
    path: Path
    data: bytes  # the whole file
    boxes: list
    moov: Box
    trak: Box
    length_size: int
    timescale: int
    samples: list

    def nals(self, sample):
        return split_nals(sample.data, self.length_size)


def full_box(payload):
    return payload[0], payload[4:]  # version, the rest after version and flags


def read_video_track(path):
    """The one video track of an MP4 (progressive: moov sample tables) with its samples' bytes."""
    data = Path(path).read_bytes()
    boxes = parse_boxes(data, 0, len(data))
    moovs = [box for box in boxes if box.kind == b"moov"]
    assert len(moovs) == 1, f"{path}: {len(moovs)} moov boxes"
    moov = moovs[0]
    assert not any(box.kind == b"moof" for box in boxes), f"{path} is fragmented: this reader takes progressive MP4s"
    videos = []
    for trak in (box for box in moov.children if box.kind == b"trak"):
        hdlr = trak.child(b"mdia").child(b"hdlr").payload(data)
        if hdlr[8:12] == b"vide":
            videos.append(trak)
    assert len(videos) == 1, f"{path}: {len(videos)} video tracks"
    trak = videos[0]
    mdia = trak.child(b"mdia")
    version, mdhd = full_box(mdia.child(b"mdhd").payload(data))
    timescale = struct.unpack(">I", mdhd[16:20] if version == 1 else mdhd[8:12])[0]
    stbl = mdia.child(b"minf").child(b"stbl")

    def table(kind):
        box = stbl.child(kind)
        return box.payload(data) if box else None

    stsd = table(b"stsd")
    entry_kind = stsd[12:16]
    assert entry_kind in (b"avc1", b"avc3", b"hvc1", b"hev1"), f"{path}: sample entry {entry_kind!r}"
    config_kind = b"avcC" if entry_kind.startswith(b"avc") else b"hvcC"
    at = stsd.find(config_kind)
    assert at > 0, f"{path}: no {config_kind!r}"
    config = stsd[at + 4:]
    length_size = (config[4] & 3) + 1 if config_kind == b"avcC" else (config[21] & 3) + 1

    assert table(b"stz2") is None, f"{path}: stz2 is not read here"
    _, stsz = full_box(table(b"stsz"))
    uniform, count = struct.unpack(">II", stsz[:8])
    sizes = [uniform] * count if uniform else list(struct.unpack(f">{count}I", stsz[8:8 + 4 * count]))

    _, stts = full_box(table(b"stts"))
    durations = []
    for index in range(struct.unpack(">I", stts[:4])[0]):
        run, delta = struct.unpack(">II", stts[4 + 8 * index:12 + 8 * index])
        durations += [delta] * run
    assert len(durations) == count, f"{path}: stts covers {len(durations)} of {count} samples"

    offsets_ctts = [0] * count
    if table(b"ctts") is not None:
        version, ctts = full_box(table(b"ctts"))
        position = 0
        for index in range(struct.unpack(">I", ctts[:4])[0]):
            run, offset = struct.unpack(">Ii" if version else ">II", ctts[4 + 8 * index:12 + 8 * index])
            offsets_ctts[position:position + run] = [offset] * run
            position += run

    syncs = None
    if table(b"stss") is not None:
        _, stss = full_box(table(b"stss"))
        number = struct.unpack(">I", stss[:4])[0]
        syncs = set(struct.unpack(f">{number}I", stss[4:4 + 4 * number]))

    if table(b"co64") is not None:
        _, co64 = full_box(table(b"co64"))
        number = struct.unpack(">I", co64[:4])[0]
        chunk_offsets = list(struct.unpack(f">{number}Q", co64[4:4 + 8 * number]))
    else:
        _, stco = full_box(table(b"stco"))
        number = struct.unpack(">I", stco[:4])[0]
        chunk_offsets = list(struct.unpack(f">{number}I", stco[4:4 + 4 * number]))
    _, stsc = full_box(table(b"stsc"))
    entries = [struct.unpack(">III", stsc[4 + 12 * i:16 + 12 * i]) for i in range(struct.unpack(">I", stsc[:4])[0])]
    sample_offsets = []
    for index, (first_chunk, per_chunk, _) in enumerate(entries):
        last_chunk = entries[index + 1][0] - 1 if index + 1 < len(entries) else len(chunk_offsets)
        for chunk in range(first_chunk, last_chunk + 1):
            offset = chunk_offsets[chunk - 1]
            for _ in range(per_chunk):
                if len(sample_offsets) < count:
                    sample_offsets.append(offset)
                    offset += sizes[len(sample_offsets) - 1]
    assert len(sample_offsets) == count, f"{path}: stsc/stco place {len(sample_offsets)} of {count} samples"

    samples = [Sample(data[offset:offset + size], duration, composition, syncs is None or number + 1 in syncs)
               for number, (offset, size, duration, composition)
               in enumerate(zip(sample_offsets, sizes, durations, offsets_ctts))]
    return VideoTrack(Path(path), data, boxes, moov, trak, length_size, timescale, samples)


def split_nals(sample, length_size=4):
    nals, position = [], 0
    while position < len(sample):
        size = int.from_bytes(sample[position:position + length_size], "big")
        position += length_size
        assert size > 0 and position + size <= len(sample), f"a NAL unit of {size} bytes runs past its sample"
        nals.append(sample[position:position + size])
        position += size
    return nals


def join_nals(nals, length_size=4):
    return b"".join(len(nal).to_bytes(length_size, "big") + nal for nal in nals)


def box_bytes(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def full_box_bytes(kind, version, payload, flags=0):
    return box_bytes(kind, struct.pack(">I", (version << 24) | flags) + payload)


def write_mp4(track, samples, path):
    """A progressive MP4 holding `samples` (of `track`'s kind): `track`'s ftyp and moov with
    new sample tables (one chunk, after ftyp), no edit list and no mvex; any other track dropped."""
    data = track.data
    ftyp = next(box for box in track.boxes if box.kind == b"ftyp")
    head = data[ftyp.start:ftyp.start + ftyp.size]
    media = b"".join(sample.data for sample in samples)
    mdat_header = struct.pack(">I4sQ", 1, b"mdat", 16 + len(media))
    media_offset = len(head) + len(mdat_header)
    total = sum(sample.duration for sample in samples)

    def stbl_bytes(stbl):
        tables = [data[stbl.child(b"stsd").start:stbl.child(b"stsd").start + stbl.child(b"stsd").size]]
        runs = []
        for sample in samples:
            if runs and runs[-1][1] == sample.duration:
                runs[-1][0] += 1
            else:
                runs.append([1, sample.duration])
        tables.append(full_box_bytes(b"stts", 0, struct.pack(">I", len(runs)) + b"".join(struct.pack(">II", *r) for r in runs)))
        if any(sample.composition_offset for sample in samples):
            runs = []
            for sample in samples:
                if runs and runs[-1][1] == sample.composition_offset:
                    runs[-1][0] += 1
                else:
                    runs.append([1, sample.composition_offset])
            tables.append(full_box_bytes(b"ctts", 1, struct.pack(">I", len(runs)) + b"".join(struct.pack(">Ii", *r) for r in runs)))
        if not all(sample.sync for sample in samples):
            numbers = [number + 1 for number, sample in enumerate(samples) if sample.sync]
            tables.append(full_box_bytes(b"stss", 0, struct.pack(f">I{len(numbers)}I", len(numbers), *numbers)))
        tables.append(full_box_bytes(b"stsc", 0, struct.pack(">IIII", 1, 1, len(samples), 1)))
        tables.append(full_box_bytes(b"stsz", 0, struct.pack(f">II{len(samples)}I", 0, len(samples), *(len(s.data) for s in samples))))
        tables.append(full_box_bytes(b"co64", 0, struct.pack(">IQ", 1, media_offset)))
        return box_bytes(b"stbl", b"".join(tables))

    def duration_patched(box, timescale_of):
        payload = bytearray(box.payload(data))
        version = payload[0]
        if box.kind in (b"mvhd", b"mdhd"):
            scale_at, duration_at = (20, 24) if version == 1 else (12, 16)
            scale = struct.unpack(">I", payload[scale_at:scale_at + 4])[0]
        else:  # tkhd: in the movie's time scale
            duration_at, scale = (28 if version == 1 else 20), timescale_of
        value = total * scale // track.timescale
        if version == 1:
            payload[duration_at:duration_at + 8] = struct.pack(">Q", value)
        else:
            payload[duration_at:duration_at + 4] = struct.pack(">I", min(value, 0xFFFFFFFF))
        return box_bytes(box.kind, bytes(payload))

    version, mvhd = full_box(track.moov.child(b"mvhd").payload(data))
    movie_scale = struct.unpack(">I", mvhd[16:20] if version == 1 else mvhd[8:12])[0]

    def rebuild(box):
        if box.kind in (b"mvhd", b"mdhd", b"tkhd"):
            return duration_patched(box, movie_scale)
        if box.kind == b"stbl":
            return stbl_bytes(box)
        if box.kind in (b"edts", b"mvex") or (box.kind == b"trak" and box is not track.trak):
            return b""
        if box.kind in (b"moov", b"trak", b"mdia", b"minf"):
            return box_bytes(box.kind, b"".join(rebuild(child) for child in box.children))
        return data[box.start:box.start + box.size]

    Path(path).write_bytes(head + mdat_header + media + rebuild(track.moov))
    return Path(path)


def parameter_sets(track):
    """The SPS and PPS NAL units of an avcC (the sample entry's decoder configuration)."""
    data = track.data
    stsd = track.trak.child(b"mdia").child(b"minf").child(b"stbl").child(b"stsd").payload(data)
    at = stsd.find(b"avcC")
    assert at > 0, f"{track.path}: no avcC"
    config, position, sets = stsd[at + 4:], 5, []
    for mask in (0x1F, 0xFF):  # the SPS count is in the low 5 bits, the PPS count a whole byte
        count = config[position] & mask
        position += 1
        for _ in range(count):
            size = int.from_bytes(config[position:position + 2], "big")
            sets.append(config[position + 2:position + 2 + size])
            position += 2 + size
    return sets


def write_annexb(track, samples, path):
    """The samples as a raw Annex B stream (what the validator reads for a name not .mp4/.mkv),
    the avcC's SPS and PPS first, as an RTSP client or `ffmpeg -bsf:v h264_mp4toannexb` gives them."""
    with open(path, "wb") as output:
        for nal in parameter_sets(track):
            output.write(b"\x00\x00\x00\x01" + nal)
        for sample in samples:
            for nal in track.nals(sample):
                output.write(b"\x00\x00\x00\x01" + nal)
    return Path(path)
