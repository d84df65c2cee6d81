// The live view: the node's latest privacy-masked frame, fetched about once a second.
import { ApiError, getBlob } from './api.js';
import { byId } from './dom.js';
import { formatClock } from './format.js';
import { repeatWhileVisible } from './repeat-while-visible.js';

const refreshMs = 1000;

export function startSnapshot() {
  const image = byId('snapshot');
  const placeholder = byId('snapshot-placeholder');
  const caption = byId('snapshot-caption');
  let shownUrl = null;

  const showFrame = async () => {
    const { blob, headers } = await getBlob('/api/snapshot.jpg');
    const url = URL.createObjectURL(blob);
    const loaded = new Image();
    loaded.src = url;
    // Decoding off-screen first keeps the old frame up until the new one can be drawn.
    await loaded.decode();
    image.src = url;
    image.hidden = false;
    placeholder.hidden = true;
    if (shownUrl) URL.revokeObjectURL(shownUrl);
    shownUrl = url;
    const captureMs = Number(headers.get('X-Capture-Time-Ms'));
    image.dataset.captureMs = String(captureMs);
    caption.textContent = captureMs ? `Captured ${formatClock(captureMs)}` : '';
  };

  repeatWhileVisible(async () => {
    try {
      await showFrame();
    } catch (error) {
      placeholder.hidden = false;
      placeholder.textContent = error instanceof ApiError && error.status === 503
        ? 'Waiting for the first frame…'
        : `No live view: ${error.message}`;
    }
  }, refreshMs);
}
