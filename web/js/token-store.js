// The node's bearer token lives in sessionStorage: it survives reloads of this tab but
// is gone when the tab closes, so a shared screen does not keep access for the next person.
const storageKey = 'allspark-node.token';

export function readToken() {
  return sessionStorage.getItem(storageKey) ?? '';
}

export function saveToken(token) {
  sessionStorage.setItem(storageKey, token);
}
