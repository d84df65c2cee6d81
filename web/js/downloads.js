// Saving files from the API. A plain link cannot carry the token, so the file is fetched
// and handed to the browser as a blob; fine for chunks and clips of a few minutes.
import { getBlob } from './api.js';
import { element } from './dom.js';
import { formatBytes } from './format.js';

const blobLifetimeMs = 60000;

function fileNameFromDisposition(header) {
  return header?.match(/filename="?([^";]+)"?/)?.[1] ?? null;
}

export async function downloadFromApi(path, fallbackName) {
  const { blob, headers } = await getBlob(path);
  const name = fileNameFromDisposition(headers.get('Content-Disposition')) ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const link = element('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  // Revoking at once can cancel the save in some browsers; the blob is handed over well within a minute.
  setTimeout(() => URL.revokeObjectURL(url), blobLifetimeMs);
  return { name, bytes: blob.size };
}

/** A button that saves one file and reports how it went in statusNode. */
export function downloadButton(label, path, fileName, statusNode) {
  return element('button', {
    type: 'button',
    class: 'small',
    title: `Download ${fileName}`,
    onclick: async () => {
      statusNode.textContent = `Downloading ${fileName}…`;
      try {
        const saved = await downloadFromApi(path, fileName);
        statusNode.textContent = `Saved ${saved.name} (${formatBytes(saved.bytes)}).`;
      } catch (error) {
        statusNode.textContent = `Could not download ${fileName}: ${error.message}`;
      }
    },
  }, [label]);
}
