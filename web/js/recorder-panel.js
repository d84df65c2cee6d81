// What the recorder is doing now: the badge over the live view and the numbers under it.
import { byId, showAlert, showFacts } from './dom.js';
import { formatAgo, formatCount } from './format.js';
import { nodeNowMs } from './node-clock.js';

export function showRecorder(status) {
  const { recorder, privacy, signing } = status;
  const badge = byId('recording-badge');
  badge.hidden = false;
  badge.textContent = recorder.recording ? '● REC' : '■ Not recording';
  badge.classList.toggle('is-recording', recorder.recording);
  showAlert(byId('source-error'), recorder.sourceError ? `Camera problem: ${recorder.sourceError}` : null);
  showAlert(byId('privacy-warning'), privacy.weakerDetectorReason ? `Privacy degraded: ${privacy.weakerDetectorReason}` : null);

  const masking = privacy.mode === 'none' ? 'off' : formatCount(privacy.facesMasked);
  showFacts(byId('recorder-facts'), [
    ['Frame rate', recorder.fps ? `${recorder.fps} fps` : null],
    ['Dropped frames', formatCount(recorder.framesDropped)],
    ['Faces masked', masking],
    ['Privacy mode', privacy.mode],
    ...detectorFacts(privacy),
    ['Picture', recorder.width ? `${recorder.width}×${recorder.height}` : null],
    ['Source', recorder.source],
    ['Encoder', recorder.encoder],
    ['Frames captured', formatCount(recorder.framesCaptured)],
    ['Chunks written', formatCount(recorder.chunksWritten)],
    // Ended before their length so a request could have the freshest footage (absent from older nodes).
    ...(recorder.chunksCutEarly == null ? [] : [['Chunks cut early', formatCount(recorder.chunksCutEarly)]]),
    ['Last frame', formatAgo(recorder.lastFrameMs, nodeNowMs())],
    // Who vouches for the footage: the trust anchor a validator is given (GET /api/signing/anchor),
    // and the certificate the footage carries (absent from older nodes).
    ...signingFacts(signing),
  ]);
}

function signingFacts(signing) {
  if (!signing) return [];
  if (signing.waitingReason) return [['Signing', `key not made yet: ${signing.waitingReason}`]];
  return [
    ...(signing.anchorFingerprint ? [['Trust anchor', signing.anchorSubject], ['Trust anchor (SHA-256)', signing.anchorFingerprint]] : []),
    ['Signing certificate (SHA-256)', signing.fingerprint],
  ];
}

// Which detector searches and how often; nothing when privacy is off.
function detectorFacts(privacy) {
  if (privacy.mode === 'none') return [];
  return [
    ['Face detector', privacy.detector],
    ['Detector engine', privacy.engine + (privacy.engineFallbackReason ? ` (slower: ${privacy.engineFallbackReason})` : '')],
    ['Face searches', `${privacy.searchesPerSecond.toFixed(1)}/s, ${privacy.meanDetectionMs.toFixed(0)} ms each`],
  ];
}
