// One shape for a chunk everywhere on the page: the record of GET /api/chunks.

/** A chunkSaved push carries the same chunk in the protocol's own field names. */
export function chunkFromSavedEvent(message) {
  return {
    file: message.filename,
    format: message.format,
    startMs: Math.round(message.startTime * 1000),
    endMs: Math.round(message.endTime * 1000),
    frames: message.frames,
    bytes: message.size,
  };
}

export function chunkFilePath(fileName) {
  return `/api/chunks/${encodeURIComponent(fileName)}`;
}
