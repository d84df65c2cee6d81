// The node's link to its edge server, and what went up it last.
import { byId, showFacts, showPill } from './dom.js';
import { formatAgo, formatBytes, formatCount, formatDateTime, formatDuration } from './format.js';
import { nodeNowMs } from './node-clock.js';

// waiting = between attempts after a failure; discovering = looking for an edge server over mDNS.
const tones = { connected: 'ok', connecting: 'warn', discovering: 'warn', waiting: 'bad', off: 'idle' };

/** announcement is the node's mDNS announcement state (absent from older nodes). */
export function showUplink(uplink, uploads, announcement) {
  showPill(byId('uplink-badge'), uplink.state, tones[uplink.state] ?? 'warn');
  const now = nodeNowMs();
  const lastCommand = uplink.lastCommand ? `${uplink.lastCommand}, ${formatAgo(uplink.lastCommandAtMs, now)}` : 'none yet';
  const lastUpload = uploads.lastAtMs == null
    ? 'none yet'
    : `${formatDateTime(uploads.lastAtMs)}: ${uploads.lastFiles.join(', ') || 'no files'}`;
  showFacts(byId('uplink-facts'), [
    ['Edge server', uplink.url ?? 'none'],
    ['Connected since', uplink.connectedSinceMs == null ? 'not connected' : formatDateTime(uplink.connectedSinceMs)],
    ['Client name', uplink.clientName],
    ['Last command', lastCommand],
    ['Last upload', lastUpload],
    ['Uploaded', `${formatCount(uploads.files)} files, ${formatBytes(uploads.bytes)}`],
    ['Last error', uplink.lastError ?? 'none'],
    ...nextAttemptFacts(uplink, now),
    ['mDNS announcement', announcement],
  ]);
}

// While waiting between attempts: which attempt comes next, and when.
function nextAttemptFacts(uplink, now) {
  if (uplink.nextAttemptAtMs == null) return [];
  const seconds = Math.max(0, (uplink.nextAttemptAtMs - now) / 1000);
  return [['Next attempt', `attempt ${formatCount(uplink.reconnectAttempt)} in ${formatDuration(seconds)}`]];
}
