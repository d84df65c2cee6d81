"""Profile G's search and recording services as a VMS reads them, with a client no one here
wrote (onvif-zeep-async, which checks every answer against ONVIF's own WSDL and schema):
the recording summary, FindRecordings and its results, the recording's information,
FindEvents from a minute before the footage began with the start state, EndSearch, and
the recording service's recordings and job state; the replay service's URI and its
session timeout, set and read back; the services found as a Profile G
client finds them, by GetServices. Run as a script in the clients' network
namespace; prints one JSON object.

usage: search_client.py HOST PORT USER PASSWORD
"""
import asyncio
import datetime as dt
import json
import os
import sys

import onvif
from onvif import ONVIFCamera
from zeep.exceptions import Fault

SCHEMA = "http://www.onvif.org/ver10/schema"


def items(element):
    return {item.Name: item.Value for item in (element.SimpleItem if element is not None else [])}


def search_xaddr(extension):
    """GetCapabilities' Extension/Search/XAddr. zeep reads the Extension's tt: elements into
    its leading xs:any (whose namespace="##other" it does not heed), so they are looked for
    there too, as raw elements."""
    if extension is None:
        return None
    if extension.Search is not None:
        return extension.Search.XAddr
    for element in extension._value_1 or []:
        if element.tag == f"{{{SCHEMA}}}Search":
            return element.findtext(f"{{{SCHEMA}}}XAddr")
    return None


async def search(host, port, user, password):
    result = {}
    camera = ONVIFCamera(host, port, user, password, f"{os.path.dirname(onvif.__file__)}/wsdl/", no_cache=True)
    try:
        await camera.update_xaddrs()
        # Profile G's services are where GetServices says (GetCapabilities names them only in
        # its Extension, which the library's update_xaddrs does not read).
        devicemgmt = await camera.create_devicemgmt_service()
        capabilities = await devicemgmt.GetCapabilities({"Category": "All"})
        result["capabilities_search"] = search_xaddr(capabilities.Extension)
        for service in await devicemgmt.GetServices({"IncludeCapability": False}):
            camera.xaddrs[service.Namespace] = service.XAddr
        result["search_xaddr"] = camera.xaddrs.get("http://www.onvif.org/ver10/search/wsdl")
        result["recording_xaddr"] = camera.xaddrs.get("http://www.onvif.org/ver10/recording/wsdl")
        searching = await camera.create_search_service()
        summary = await searching.GetRecordingSummary()
        result["summary"] = {"from": summary.DataFrom, "until": summary.DataUntil, "recordings": summary.NumberRecordings}

        found = await searching.FindRecordings({"Scope": {}, "KeepAliveTime": dt.timedelta(seconds=30)})
        results = await searching.GetRecordingSearchResults({"SearchToken": found, "WaitTime": dt.timedelta(seconds=1)})
        result["recordings_state"] = results.SearchState
        result["found"] = [
            {"token": information.RecordingToken, "status": information.RecordingStatus,
             "tracks": [{"token": track.TrackToken, "type": track.TrackType, "from": track.DataFrom, "to": track.DataTo}
                        for track in information.Track]}
            for information in results.RecordingInformation or []]
        await searching.EndSearch({"SearchToken": found})

        token = result["found"][0]["token"]
        information = await searching.GetRecordingInformation({"RecordingToken": token})
        result["earliest"] = information.EarliestRecording

        start = summary.DataFrom - dt.timedelta(seconds=60)
        events = await searching.FindEvents({
            "StartPoint": start, "Scope": {"IncludedRecordings": [token]}, "SearchFilter": {}, "IncludeStartState": True,
            "KeepAliveTime": dt.timedelta(seconds=30)})
        result["events"] = []
        for _ in range(20):
            batch = await searching.GetEventSearchResults({"SearchToken": events, "MaxResults": 50, "WaitTime": dt.timedelta(seconds=1)})
            for event in batch.Result or []:
                payload = event.Event.Message._value_1
                result["events"].append({
                    "time": event.Time, "topic": event.Event.Topic._value_1, "start_state": event.StartStateEvent,
                    "source": items(payload.Source), "data": items(payload.Data)})
            if batch.SearchState == "Completed":
                break
        result["events_start"] = start
        ended = await searching.EndSearch({"SearchToken": events})
        result["events_endpoint"] = ended

        recording = await camera.create_recording_service()
        recordings = await recording.GetRecordings()
        result["recordings"] = [item.RecordingToken for item in recordings]
        capabilities = await recording.GetServiceCapabilities()
        result["dynamic_recordings"] = capabilities.DynamicRecordings
        jobs = await recording.GetRecordingJobs()
        state = await recording.GetRecordingJobState({"JobToken": jobs[0].JobToken})
        result["job_state"] = state.State

        result["replay_xaddr"] = camera.xaddrs.get("http://www.onvif.org/ver10/replay/wsdl")
        replay = await camera.create_replay_service()
        uri = await replay.GetReplayUri({"StreamSetup": {"Stream": "RTP-Unicast", "Transport": {"Protocol": "RTSP"}},
                                         "RecordingToken": token})
        result["replay_uri"] = uri
        capabilities = await replay.GetServiceCapabilities()
        result["reverse_playback"] = capabilities.ReversePlayback
        await replay.SetReplayConfiguration({"Configuration": {"SessionTimeout": dt.timedelta(seconds=90)}})
        configuration = await replay.GetReplayConfiguration()
        result["replay_session_timeout_s"] = configuration.SessionTimeout.total_seconds()
    except Fault as fault:
        result["fault"] = str(fault.message)
    finally:
        await camera.close()
    return result


if __name__ == "__main__":
    host, port, user, password = sys.argv[1:5]
    print(json.dumps(asyncio.run(search(host, int(port), user, password)), default=str))
