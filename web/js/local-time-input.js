// <input type="datetime-local"> speaks wall-clock time without a zone; these read and
// write it as epoch milliseconds in the browser's time zone.

export function toLocalInputValue(ms) {
  const date = new Date(ms);
  const pad = (value) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
    + `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** NaN when the input is empty or incomplete. */
export function fromLocalInputValue(value) {
  return value ? new Date(value).getTime() : Number.NaN;
}
