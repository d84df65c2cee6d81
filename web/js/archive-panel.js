// The archive tier: chunks copied to an S3-compatible bucket so ranges outlive the ring.
// Lag and backlog say how far behind the copy is; chunks evicted before they were copied
// are footage the archive will never have.
import { byId, element, showFacts, showPill } from './dom.js';
import { formatBytes, formatCount, formatDateTime, formatDuration } from './format.js';

const states = {
  starting: ['starting', 'idle'],
  uploading: ['uploading', 'ok'],
  idle: ['up to date', 'ok'],
  retrying: ['failing, retrying', 'bad'],
};

/** archive is /api/status's archive object; a node that does not archive gets no panel. */
export function showArchive(archive, problems) {
  const panel = byId('archive-panel');
  panel.hidden = !archive?.enabled;
  if (!archive?.enabled) return;

  const [word, tone] = states[archive.state] ?? [archive.state, 'idle'];
  const lagging = (problems ?? []).filter((problem) => problem.startsWith('archive'));
  showPill(byId('archive-state'), word, tone === 'ok' && lagging.length > 0 ? 'warn' : tone);
  panel.classList.toggle('needs-attention', lagging.length > 0 || archive.evictedBeforeArchive > 0);
  byId('archive-problems').replaceChildren(...lagging.map((problem) => element('li', {}, [problem])));
  showFacts(byId('archive-facts'), [
    ['Bucket', `${archive.bucket} (${archive.prefix})`],
    ['Endpoint', archive.endpoint],
    ['Lag', archive.backlogChunks > 0 ? formatDuration(archive.lagMs / 1000) : 'none'],
    ['Backlog', `${formatCount(archive.backlogChunks)} chunks, ${formatBytes(archive.backlogBytes)}`],
    ['Upload rate', `${formatBytes(archive.uploadBytesPerSecond)}/s`],
    ['Archived', `${formatCount(archive.chunksArchived)} chunks, ${formatBytes(archive.bytesArchived)}`],
    ['Failures', formatCount(archive.uploadFailures)],
    ['Evicted before archived', formatCount(archive.evictedBeforeArchive)],
    ['Last error', archive.lastError ? `${archive.lastError} (${formatDateTime(archive.lastErrorAtMs)})` : 'none'],
  ]);
}
