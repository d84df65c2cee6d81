"""Home Assistant's ONVIF events, as its integration takes them (homeassistant/components/onvif
event.py: a PullPointManager of onvif-zeep-async, a synchronization point, PullMessages with
a limit of 100, each message's topic and its Source and Data items), with a client no one
here wrote. Then a Renew, the manager's shutdown (Unsubscribe) and a pull after it. Run as a
script in the clients' network namespace; prints one JSON object.

usage: events_client.py HOST PORT USER PASSWORD
"""
import asyncio
import datetime as dt
import json
import os
import sys

import onvif
from onvif import ONVIFCamera
from zeep.exceptions import Fault

PULLPOINT = "http://www.onvif.org/ver10/events/wsdl/PullPointSubscription"


def items(element):
    return {item.Name: item.Value for item in (element.SimpleItem if element is not None else [])}


async def take_events(host, port, user, password):
    result = {"messages": []}
    camera = ONVIFCamera(host, port, user, password, f"{os.path.dirname(onvif.__file__)}/wsdl/", no_cache=True)
    try:
        await camera.update_xaddrs()
        result["events_xaddr"] = camera.xaddrs.get("http://www.onvif.org/ver10/events/wsdl")
        events = await camera.create_events_service()
        capabilities = await events.GetServiceCapabilities()
        result["pullpoint_support"] = bool(capabilities.WSPullPointSupport)
        manager = await camera.create_pullpoint_manager(dt.timedelta(minutes=10), lambda: None)
        result["subscription"] = camera.xaddrs[PULLPOINT]
        service = manager.get_service()
        await manager.set_synchronization_point()
        for _ in range(4):
            response = await service.PullMessages({"MessageLimit": 100, "Timeout": dt.timedelta(seconds=5)})
            result["lifetime_s"] = (response.TerminationTime - response.CurrentTime).total_seconds()
            for message in response.NotificationMessage or []:
                payload = message.Message._value_1
                result["messages"].append({
                    "topic": message.Topic._value_1, "operation": payload.PropertyOperation,
                    "source": items(payload.Source), "data": items(payload.Data)})
            if len(result["messages"]) >= 10:
                break
        subscription = await camera.create_subscription_service("PullPointSubscription")
        renewed = await subscription.Renew("PT120S")
        result["renewed_s"] = (renewed.TerminationTime - renewed.CurrentTime).total_seconds()
        await manager.shutdown()
        try:
            await service.PullMessages({"MessageLimit": 1, "Timeout": dt.timedelta(seconds=1)})
            result["pull_after_unsubscribe"] = "answered"
        except Fault as fault:
            result["pull_after_unsubscribe"] = f"fault: {fault.message}"
    except Fault as fault:
        result["fault"] = str(fault.message)
    finally:
        await camera.close()
    return result


if __name__ == "__main__":
    host, port, user, password = sys.argv[1:5]
    print(json.dumps(asyncio.run(take_events(host, int(port), user, password)), default=str))
