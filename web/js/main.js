// Wires the dashboard together: access first, then the panels, fed by one status poll,
// the live view and the node's WebSocket pushes.
import { ApiError, getJSON, whenUnauthorized } from './api.js';
import { showArchive } from './archive-panel.js';
import { ChunkPlayer } from './chunk-player.js';
import { chunkFromSavedEvent } from './chunks.js';
import { showClock } from './clock-panel.js';
import { ConfigForm } from './config-form.js';
import { byId, showPill } from './dom.js';
import { showHealth } from './health-panel.js';
import { LiveEvents } from './live-events.js';
import { startLiveView } from './live-view.js';
import { syncNodeClock } from './node-clock.js';
import { showOnvif } from './onvif-panel.js';
import { showPeers } from './peers-panel.js';
import { RangePicker } from './range-picker.js';
import { showRecorder } from './recorder-panel.js';
import { repeatWhileVisible } from './repeat-while-visible.js';
import { showStorage } from './storage-gauge.js';
import { Timeline } from './timeline.js';
import { ensureAccess } from './token-gate.js';
import { showUplink } from './uplink-panel.js';

// Recorder numbers and health have no push event, so they are polled; chunks are pushed.
const statusRefreshMs = 2000;
const unreachableRetryMs = 3000;

const connection = byId('connection-state');
const live = new LiveEvents();
let nodeReachable = true;

function showConnection() {
  if (!nodeReachable) showPill(connection, 'Node unreachable', 'bad');
  else if (live.isOpen) showPill(connection, 'Live', 'ok');
  else showPill(connection, 'Live updates reconnecting…', 'warn');
}

async function firstStatus() {
  for (;;) {
    try {
      return await ensureAccess();
    } catch (error) {
      showPill(connection, `Node unreachable: ${error.message}`, 'bad');
      await new Promise((resolve) => setTimeout(resolve, unreachableRetryMs));
    }
  }
}

function showStatus(status, timeline) {
  syncNodeClock(status.health.timestamp);
  showRecorder(status);
  showHealth(status.health);
  showClock(status);
  showStorage(status.store);
  showArchive(status.archive, status.health.problems);
  showUplink(status.uplink, status.uploads, status.announcement);
  showOnvif(status.onvif);
  showPeers(status.peers);
  timeline.followStore(status.store.oldestMs);
}

async function start() {
  byId('node-host').textContent = location.host;
  // A failure other than a refused token shows through the status poll as an unreachable node.
  whenUnauthorized(() => ensureAccess().catch(() => {}));
  const status = await firstStatus();

  const player = new ChunkPlayer({ onShow: (chunk) => timeline.markPlaying(chunk) });
  const timeline = new Timeline({ onPick: (chunk) => player.play(chunk) });
  // First, so the node's clock is known before anything computes "now".
  showStatus(status, timeline);
  const configForm = new ConfigForm();
  new RangePicker({ onPlay: (chunk) => player.play(chunk) });
  startLiveView();
  configForm.load();
  timeline.load();

  let socketDown = false;
  repeatWhileVisible(async () => {
    try {
      const next = await getJSON('/api/status');
      nodeReachable = true;
      showStatus(next, timeline);
      // While the socket is down (a restart, or a proxy that drops WebSockets), new chunks are found by polling.
      if (socketDown && next.store.newestMs > timeline.newestMs) timeline.load();
    } catch (error) {
      // An HTTP error still means the node answered; a refused token prompts through whenUnauthorized.
      nodeReachable = error instanceof ApiError;
    }
    showConnection();
  }, statusRefreshMs);

  live.addEventListener('open', () => {
    // Chunks saved while the socket was down never reached this page as pushes.
    if (socketDown) timeline.load();
    socketDown = false;
    showConnection();
  });
  live.addEventListener('close', () => {
    socketDown = true;
    showConnection();
  });
  live.addEventListener('chunkSaved', (event) => timeline.add(chunkFromSavedEvent(event.detail)));
  live.addEventListener('clientConfig', (event) => configForm.showServerConfig(event.detail.config));
  live.connect();
}

start();
