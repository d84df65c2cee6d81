// Who else holds a WebSocket to this node: edge servers, dashboards (this page included).
import { byId, element } from './dom.js';
import { formatAgo } from './format.js';
import { nodeNowMs } from './node-clock.js';

export function showPeers(peers) {
  const list = byId('peer-list');
  if (peers.length === 0) {
    list.replaceChildren(element('li', { class: 'muted' }, ['No peers connected.']));
    return;
  }
  const now = nodeNowMs();
  list.replaceChildren(...peers.map((peer) => element('li', { class: 'peer' }, [
    element('strong', {}, [peer.name || 'unnamed peer']),
    element('span', { class: 'muted' }, [` ${peer.address}, connected ${formatAgo(peer.connectedAtMs, now)}`]),
  ])));
}
