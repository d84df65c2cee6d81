// The recordings timeline: one block per chunk over a sliding window that ends now.
// It loads once, then grows from chunkSaved pushes instead of polling the chunk list.
// Holds (evidence locks) show as bands under the track and their chunks as held; the
// line under it says what the age limit deletes next.
import { getJSON } from './api.js';
import { byId, element } from './dom.js';
import { formatBytes, formatClock, formatDuration } from './format.js';
import { nodeNowMs } from './node-clock.js';

const axisLabelCount = 5;
/** Holds change rarely and only by hand: asked again at most this often. */
const holdsRefreshMs = 10_000;

export class Timeline {
  #chunks = new Map();
  #newestMs = 0;
  #playingFile = null;
  #loadRequest = 0;
  #onPick;
  #track = byId('timeline-track');
  #axis = byId('timeline-axis');
  #summary = byId('timeline-summary');
  #span = byId('timeline-span');
  #holdsTrack = byId('timeline-holds');
  #retention = byId('timeline-retention');
  #holds = { holds: [] };
  #holdsAskedMs = 0;

  /** onPick(chunk) is called when the user picks a chunk. */
  constructor({ onPick }) {
    this.#onPick = onPick;
    this.#span.addEventListener('change', () => this.load());
    // A tap anywhere on the track picks the nearest chunk: on a phone a 3-second chunk
    // in a 15-minute window is narrower than a fingertip.
    this.#track.addEventListener('click', (event) => {
      const chunk = this.#chunkByFile(event.target.closest('.chunk-block')?.dataset.file)
        ?? this.#nearestChunk(event.clientX);
      if (chunk) this.#onPick(chunk);
    });
  }

  /** The end of the newest chunk this page has heard of, also after it slid out of the window. */
  get newestMs() {
    return this.#newestMs;
  }

  async load() {
    const request = ++this.#loadRequest;
    const startSeconds = (nodeNowMs() - this.#spanMs()) / 1000;
    try {
      const { chunks } = await getJSON(`/api/chunks?start=${startSeconds.toFixed(3)}`);
      await this.#refreshHolds();
      if (request !== this.#loadRequest) return;
      this.#chunks = new Map(chunks.map((chunk) => [chunk.file, chunk]));
      for (const chunk of chunks) this.#newestMs = Math.max(this.#newestMs, chunk.endMs);
      // Starting the track afresh keeps its buttons, and so the tab order, in time order.
      // Emptied and filled in one step: the track never shows empty while holds are asked.
      this.#track.replaceChildren();
      this.render();
      this.#track.dataset.loadedSpan = this.#span.value;
    } catch (error) {
      this.#summary.textContent = `Could not list the chunks: ${error.message}`;
    }
  }

  add(chunk) {
    this.#chunks.set(chunk.file, chunk);
    this.#newestMs = Math.max(this.#newestMs, chunk.endMs);
    this.render();
  }

  /**
   * Called with every status: slides the window on to now, and forgets the chunks that
   * slid out of it or that the node deleted to stay under its cap (oldestMs is null once
   * the store is empty), so a page left open for days stays small.
   */
  followStore(oldestMs) {
    const { startMs } = this.#window();
    for (const [file, chunk] of this.#chunks) {
      if (oldestMs == null || chunk.startMs < oldestMs || chunk.endMs <= startMs) this.#chunks.delete(file);
    }
    if (Date.now() - this.#holdsAskedMs > holdsRefreshMs) this.#refreshHolds().then(() => this.render());
    this.render();
  }

  markPlaying(chunk) {
    this.#playingFile = chunk.file;
    this.render();
  }

  render() {
    const { startMs, endMs } = this.#window();
    const spanMs = endMs - startMs;
    const visible = this.#visibleChunks(startMs);
    this.#placeBlocks(visible, startMs, spanMs);
    this.#axis.replaceChildren(...Array.from({ length: axisLabelCount }, (_, index) =>
      element('span', {}, [formatClock(startMs + (spanMs * index) / (axisLabelCount - 1))])));
    const recorded = visible.reduce((sum, chunk) => sum + chunk.endMs - chunk.startMs, 0);
    this.#summary.textContent = visible.length === 0
      ? 'No chunks in this window yet.'
      : `${visible.length} chunks, ${formatDuration(recorded / 1000)} recorded; newest ends ${formatClock(this.#newestMs)}.`;
    this.#placeHolds(startMs, spanMs);
  }

  async #refreshHolds() {
    this.#holdsAskedMs = Date.now();
    try {
      this.#holds = await getJSON('/api/holds');
    } catch (error) {
      this.#holds = { holds: [], error: error.message };
    }
  }

  #heldBy(chunk) {
    return this.#holds.holds.filter((hold) => hold.startMs < chunk.endMs + 1 && hold.endMs > chunk.startMs).map((hold) => hold.id);
  }

  /** One band per hold inside the window, and the sentence about holds and the age limit. */
  #placeHolds(startMs, spanMs) {
    const { holds, error, heldBytes, nextAgeDeletion, maxAgeHours } = this.#holds;
    this.#holdsTrack.replaceChildren(...holds.filter((hold) => hold.endMs > startMs).map((hold) => {
      const shownStartMs = Math.max(hold.startMs, startMs);
      const band = element('div', {
        class: 'hold-band',
        title: `Held ${formatClock(hold.startMs)} to ${formatClock(hold.endMs)}: ${hold.reason} (${hold.id})`,
        dataset: { holdId: hold.id },
      });
      band.style.left = `${((shownStartMs - startMs) / spanMs) * 100}%`;
      band.style.width = `${(Math.min(hold.endMs - shownStartMs, startMs + spanMs - shownStartMs) / spanMs) * 100}%`;
      return band;
    }));
    const parts = [];
    if (error) parts.push(`Holds could not be listed: ${error}.`);
    if (holds.length > 0) parts.push(`${holds.length} ${holds.length === 1 ? 'hold keeps' : 'holds keep'} ${formatBytes(heldBytes)}.`);
    if (nextAgeDeletion) {
      parts.push(`Age limit ${maxAgeHours} h: ${nextAgeDeletion.file} is deleted next, at ${formatClock(nextAgeDeletion.atMs)}.`);
    }
    this.#retention.textContent = parts.join(' ');
  }

  /**
   * Keeps one button per chunk across renders and only moves it, so keyboard focus and
   * hover survive the window sliding on every status update.
   */
  #placeBlocks(visible, startMs, spanMs) {
    const kept = new Set(visible.map((chunk) => chunk.file));
    const blocks = new Map();
    for (const block of [...this.#track.children]) {
      if (kept.has(block.dataset.file)) blocks.set(block.dataset.file, block);
      else block.remove();
    }
    for (const chunk of visible) {
      let block = blocks.get(chunk.file);
      if (!block) {
        const label = `${formatClock(chunk.startMs)} to ${formatClock(chunk.endMs)}, ${formatBytes(chunk.bytes)}`;
        block = element('button', {
          type: 'button',
          class: 'chunk-block',
          title: label,
          'aria-label': `Play chunk ${label}`,
          dataset: { file: chunk.file },
        });
        this.#track.append(block);
      }
      // A chunk that began before the window shows only its part inside it.
      const shownStartMs = Math.max(chunk.startMs, startMs);
      block.style.left = `${((shownStartMs - startMs) / spanMs) * 100}%`;
      block.style.width = `${((chunk.endMs - shownStartMs) / spanMs) * 100}%`;
      block.classList.toggle('is-playing', chunk.file === this.#playingFile);
      const heldBy = this.#heldBy(chunk);
      block.classList.toggle('is-held', heldBy.length > 0);
      block.dataset.holds = heldBy.join(' ');
    }
  }

  #spanMs() {
    return Number(this.#span.value) * 1000;
  }

  #window() {
    const endMs = nodeNowMs();
    return { startMs: endMs - this.#spanMs(), endMs };
  }

  #visibleChunks(windowStartMs) {
    return [...this.#chunks.values()]
      .filter((chunk) => chunk.endMs > windowStartMs)
      .sort((a, b) => a.startMs - b.startMs);
  }

  #chunkByFile(file) {
    return file ? this.#chunks.get(file) : undefined;
  }

  #nearestChunk(clientX) {
    const box = this.#track.getBoundingClientRect();
    const { startMs, endMs } = this.#window();
    const timeMs = startMs + ((clientX - box.left) / box.width) * (endMs - startMs);
    const distance = (chunk) => Math.max(chunk.startMs - timeMs, timeMs - chunk.endMs, 0);
    let nearest;
    for (const chunk of this.#visibleChunks(startMs)) {
      if (!nearest || distance(chunk) < distance(nearest)) nearest = chunk;
    }
    return nearest;
  }
}
