"""ONVIF Streaming's RTP header extension (0xABAC), as the replay clients read it."""
import struct

NTP_UNIX_OFFSET_S = 2_208_988_800


def onvif_extension(packet):
    """The 0xABAC extension of an RTP packet (RFC 3550 5.3.1) as [unix ms, C, E, D, T], or None."""
    if len(packet) < 12 or not packet[0] & 0x10:
        return None
    offset = 12 + 4 * (packet[0] & 0x0F)
    profile, words = struct.unpack_from("!HH", packet, offset)
    if profile != 0xABAC or words < 3:
        return None
    seconds, fraction, flags = struct.unpack_from("!IIB", packet, offset + 4)
    unix_ms = (seconds - NTP_UNIX_OFFSET_S) * 1000 + fraction * 1000 / 2**32
    return [unix_ms, bool(flags & 0x80), bool(flags & 0x40), bool(flags & 0x20), bool(flags & 0x10)]
