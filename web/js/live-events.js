// The node's WebSocket: it pushes clientConfig on connect and chunkSaved after every
// chunk, so the page follows new recordings without polling for them.
import { readToken } from './token-store.js';

const firstRetryMs = 1000;
const longestRetryMs = 15000;

/**
 * Dispatches each message as an event named by its type (detail = the message), plus
 * 'open' and 'close'. Reconnects with a growing pause, since nodes restart and Wi-Fi drops.
 */
export class LiveEvents extends EventTarget {
  #retryMs = firstRetryMs;
  #socket = null;

  get isOpen() {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const token = readToken();
    const query = token ? `?token=${encodeURIComponent(token)}` : '';
    const socket = new WebSocket(`${scheme}://${location.host}/ws${query}`);
    this.#socket = socket;
    socket.addEventListener('open', () => {
      this.#retryMs = firstRetryMs;
      socket.send(JSON.stringify({ type: 'clientInfo', clientName: 'dashboard' }));
      this.dispatchEvent(new Event('open'));
    });
    socket.addEventListener('message', (event) => this.#deliver(event.data));
    socket.addEventListener('close', () => {
      this.dispatchEvent(new Event('close'));
      setTimeout(() => this.connect(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, longestRetryMs);
    });
  }

  #deliver(data) {
    if (typeof data !== 'string') return;
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message?.type === 'string') {
      this.dispatchEvent(new CustomEvent(message.type, { detail: message }));
    }
  }
}
