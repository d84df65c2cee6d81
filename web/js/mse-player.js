// Live fMP4 from /live/stream.mp4 through Media Source Extensions. The node starts the
// stream at a keyframe and tells which frame (X-Live-Start-Capture-Ms), so the media time
// of any frame on screen gives its capture time. The stream ends when the encoder restarts
// (a new init segment): the player then starts again with a fresh MediaSource.
import { openStream } from './api.js';
import { byId } from './dom.js';

const retryMs = 1000;
// Frames further behind than this are skipped by jumping to the newest buffered one.
const maximumLagSeconds = 1.5;
// Between these, the player speeds up a little to catch up with the newest frame: what
// piles up while the player starts would otherwise stay as lag for as long as it plays.
// Frames come one per fragment, so 50 ms (a frame and a half) is enough to play on
// (bench/README.md, live latency: 353 → 270 ms median against 0.3 and 0.1 s).
const catchUpAboveSeconds = 0.15;
const caughtUpBelowSeconds = 0.05;
const catchUpRate = 1.25;
// What stays buffered behind the playhead.
const keptSeconds = 10;

function appendQueue(sourceBuffer) {
  const pending = [];
  let busy = false;
  const next = () => {
    if (busy || pending.length === 0 || sourceBuffer.updating) return;
    busy = true;
    const task = pending.shift();
    try {
      task();
    } catch (error) {
      busy = false;
      console.warn('live video: append failed', error);
    }
  };
  sourceBuffer.addEventListener('updateend', () => {
    busy = false;
    next();
  });
  return {
    append(bytes) {
      pending.push(() => sourceBuffer.appendBuffer(bytes));
      next();
    },
    trim(end) {
      pending.push(() => sourceBuffer.remove(0, end));
      next();
    },
    get backlog() { return pending.length; },
  };
}

async function playOnce(video, Source, view, abort) {
  const response = await openStream('/live/stream.mp4', abort.signal);
  const codecs = response.headers.get('X-Live-Codecs');
  const startCaptureMs = Number(response.headers.get('X-Live-Start-Capture-Ms'));
  const type = `video/mp4; codecs="${codecs}"`;
  if (!Source.isTypeSupported(type)) {
    abort.abort();
    view.unsupported(`this browser cannot play ${codecs}`);
    return false;
  }
  const source = new Source();
  const url = URL.createObjectURL(source);
  video.disableRemotePlayback = true;
  video.src = url;
  await new Promise((resolve) => source.addEventListener('sourceopen', resolve, { once: true }));
  URL.revokeObjectURL(url);
  const sourceBuffer = source.addSourceBuffer(type);
  const queue = appendQueue(sourceBuffer);
  let mediaStart = null;
  let frameCallback = null;

  const captureMsAt = (mediaTime) => startCaptureMs + (mediaTime - mediaStart) * 1000;
  const onFrame = (_now, metadata) => {
    if (mediaStart !== null) view.showBehindLive(captureMsAt(metadata.mediaTime));
    frameCallback = video.requestVideoFrameCallback(onFrame);
  };
  if (video.requestVideoFrameCallback) frameCallback = video.requestVideoFrameCallback(onFrame);
  const onTime = () => {
    if (mediaStart === null || video.buffered.length === 0) return;
    const end = video.buffered.end(video.buffered.length - 1);
    const ahead = end - video.currentTime;
    if (ahead > maximumLagSeconds) video.currentTime = end - caughtUpBelowSeconds;
    else if (ahead > catchUpAboveSeconds) video.playbackRate = catchUpRate;
    else if (ahead < caughtUpBelowSeconds) video.playbackRate = 1;
    if (!video.requestVideoFrameCallback) view.showBehindLive(captureMsAt(video.currentTime));
    if (video.currentTime - video.buffered.start(0) > 2 * keptSeconds) queue.trim(video.currentTime - keptSeconds);
  };
  video.addEventListener('timeupdate', onTime);

  view.showMode('Live');
  video.hidden = false;
  byId('snapshot-placeholder').hidden = true;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      queue.append(value);
      if (mediaStart === null && video.buffered.length > 0) {
        mediaStart = video.buffered.start(0);
        // What maps media time to capture time, for anyone measuring the page (bench/).
        video.dataset.startCaptureMs = String(startCaptureMs);
        video.dataset.mediaStart = String(mediaStart);
        video.currentTime = mediaStart;
        video.play().catch((error) => console.warn('live video: play refused', error));
      }
    }
  } finally {
    video.removeEventListener('timeupdate', onTime);
    if (frameCallback !== null) video.cancelVideoFrameCallback(frameCallback);
  }
  return true;
}

/** Plays the live stream in `video`, starting over whenever it ends or fails. */
export function playLiveStream(video, Source, view) {
  const loop = async () => {
    for (;;) {
      const abort = new AbortController();
      try {
        if (!(await playOnce(video, Source, view, abort))) return;
        view.showMode('Live (reconnecting…)');
      } catch (error) {
        abort.abort();
        view.showMode(`Live video unavailable: ${error.message}; retrying`);
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  loop();
}
