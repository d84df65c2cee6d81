// How full the store is; the node deletes the oldest chunks when it reaches the cap.
import { byId, showFacts } from './dom.js';
import { formatBytes, formatCount, formatDateTime } from './format.js';

export function showStorage(store) {
  const percent = store.capBytes > 0 ? Math.min(100, (store.usedBytes / store.capBytes) * 100) : 0;
  const gauge = byId('storage-gauge');
  gauge.setAttribute('aria-valuenow', percent.toFixed(0));
  gauge.classList.toggle('is-full', percent >= 90);
  byId('storage-gauge-fill').style.width = `${percent}%`;
  byId('storage-summary').textContent =
    `${formatBytes(store.usedBytes)} of ${formatBytes(store.capBytes)} (${percent.toFixed(percent < 10 ? 1 : 0)} %)`;
  showFacts(byId('storage-facts'), [
    ['Chunks', formatCount(store.chunks)],
    ['Oldest', formatDateTime(store.oldestMs)],
    ['Newest', formatDateTime(store.newestMs)],
    ['Deleted at cap', formatCount(store.chunksEvicted)],
    ['Deleted while uploading', formatCount(store.pinnedChunksEvicted)],
    ['Directory', store.directory],
  ]);
}
