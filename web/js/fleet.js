// The Fleet page: every node the bucket or mDNS knows; "export this range from all",
// which runs the same fetch as `allspark-node fleet fetch` on this node and offers the
// result as one zip (one folder per node and manifest.json); and "hold this range on all",
// the same as `allspark-node fleet hold`.
import { getBlob, getJSON, postJSON } from './api.js';
import { byId, element, showAlert } from './dom.js';
import { formatAgo, formatBytes, formatDateTime } from './format.js';
import { fromLocalInputValue, toLocalInputValue } from './local-time-input.js';
import { ensureAccess } from './token-gate.js';

const exportPollMs = 1000;

function extentText(extent) {
  return extent ? `${formatDateTime(extent.firstMs)} – ${formatDateTime(extent.lastMs)}` : '—';
}

function clockText(node) {
  const clock = node.live?.clock ?? node.record?.clock;
  if (!clock) return 'unknown';
  return clock.synchronized ? 'synchronised' : 'NOT synchronised';
}

function nodeRow(node, nowMs) {
  const online = Boolean(node.live);
  return element('tr', { dataset: { nodeId: node.id } }, [
    element('td', {}, [node.name]),
    element('td', {}, [element('span', { class: `pill pill-${online ? 'ok' : 'bad'}` }, [online ? 'online' : 'offline'])]),
    element('td', {}, [online ? 'now' : formatAgo(node.record?.lastSeenMs, nowMs)]),
    element('td', {}, [extentText(node.live?.ring ?? node.record?.ring)]),
    element('td', {}, [extentText(node.record?.archive)]),
    element('td', {}, [clockText(node)]),
  ]);
}

async function showFleet() {
  const status = byId('fleet-status');
  status.textContent = 'Looking for nodes…';
  try {
    const fleet = await getJSON('/api/fleet');
    const nowMs = Date.now();
    byId('fleet-nodes').replaceChildren(...fleet.nodes.map((node) => nodeRow(node, nowMs)));
    const online = fleet.nodes.filter((node) => node.live).length;
    status.textContent = `${fleet.nodes.length} nodes, ${online} online`;
    showAlert(byId('fleet-error'), [fleet.bucketError, fleet.mdnsError].filter(Boolean).join('; ') || null);
  } catch (error) {
    status.textContent = '';
    showAlert(byId('fleet-error'), `Cannot list the fleet: ${error.message}`);
  }
}

async function download(job) {
  const { blob } = await getBlob(`/api/fleet/exports/${job.id}/zip`);
  const link = element('a', { href: URL.createObjectURL(blob), download: `fleet-${job.id}.zip` }, ['Download the zip']);
  byId('export-result').replaceChildren(link, ` (${formatBytes(job.zipBytes)}; on the node: ${job.folder})`);
}

function showGaps(report) {
  const gaps = report.nodes.flatMap((node) => node.gaps.map((gap) => element('li', {}, [
    `${node.name}: ${formatDateTime(gap.startMs)} – ${formatDateTime(gap.endMs)} `,
    element('strong', {}, [gap.reason]), `: ${gap.detail}`,
  ])));
  byId('export-gaps').replaceChildren(...gaps);
}

async function follow(job) {
  const status = byId('export-status');
  const progress = byId('export-progress');
  progress.hidden = false;
  for (;;) {
    const current = await getJSON(`/api/fleet/exports/${job.id}`);
    progress.max = Math.max(current.nodesTotal, 1);
    progress.value = current.nodesDone;
    status.textContent = `${current.nodesDone} of ${current.nodesTotal} nodes, ${formatBytes(current.bytes)}`;
    if (current.state === 'failed') throw new Error(current.error);
    if (current.state === 'done') return current;
    await new Promise((resolve) => { setTimeout(resolve, exportPollMs); });
  }
}

async function startExport(event) {
  event.preventDefault();
  const button = byId('export-button');
  const error = byId('export-error');
  showAlert(error, null);
  byId('export-result').replaceChildren();
  byId('export-gaps').replaceChildren();
  const start = fromLocalInputValue(byId('export-start').value);
  const end = fromLocalInputValue(byId('export-end').value);
  if (!(start < end)) {
    showAlert(error, 'The range is backwards or empty: From must be before To.');
    return;
  }
  button.disabled = true;
  try {
    const job = await follow(await postJSON('/api/fleet/exports', { start: start / 1000, end: end / 1000 }));
    const report = job.report;
    const chunks = report.nodes.reduce((sum, node) => sum + node.chunks.length, 0);
    byId('export-status').textContent = `${report.nodes.length} nodes, ${chunks} chunks, `
      + `${report.complete ? 'everything that exists was fetched' : 'NOT complete: ' + report.problems.join('; ')}`;
    showGaps(report);
    await download(job);
  } catch (failure) {
    showAlert(error, `Export failed: ${failure.message}`);
  } finally {
    button.disabled = false;
  }
}

const holdOutcomeText = {
  held: 'held',
  heldInBucket: 'held in the bucket (node down)',
  refused: 'REFUSED',
  failed: 'NOT held',
};

async function placeHold(event) {
  event.preventDefault();
  const button = byId('hold-button');
  const error = byId('hold-error');
  showAlert(error, null);
  byId('hold-results').replaceChildren();
  const start = fromLocalInputValue(byId('hold-start').value);
  const end = fromLocalInputValue(byId('hold-end').value);
  if (!(start < end)) {
    showAlert(error, 'The range is backwards or empty: From must be before To.');
    return;
  }
  button.disabled = true;
  byId('hold-status').textContent = 'Placing the hold on every node…';
  try {
    const report = await postJSON('/api/fleet/holds', { start: start / 1000, end: end / 1000, reason: byId('hold-reason').value });
    const held = report.nodes.filter((node) => node.outcome === 'held' || node.outcome === 'heldInBucket').length;
    byId('hold-status').textContent = `Hold ${report.holdID}: ${held} of ${report.nodes.length} nodes.`;
    byId('hold-results').replaceChildren(...report.nodes.map((node) => element('li', { dataset: { outcome: node.outcome } }, [
      `${node.name}: `, element('strong', {}, [holdOutcomeText[node.outcome] ?? node.outcome]),
      node.bytes != null ? `, ${formatBytes(node.bytes)}` : '', node.detail ? ` (${node.detail})` : '',
    ])));
  } catch (failure) {
    byId('hold-status').textContent = '';
    showAlert(error, `Hold failed: ${failure.message}`);
  } finally {
    button.disabled = false;
  }
}

async function main() {
  await ensureAccess();
  const now = Date.now();
  byId('export-start').value = toLocalInputValue(now - 5 * 60_000);
  byId('export-end').value = toLocalInputValue(now);
  byId('export-form').addEventListener('submit', startExport);
  byId('hold-start').value = toLocalInputValue(now - 5 * 60_000);
  byId('hold-end').value = toLocalInputValue(now);
  byId('hold-form').addEventListener('submit', placeHold);
  byId('fleet-refresh').addEventListener('click', showFleet);
  await showFleet();
}

main();
