// How numbers and times read on the page. Times show in the viewer's local time zone.

export function formatBytes(bytes) {
  if (bytes == null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit > 0 && value < 10 ? 1 : 0;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

export function formatCount(value) {
  return value == null ? '—' : value.toLocaleString();
}

export function formatClock(ms) {
  if (ms == null) return '—';
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

export function formatDateTime(ms) {
  if (ms == null) return '—';
  const date = new Date(ms);
  return `${date.toLocaleDateString()} ${formatClock(ms)}`;
}

export function formatDuration(seconds) {
  if (seconds == null) return '—';
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

export function formatAgo(ms, nowMs) {
  if (ms == null) return '—';
  return `${formatDuration(Math.max(0, (nowMs - ms) / 1000))} ago`;
}

/** Decimals that suit a duration of this many ms: 150 ms, 12.3 ms, 0.6 ms, 0.04 ms, 0.004 ms. */
export function millisecondDecimals(ms) {
  const size = Math.abs(ms);
  if (size >= 100) return 0;
  if (size >= 0.1 || size === 0) return 1;
  if (size >= 0.01) return 2;
  return 3;
}

/** A time in ms; decimals follow its size unless given, signed adds a + to positive values (offsets). */
export function formatMilliseconds(ms, { decimals = millisecondDecimals(ms ?? 0), signed = false } = {}) {
  if (ms == null || !Number.isFinite(ms)) return '—';
  const rounded = Number(ms.toFixed(decimals)) || 0; // || 0: no "-0.0"
  return `${signed && rounded > 0 ? '+' : ''}${rounded.toFixed(decimals)} ms`;
}
