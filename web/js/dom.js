// Small DOM helpers, so the panels read as what they show rather than how nodes are built.

export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}

/** Creates an element; properties the element knows are set as properties, others as attributes. */
export function element(tag, properties = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(properties)) {
    if (name === 'class') node.className = value;
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name in node) node[name] = value;
    else node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}

/** Fills a <dl> with [label, value] pairs; a missing value shows as a dash. */
export function showFacts(list, facts) {
  list.replaceChildren(...facts.flatMap(([label, value]) => [
    element('dt', {}, [label]),
    element('dd', {}, [value ?? '—']),
  ]));
}

/** A coloured status word; the tone names a class in styles.css (ok, warn, bad, idle). */
export function showPill(node, text, tone) {
  node.textContent = text;
  node.className = `pill pill-${tone}`;
}

export function showAlert(node, message) {
  node.textContent = message ?? '';
  node.hidden = !message;
}
