// Every call to the node's HTTP API goes through here, so the token is attached in one
// place and the server's JSON error messages reach the user as they were written.
import { readToken } from './token-store.js';

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

let unauthorizedHandler = () => {};

/** Called whenever the node refuses the token, e.g. after it restarted with a new one. */
export function whenUnauthorized(handler) {
  unauthorizedHandler = handler;
}

function authorizationHeaders() {
  const token = readToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function send(path, options = {}) {
  const headers = { ...authorizationHeaders(), ...options.headers };
  const response = await fetch(path, { cache: 'no-store', ...options, headers });
  if (response.ok) return response;
  const body = await response.json().catch(() => null);
  const error = new ApiError(response.status, body?.message ?? `${response.status} ${response.statusText}`, body);
  if (response.status === 401) unauthorizedHandler(error);
  throw error;
}

export async function getJSON(path) {
  return (await send(path)).json();
}

async function sendJSON(method, path, value) {
  const response = await send(path, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(value),
  });
  return response.json();
}

/** An endless response (the live fMP4 stream), for reading as it arrives. */
export async function openStream(path, signal) {
  return send(path, { signal });
}

export function putJSON(path, value) {
  return sendJSON('PUT', path, value);
}

export function postJSON(path, value) {
  return sendJSON('POST', path, value);
}

/** Media comes as a blob because <img> and <video> cannot send the Authorization header. */
export async function getBlob(path) {
  const response = await send(path);
  return { blob: await response.blob(), headers: response.headers };
}
