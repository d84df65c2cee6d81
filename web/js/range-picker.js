// Finding recordings by time: lists the chunks of a range, and saves the range as one
// clip (the node cuts and joins it) or chunk by chunk.
import { getJSON } from './api.js';
import { byId, element } from './dom.js';
import { chunkFilePath } from './chunks.js';
import { downloadButton, downloadFromApi } from './downloads.js';
import { formatBytes, formatDateTime, formatDuration } from './format.js';
import { fromLocalInputValue, toLocalInputValue } from './local-time-input.js';
import { nodeNowMs } from './node-clock.js';

const defaultRangeMs = 5 * 60 * 1000;
// A day of 3-second chunks is ~29,000 rows; past this the list would only slow the page.
const mostRowsShown = 500;

export class RangePicker {
  #form = byId('range-form');
  #start = byId('range-start');
  #end = byId('range-end');
  #status = byId('range-status');
  #table = byId('range-results');
  #onPlay;

  /** onPlay(chunk) plays a listed chunk. */
  constructor({ onPlay }) {
    this.#onPlay = onPlay;
    const now = nodeNowMs();
    this.#start.value = toLocalInputValue(now - defaultRangeMs);
    this.#end.value = toLocalInputValue(now);
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#list();
    });
    byId('range-clip').addEventListener('click', () => this.#downloadClip());
  }

  /** The range as epoch seconds, or null after telling the user what is wrong with it. */
  #range() {
    const startMs = fromLocalInputValue(this.#start.value);
    const endMs = fromLocalInputValue(this.#end.value);
    if (Number.isNaN(startMs) || Number.isNaN(endMs)) {
      this.#status.textContent = 'Enter both a start and an end time.';
      return null;
    }
    if (startMs >= endMs) {
      this.#status.textContent = 'The start must be before the end.';
      return null;
    }
    return { start: (startMs / 1000).toFixed(3), end: (endMs / 1000).toFixed(3) };
  }

  async #list() {
    const range = this.#range();
    if (!range) return;
    this.#status.textContent = 'Looking for chunks…';
    try {
      const { chunks } = await getJSON(`/api/chunks?start=${range.start}&end=${range.end}`);
      this.#showChunks(chunks);
    } catch (error) {
      this.#status.textContent = `Could not list the chunks: ${error.message}`;
    }
  }

  async #downloadClip() {
    const range = this.#range();
    if (!range) return;
    this.#status.textContent = 'The node is cutting the clip…';
    try {
      const saved = await downloadFromApi(`/api/clip?start=${range.start}&end=${range.end}`, 'clip.mp4');
      this.#status.textContent = `Saved ${saved.name} (${formatBytes(saved.bytes)}).`;
    } catch (error) {
      this.#status.textContent = `No clip: ${error.message}.`;
    }
  }

  #showChunks(chunks) {
    const bytes = chunks.reduce((sum, chunk) => sum + chunk.bytes, 0);
    const shown = chunks.slice(0, mostRowsShown);
    this.#status.textContent = chunks.length === 0
      ? 'No chunks were recorded in that range.'
      : `${chunks.length} chunks, ${formatBytes(bytes)}`
        + (chunks.length > shown.length ? `; showing the first ${shown.length}, narrow the range to see the rest.` : '.');
    this.#table.hidden = chunks.length === 0;
    this.#table.tBodies[0].replaceChildren(...shown.map((chunk) => element('tr', {}, [
      element('td', {}, [formatDateTime(chunk.startMs)]),
      element('td', {}, [formatDuration((chunk.endMs - chunk.startMs) / 1000)]),
      element('td', {}, [formatBytes(chunk.bytes + (chunk.timestampsBytes ?? 0))]),
      element('td', { class: 'actions' }, [
        element('button', { type: 'button', class: 'small', onclick: () => this.#onPlay(chunk) }, ['Play']),
        downloadButton('Video', chunkFilePath(chunk.file), chunk.file, this.#status),
        downloadButton('Frame times', chunkFilePath(chunk.timestampsFile), chunk.timestampsFile, this.#status),
      ]),
    ])));
  }
}
