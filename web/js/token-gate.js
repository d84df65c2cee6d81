// Access to a node that runs with a token: the page asks once, keeps the token for the
// session, and asks again only when the node refuses it.
import { ApiError, getJSON } from './api.js';
import { byId, element } from './dom.js';
import { readToken, saveToken } from './token-store.js';

let pendingAccess = null;

/** The dialog every page asks for the token with, added to the page once. */
function tokenDialog() {
  const existing = document.getElementById('token-dialog');
  if (existing) return existing;
  const dialog = element('dialog', { id: 'token-dialog', class: 'token-dialog', 'aria-labelledby': 'token-title' }, [
    element('form', { id: 'token-form', method: 'dialog' }, [
      element('h2', { id: 'token-title' }, ['Access token']),
      element('p', { id: 'token-reason' }, ['This node needs its access token.']),
      element('label', {}, ['Token ', element('input', { id: 'token-input', type: 'password', autocomplete: 'current-password', required: true })]),
      element('p', { class: 'muted' }, ['Kept for this browser tab only, until it is closed.']),
      element('div', { class: 'actions' }, [element('button', { type: 'submit' }, ['Open dashboard'])]),
    ]),
  ]);
  document.body.append(dialog);
  return dialog;
}

function askForToken(reason) {
  const dialog = tokenDialog();
  const form = byId('token-form');
  const input = byId('token-input');
  byId('token-reason').textContent = reason;
  input.value = '';
  return new Promise((resolve) => {
    // Without a token the page has nothing to show, so Escape must not close the dialog.
    const refuseCancel = (event) => event.preventDefault();
    dialog.addEventListener('cancel', refuseCancel);
    form.addEventListener('submit', () => {
      dialog.removeEventListener('cancel', refuseCancel);
      resolve(input.value.trim());
    }, { once: true });
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
}

async function checkUntilAccepted() {
  for (;;) {
    try {
      return await getJSON('/api/status');
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      const reason = readToken()
        ? 'The node refused that token. Enter the token the node runs with.'
        : 'This node needs its access token.';
      saveToken(await askForToken(reason));
    }
  }
}

/**
 * Resolves with the node's status once the API accepts this page (at once when the node
 * has no token). Concurrent callers share one dialog.
 */
export function ensureAccess() {
  tokenDialog();
  pendingAccess ??= checkUntilAccepted().finally(() => {
    pendingAccess = null;
  });
  return pendingAccess;
}
