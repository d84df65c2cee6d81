// The node's wall clock, which dates every chunk: the kernel's own verdict on it (adjtimex,
// as an NTP or PTP daemon last set it) and, once the uplink has measured it, the offset to
// the edge server's clock.
import { byId, element, showPill } from './dom.js';
import { formatAgo, formatCount, formatMilliseconds, millisecondDecimals } from './format.js';
import { nodeNowMs } from './node-clock.js';

// adjtimex's answer in words; "error" is TIME_ERROR, which the kernel keeps while unsynchronised.
const kernelStates = {
  ok: 'ok',
  insert: 'ok, a leap second will be inserted at midnight UTC',
  delete: 'ok, a leap second will be deleted at midnight UTC',
  leap: 'leap second in progress',
  wait: 'ok, a leap second has just passed',
  error: 'error: not synchronised',
};


/** The problems /api/health lists about the clocks; they light the panel up. */
function clockProblems(problems) {
  return (problems ?? []).filter((problem) => problem.startsWith('clock:') || problem.startsWith('edge clock:'));
}

/** status is GET /api/status; a node too old to report its clock gets no panel. */
export function showClock(status) {
  const clock = status.clock ?? status.health?.clock;
  const panel = byId('clock-panel');
  panel.hidden = !clock;
  if (!clock) return;

  const problems = clockProblems(status.health?.problems);
  panel.classList.toggle('needs-attention', !clock.synchronized || problems.length > 0);
  showPill(byId('clock-sync'), clock.synchronized ? 'synchronised' : 'not synchronised', clock.synchronized ? 'ok' : 'warn');
  byId('clock-problems').replaceChildren(...problems.map((problem) => element('li', {}, [problem])));

  byId('clock-error').textContent = formatMilliseconds(clock.estimatedErrorMs);
  byId('clock-max-error').textContent = formatMilliseconds(clock.maximumErrorMs);
  // The node reports a problem beyond this limit (only /api/status has it).
  byId('clock-max-error-limit').textContent =
    clock.maxErrorLimitMs == null ? '' : `(limit ${formatMilliseconds(clock.maxErrorLimitMs)})`;
  byId('clock-kernel-state').textContent = kernelStates[clock.kernelState] ?? clock.kernelState ?? '—';
  const edgeClock = status.uplink?.edgeClock !== undefined ? status.uplink.edgeClock : status.health?.edgeClock;
  byId('clock-time-reference').textContent = uplinkTimes(status.uplink?.timeReference, edgeClock);
  // Only /api/status says what the node requires of its clock.
  const required = clock.syncRequired;
  byId('clock-sync-required-label').hidden = required == null;
  byId('clock-sync-required').hidden = required == null;
  byId('clock-sync-required').textContent = required ? 'yes' : 'no';

  showEdgeClock(edgeClock ?? null, status.uplink ?? {}, problems.some((problem) => problem.startsWith('edge clock:')));
}

/**
 * Which clock the times on the uplink (chunkSaved out, uploadTimeRange in) are in: with
 * uplink.timeReference "edge", the edge server's once its offset is measured.
 */
function uplinkTimes(reference, edgeClock) {
  if (reference === 'edge') return edgeClock ? "edge server's clock" : "node's clock until the edge's is measured";
  if (reference === 'node') return "node's clock";
  return reference ?? '—';
}

function showEdgeClock(edgeClock, uplink, hasProblem) {
  const state = byId('edge-clock-state');
  const facts = byId('edge-clock-facts');
  facts.hidden = !edgeClock;
  state.hidden = !!edgeClock;
  if (!edgeClock) {
    state.textContent = notMeasuredReason(uplink);
    return;
  }
  const offset = byId('edge-offset');
  offset.textContent = formatOffset(edgeClock.offsetMs, edgeClock.uncertaintyMs);
  offset.classList.toggle('is-warning', hasProblem);
  // offsetMs is the edge server's clock minus the node's; the words follow the sign as shown.
  const sign = offset.textContent[0];
  byId('edge-direction').textContent = sign === '+' ? '(edge ahead)' : sign === '-' ? '(edge behind)' : '';
  byId('edge-drift').textContent = edgeClock.driftMsPerS == null ? 'measuring…' : formatDrift(edgeClock.driftMsPerS);
  const quality = byId('edge-quality');
  quality.textContent = edgeClock.quality ?? '—';
  quality.classList.toggle('is-warning', edgeClock.quality === 'poor');
  byId('edge-samples').textContent =
    `(${plural(edgeClock.bursts, 'burst')}, ${plural(edgeClock.samplesUsed, 'sample')})`;
  byId('edge-measured').textContent = formatAgo(edgeClock.lastMeasuredMs, nodeNowMs());
  byId('edge-server').textContent = edgeClock.server ? `from ${edgeClock.server}` : '';
}

function notMeasuredReason(uplink) {
  switch (uplink.state) {
    case 'off': return 'The uplink is off, so there is no edge server clock to compare with.';
    case 'discovering': return 'Not measured yet: looking for an edge server.';
    case 'connecting': return 'Not measured yet: connecting to the edge server.';
    case 'waiting': return 'Not measured yet: the uplink is waiting to reconnect.';
    default: return 'Not measured yet.';
  }
}

/** "+3200.4 ms ± 0.6 ms": the offset to as many decimals as its uncertainty has. */
function formatOffset(offsetMs, uncertaintyMs) {
  if (uncertaintyMs == null) return formatMilliseconds(offsetMs, { signed: true });
  const decimals = millisecondDecimals(uncertaintyMs);
  return `${formatMilliseconds(offsetMs, { decimals, signed: true })} ± ${formatMilliseconds(uncertaintyMs, { decimals })}`;
}

/** How fast the offset changes, in ms per second (0.010 ms/s is 10 ppm). */
function formatDrift(msPerS) {
  const size = Math.abs(msPerS);
  const decimals = size >= 1 ? 2 : size >= 0.01 ? 3 : 4;
  const rounded = Number(msPerS.toFixed(decimals)) || 0;
  return `${rounded > 0 ? '+' : ''}${rounded.toFixed(decimals)} ms/s`;
}

function plural(count, noun) {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
