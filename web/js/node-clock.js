// The node's clock, not the browser's, decides what "the last 15 minutes" means: a phone
// or laptop clock that is off by minutes would otherwise hide the newest chunks.
let offsetMs = 0;

/** Takes the node's own time (epoch seconds, from /api/health) as the reference. */
export function syncNodeClock(nodeEpochSeconds) {
  offsetMs = nodeEpochSeconds * 1000 - Date.now();
}

export function nodeNowMs() {
  return Date.now() + offsetMs;
}
