// Polling stops while the tab is hidden, so a dashboard left open in a background tab or
// on a locked phone costs the node (often a small board) nothing.

/** Runs task now and again intervalMs after each run ends; runs never overlap. */
export function repeatWhileVisible(task, intervalMs) {
  let timer = null;
  let running = false;
  const run = async () => {
    clearTimeout(timer);
    if (running || document.hidden) return;
    running = true;
    try {
      await task();
    } finally {
      running = false;
      timer = setTimeout(run, intervalMs);
    }
  };
  document.addEventListener('visibilitychange', run);
  run();
}
