// The node as an ONVIF camera: what a VMS or Home Assistant is given to add it.
import { byId, showFacts, showPill } from './dom.js';
import { formatCount } from './format.js';

/** onvif is /api/status's onvif object (absent from older nodes). */
export function showOnvif(onvif) {
  const panel = byId('onvif-panel');
  panel.hidden = !onvif;
  if (!onvif) return;
  showPill(byId('onvif-badge'), onvif.enabled ? 'On' : 'Off', onvif.enabled ? 'ok' : 'idle');
  if (!onvif.enabled) {
    showFacts(byId('onvif-facts'), [['To turn it on', 'onvif.enabled: true in the node\'s config']]);
    return;
  }
  // The address this page reached the node on is one a VMS on the same network can reach too.
  showFacts(byId('onvif-facts'), [
    ['Device service', `${location.protocol}//${location.host}${onvif.deviceServicePath}`],
    ['User', onvif.user],
    ['Password', 'the node\'s access token'],
    ['Discovery', onvif.discovery ? 'answers WS-Discovery probes' : 'off: add the node by address'],
    ['Event subscriptions', formatCount(onvif.eventSubscriptions)],
  ]);
}
