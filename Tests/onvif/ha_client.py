"""Home Assistant's ONVIF set-up, as its integration runs it (homeassistant/components/onvif:
config_flow.py and device.py), with onvif-zeep-async: a client no one here wrote. Run as a
script with the python of the venv that holds the version under test, in the clients'
network namespace; prints one JSON object of what it found.

usage: ha_client.py HOST PORT USER PASSWORD
"""
import asyncio
import datetime as dt
import json
import os
import sys
from importlib.metadata import version

import onvif
from onvif import ONVIFCamera
from onvif.util import is_auth_error
from zeep.exceptions import Fault


async def set_up(host, port, user, password):
    result = {"library": version("onvif-zeep-async")}
    # As Home Assistant makes it: the package's own WSDL files, no cache.
    camera = ONVIFCamera(host, port, user, password, f"{os.path.dirname(onvif.__file__)}/wsdl/", no_cache=True)
    try:
        # config_flow: update_xaddrs, then the unique id (first enabled interface's MAC, else
        # the serial number), then the media profiles with an H264 one.
        await camera.update_xaddrs()
        result["xaddrs"] = dict(camera.xaddrs)
        device = await camera.create_devicemgmt_service()
        interfaces = await device.GetNetworkInterfaces()
        result["macs"] = [i.Info.HwAddress for i in interfaces if i.Enabled and i.Info]
        information = await device.GetDeviceInformation()
        result["serial"] = information.SerialNumber
        media = await camera.create_media_service()
        profiles = await media.GetProfiles()
        result["profiles"] = [
            {"token": p.token, "encoding": p.VideoEncoderConfiguration.Encoding,
             "width": p.VideoEncoderConfiguration.Resolution.Width, "height": p.VideoEncoderConfiguration.Resolution.Height,
             "fps": p.VideoEncoderConfiguration.RateControl.FrameRateLimit,
             "bitrate": p.VideoEncoderConfiguration.RateControl.BitrateLimit,
             "gop": p.VideoEncoderConfiguration.H264.GovLength}
            for p in profiles if p.VideoEncoderConfiguration]
        # device.py: capabilities, the camera's clock, its information, media capabilities,
        # then per H264 profile its stream URI; the camera entity fetches snapshots.
        capabilities = await device.GetCapabilities({"Category": "All"})
        result["media_xaddr"] = capabilities.Media.XAddr
        clock = await device.GetSystemDateAndTime()
        utc = clock.UTCDateTime
        camera_time = dt.datetime(utc.Date.Year, utc.Date.Month, utc.Date.Day, utc.Time.Hour, utc.Time.Minute, utc.Time.Second,
                                  tzinfo=dt.timezone.utc)
        result["clock_offset_s"] = (camera_time - dt.datetime.now(dt.timezone.utc)).total_seconds()
        result["clock_type"] = clock.DateTimeType
        result["manufacturer"] = information.Manufacturer
        result["model"] = information.Model
        result["firmware"] = information.FirmwareVersion
        media_capabilities = await media.GetServiceCapabilities()
        result["snapshot_capable"] = bool(media_capabilities and media_capabilities.SnapshotUri)
        token = result["profiles"][0]["token"]
        request = media.create_type("GetStreamUri")
        request.ProfileToken = token
        request.StreamSetup = {"Stream": "RTP-Unicast", "Transport": {"Protocol": "RTSP"}}
        result["stream_uri"] = (await media.GetStreamUri(request)).Uri
        result["snapshot_uri"] = await camera.get_snapshot_uri(token)
        snapshot = await camera.get_snapshot(token)
        result["snapshot_bytes"] = len(snapshot or b"")
        result["snapshot_is_jpeg"] = bool(snapshot) and snapshot[:3] == b"\xff\xd8\xff"
    except Fault as fault:
        result["fault"] = str(fault.message)
        result["fault_subcodes"] = [str(code) for code in (fault.subcodes or [])]
        result["auth_error"] = is_auth_error(fault)
    finally:
        await camera.close()
    return result


if __name__ == "__main__":
    host, port, user, password = sys.argv[1:5]
    print(json.dumps(asyncio.run(set_up(host, int(port), user, password)), default=str))
