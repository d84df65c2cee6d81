"""Home Assistant's discovery of ONVIF cameras (homeassistant/components/onvif/config_flow.py)
with WSDiscovery, a client no one here wrote: a Probe for the Streaming profile's scope,
then each service's endpoint, types, scopes and XAddrs. Prints them as JSON.

usage: discovery_client.py [SECONDS]
"""
import json
import sys

from wsdiscovery import Scope
from wsdiscovery.discovery import ThreadedWSDiscovery as WSDiscovery

timeout = float(sys.argv[1]) if len(sys.argv) > 1 else 4
discovery = WSDiscovery()
discovery.start()
try:
    services = discovery.searchServices(scopes=[Scope("onvif://www.onvif.org/Profile/Streaming")], timeout=timeout)
    found = [{"epr": service.getEPR(), "types": [f"{t.getNamespace()} {t.getLocalname()}" for t in service.getTypes()],
              "scopes": [str(scope.getValue()) for scope in service.getScopes()], "xaddrs": list(service.getXAddrs())}
             for service in services]
finally:
    discovery.stop()
print(json.dumps(found))
