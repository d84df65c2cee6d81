// The live view: the node's recorded (masked) H.264 as live video. Media Source Extensions
// where the browser has them and the codec; else the node's LL-HLS where the browser plays
// HLS itself (iPhone Safari); else the snapshot, refreshed once a second.
import { byId } from './dom.js';
import { playLiveStream } from './mse-player.js';
import { nodeNowMs } from './node-clock.js';
import { startSnapshot } from './snapshot.js';
import { readToken } from './token-store.js';

const mediaSource = () => window.ManagedMediaSource ?? window.MediaSource;

function showMode(text) {
  byId('live-mode').textContent = text;
}

/** Shows how far the frame on screen is behind live, from its capture time. */
export function showBehindLive(video, captureMs) {
  const behindMs = Math.max(0, nodeNowMs() - captureMs);
  video.dataset.captureMs = String(Math.round(captureMs));
  video.dataset.behindMs = String(Math.round(behindMs));
  byId('live-behind').textContent = `${(behindMs / 1000).toFixed(1)} s behind live`;
}

function playHls(video) {
  const token = readToken();
  video.src = `/live/index.m3u8${token ? `?token=${encodeURIComponent(token)}` : ''}`;
  video.hidden = false;
  byId('snapshot-placeholder').hidden = true;
  showMode('Live (HLS)');
  // Safari dates HLS frames by EXT-X-PROGRAM-DATE-TIME: the capture time of each segment.
  const update = () => {
    const date = video.getStartDate?.();
    if (date && !Number.isNaN(date.getTime())) showBehindLive(video, date.getTime() + video.currentTime * 1000);
  };
  video.addEventListener('timeupdate', update);
  video.play().catch(() => {});
}

function fallBackToSnapshot(reason) {
  byId('live-video').hidden = true;
  showMode(`Snapshot (${reason})`);
  startSnapshot();
}

export function startLiveView() {
  const video = byId('live-video');
  const Source = mediaSource();
  if (Source) {
    playLiveStream(video, Source, {
      showMode,
      showBehindLive: (captureMs) => showBehindLive(video, captureMs),
      unsupported: (reason) => fallBackToSnapshot(reason),
    });
  } else if (video.canPlayType('application/vnd.apple.mpegurl')) {
    playHls(video);
  } else {
    fallBackToSnapshot('this browser has no Media Source Extensions or HLS');
  }
}
