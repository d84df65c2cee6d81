"""Media2 (the ver20 media service) as onvif-python asks for it: a second client library no
one here wrote, built on zeep and ONVIF's own WSDL files, which finds the service through
GetServices and signs each request with a UsernameToken digest. Run with the python of its
venv (scripts/setup.sh --test) in the clients' network namespace; prints one JSON object.

usage: media2_client.py HOST PORT USER PASSWORD
"""
import json
import sys
from importlib.metadata import version

from onvif import CacheMode, ONVIFClient
from onvif.utils.exceptions import ONVIFOperationException
from zeep.exceptions import Fault

# The library wraps the SOAP Fault it read in an exception of its own.
FAILURES = (Fault, ONVIFOperationException)


def fault_of(error):
    fault = getattr(error, "original_exception", error)
    if not isinstance(fault, Fault):
        raise error
    return {"message": str(fault.message), "subcodes": [str(code) for code in (fault.subcodes or [])]}


def uri_of(answer):
    """zeep hands back a one-element answer as its value; some versions as the element."""
    return answer if isinstance(answer, str) else answer.Uri


def ask(host, port, user, password):
    result = {"library": version("onvif-python")}
    try:
        client = ONVIFClient(host, port, user, password, cache=CacheMode.NONE)
        media2 = client.media2()
        capabilities = media2.GetServiceCapabilities()
        result["snapshot_capable"] = bool(capabilities.SnapshotUri)
        result["rtp_rtsp_tcp"] = bool(capabilities.StreamingCapabilities.RTP_RTSP_TCP)
        result["maximum_profiles"] = capabilities.ProfileCapabilities.MaximumNumberOfProfiles
        bare = media2.GetProfiles()
        result["bare_profiles"] = [{"token": p.token, "configurations": p.Configurations is not None} for p in bare]
        profiles = []
        for profile in media2.GetProfiles(Type=["All"]):
            encoder = profile.Configurations.VideoEncoder
            profiles.append({
                "token": profile.token, "encoding": encoder.Encoding, "width": encoder.Resolution.Width,
                "height": encoder.Resolution.Height, "fps": encoder.RateControl.FrameRateLimit,
                "bitrate": encoder.RateControl.BitrateLimit, "gop": encoder.GovLength, "profile": encoder.Profile, "signed": encoder.Signed,
                "source": profile.Configurations.VideoSource.SourceToken})
        result["profiles"] = profiles
        token = profiles[0]["token"]
        options = media2.GetVideoEncoderConfigurationOptions(ProfileToken=token)
        result["options"] = [{"encoding": o.Encoding, "gov_length_range": list(o.GovLengthRange or []),
                              "resolutions": [(r.Width, r.Height) for r in o.ResolutionsAvailable],
                              "signing": o.SigningSupported} for o in options]
        result["stream_uri"] = uri_of(media2.GetStreamUri(Protocol="RTSP", ProfileToken=token))
        result["stream_uri_udp"] = uri_of(media2.GetStreamUri(Protocol="RtspUnicast", ProfileToken=token))
        result["snapshot_uri"] = uri_of(media2.GetSnapshotUri(ProfileToken=token))
        try:
            media2.GetStreamUri(Protocol="RtspMulticast", ProfileToken=token)
            result["multicast_fault"] = None
        except FAILURES as error:
            result["multicast_fault"] = fault_of(error)
    except FAILURES as error:
        result["fault"] = fault_of(error)
    return result


if __name__ == "__main__":
    host, port, user, password = sys.argv[1:5]
    print(json.dumps(ask(host, int(port), user, password), default=str))
