// The node's own verdict on itself (/api/health inside /api/status) and why.
import { byId, element, showFacts, showPill } from './dom.js';
import { formatDuration } from './format.js';

const tones = { ok: 'ok', degraded: 'warn', error: 'bad' };

export function showHealth(health) {
  showPill(byId('health-badge'), health.status, tones[health.status] ?? 'idle');
  byId('health-problems').replaceChildren(...health.problems.map((problem) => element('li', {}, [problem])));
  showFacts(byId('health-facts'), [
    ['Up for', formatDuration(health.uptime)],
    ['Last frame', health.lastFrameAgeMs == null ? null : `${formatDuration(health.lastFrameAgeMs / 1000)} ago`],
    ['Store writable', health.store.writable ? 'yes' : 'no'],
  ]);
}
