// The node's settings as a form. The node validates; the form shows its verdict as is,
// so the page never disagrees with the server about what is allowed.
import { ApiError, getJSON, putJSON } from './api.js';
import { byId } from './dom.js';

export class ConfigForm {
  #form = byId('config-form');
  #status = byId('config-status');
  #serverConfig = {};
  #edited = false;

  constructor() {
    this.#form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.#apply();
    });
    this.#form.addEventListener('reset', (event) => {
      event.preventDefault();
      this.#edited = false;
      this.#clearErrors();
      this.#fill(this.#serverConfig);
      this.#say('');
    });
    this.#form.addEventListener('input', (event) => {
      this.#edited = true;
      this.#showFieldError(event.target.name, null);
    });
  }

  async load() {
    try {
      const { config, effective } = await getJSON('/api/config');
      this.#showHints(effective);
      this.showServerConfig(config);
    } catch (error) {
      this.#say(`Could not read the configuration: ${error.message}`, true);
    }
  }

  /** The node's current values (from GET, PUT or a clientConfig push); edits in progress are kept. */
  showServerConfig(config) {
    this.#serverConfig = config;
    if (!this.#edited) this.#fill(config);
  }

  #fields() {
    return [...this.#form.elements].filter((field) => field.name);
  }

  #fill(config) {
    for (const field of this.#fields()) {
      if (field.name in config) field.value = String(config[field.name]);
    }
  }

  #showHints(effective) {
    for (const field of this.#fields()) {
      const setting = effective[field.name];
      const hint = this.#form.querySelector(`[data-hint-for="${field.name}"]`);
      if (!setting || !hint) continue;
      hint.textContent = setting.runtime
        ? `Allowed: ${setting.allowed}. Applies from the next chunk.`
        : `Allowed: ${setting.allowed}. Changing it needs a restart of the node.`;
    }
  }

  /** Number fields go to the node as numbers; what the browser could not read as one goes as typed. */
  #valueOf(field) {
    if (field.type === 'number' && field.value !== '' && Number.isFinite(field.valueAsNumber)) return field.valueAsNumber;
    return field.value;
  }

  #changes() {
    const changes = {};
    for (const field of this.#fields()) {
      const value = this.#valueOf(field);
      if (String(value) !== String(this.#serverConfig[field.name])) changes[field.name] = value;
    }
    return changes;
  }

  async #apply() {
    this.#clearErrors();
    const changes = this.#changes();
    if (Object.keys(changes).length === 0) {
      this.#say('Nothing to apply: the form shows what the node runs with.');
      return;
    }
    this.#say('Applying…');
    try {
      const result = await putJSON('/api/config', changes);
      this.#edited = false;
      this.showServerConfig(result.config);
      this.#say(this.#describe(result));
    } catch (error) {
      if (error instanceof ApiError && error.status === 400) {
        this.#showFieldError(error.body?.key, error.message);
        this.#say(`The node refused the change: ${error.message}`, true);
      } else {
        this.#say(`Could not apply: ${error.message}`, true);
      }
    }
  }

  #describe({ applied, ignored }) {
    const names = (keys) => keys.map((key) => this.#labelOf(key)).join(', ');
    const parts = [];
    if (applied.length > 0) parts.push(`Applied: ${names(applied)}.`);
    if (ignored.length > 0) parts.push(`Not changed, needs a restart of the node: ${names(ignored)}.`);
    return parts.join(' ');
  }

  #labelOf(key) {
    return this.#form.querySelector(`label[for="config-${key}"]`)?.textContent ?? key;
  }

  #showFieldError(key, message) {
    const field = key ? this.#form.elements.namedItem(key) : null;
    const slot = key ? this.#form.querySelector(`[data-error-for="${key}"]`) : null;
    if (!field || !slot) return;
    slot.textContent = message ?? '';
    slot.hidden = !message;
    if (message) field.setAttribute('aria-invalid', 'true');
    else field.removeAttribute('aria-invalid');
  }

  #clearErrors() {
    for (const field of this.#fields()) this.#showFieldError(field.name, null);
  }

  #say(message, isError = false) {
    this.#status.textContent = message;
    this.#status.classList.toggle('is-error', isError);
  }
}
