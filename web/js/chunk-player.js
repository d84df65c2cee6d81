// Plays one chunk in the page's <video>. The chunk is fetched as a blob because the API
// needs the token header, which a <video src> cannot send.
import { getBlob } from './api.js';
import { byId, showAlert } from './dom.js';
import { chunkFilePath } from './chunks.js';
import { downloadButton } from './downloads.js';
import { formatBytes, formatClock } from './format.js';

const mediaErrorReasons = {
  1: 'loading was stopped',
  2: 'a network error interrupted it',
  3: 'this browser could not decode it (H.264 support missing?)',
  4: 'this browser does not support its format or codec (H.264 support missing?)',
};

export class ChunkPlayer {
  #video = byId('chunk-video');
  #status = byId('player-status');
  #error = byId('player-error');
  #downloads = byId('player-downloads');
  #chunk = null;
  #objectUrl = null;
  #request = 0;
  #onShow;

  /** onShow(chunk) is told which chunk is in the player, to highlight it elsewhere. */
  constructor({ onShow }) {
    this.#onShow = onShow;
    this.#video.addEventListener('error', () => {
      if (!this.#chunk || !this.#video.error) return;
      const reason = mediaErrorReasons[this.#video.error.code] ?? 'an unknown error';
      showAlert(this.#error, `Cannot play ${this.#chunk.file}: ${reason}. Download it to watch it elsewhere.`);
    });
  }

  async play(chunk) {
    const request = ++this.#request;
    this.#chunk = chunk;
    this.#onShow(chunk);
    showAlert(this.#error, null);
    this.#status.textContent = `Loading ${chunk.file}…`;
    this.#showDownloads(chunk);
    let blob;
    try {
      ({ blob } = await getBlob(chunkFilePath(chunk.file)));
    } catch (error) {
      if (request === this.#request) showAlert(this.#error, `Could not load ${chunk.file}: ${error.message}`);
      return;
    }
    // A later pick wins: its chunk may have arrived first.
    if (request !== this.#request) return;
    if (this.#objectUrl) URL.revokeObjectURL(this.#objectUrl);
    this.#objectUrl = URL.createObjectURL(blob);
    this.#video.src = this.#objectUrl;
    this.#video.hidden = false;
    this.#video.dataset.file = chunk.file;
    this.#status.textContent =
      `${formatClock(chunk.startMs)} to ${formatClock(chunk.endMs)}, ${chunk.frames} frames, ${formatBytes(chunk.bytes)}`;
    try {
      await this.#video.play();
    } catch (error) {
      // A newer pick interrupting this one is expected; decoding failures arrive as the 'error' event.
      if (error.name === 'NotAllowedError') this.#status.textContent += ': press play to start.';
    }
  }

  #showDownloads(chunk) {
    const buttons = [downloadButton('Download video', chunkFilePath(chunk.file), chunk.file, this.#status)];
    if (chunk.timestampsFile) {
      buttons.push(downloadButton('Frame times', chunkFilePath(chunk.timestampsFile), chunk.timestampsFile, this.#status));
    }
    this.#downloads.replaceChildren(...buttons);
  }
}
