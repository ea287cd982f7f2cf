// After a submit: a progress bar while polling GET /get_video, then players for the main and
// the branded video.
import { StillreelJobError } from './stillreel/src/browser.js';
import { api } from './session.js';
import { el } from './fields.js';

// First polling interval; the client backs off from it.
const POLL_MS = 1000;

export function trackVideo(container, video, onDone) {
  const bar = el('div');
  const status = el('p', { class: 'status' });
  const players = el('div', { class: 'players' });
  const card = el('div', { class: 'result', 'data-video': video.uuid },
    el('h3', { text: `Video ${video.uuid}` }),
    el('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100' }, bar),
    status, players);
  container.prepend(card);
  const shown = new Set();
  const player = (key, title, url) => {
    if (shown.has(key) || !url) return;
    shown.add(key);
    players.append(el('figure', {}, el('figcaption', { text: title }),
      el('video', { src: url, controls: true, playsinline: true, preload: 'metadata', 'data-kind': key })));
  };
  const show = (v) => {
    const progress = v.status === 'complete' ? 100 : (v.progress ?? 0);
    bar.style.width = `${progress}%`;
    bar.parentElement.setAttribute('aria-valuenow', String(progress));
    const parts = [el('b', { text: v.status.replace('_', ' ') }), ` · ${progress}% · ${v.video_clips.length} clip(s)`];
    if (v.branding) parts.push(` · branded: `, el('b', { text: v.branding.status.replace('_', ' ') }));
    if (v.error) parts.push(el('br'), `Error: ${v.error.message}`);
    if (v.branding?.error) parts.push(el('br'), `Branding error: ${v.branding.error.message}`);
    status.replaceChildren(...parts);
    card.dataset.status = v.status;
    card.dataset.brandingStatus = v.branding?.status ?? '';
    if (v.status === 'complete') player('main', 'Main video', v.video_url);
    if (v.branding?.status === 'complete') player('branded', 'Branded video', v.branding.video_url);
  };
  show(video);
  const finished = (v) => ['complete', 'error'].includes(v.status) && (!v.branding || ['complete', 'error'].includes(v.branding.status));
  if (finished(video)) return;
  // The client polls (backing off to 5 s), reports every change and retries failed polls;
  // a failed render rejects with the record, which is shown like any other.
  const wait = () => api().waitForVideo(video.uuid, { intervalMs: POLL_MS, branding: true, onProgress: (_, v) => show(v) })
    .then((v) => { show(v); onDone?.(v); })
    .catch((err) => {
      if (err instanceof StillreelJobError) {
        show(err.video);
        onDone?.(err.video);
        return;
      }
      status.append(el('br'), `Polling failed: ${err.message}; retrying`);
      setTimeout(wait, POLL_MS);
    });
  wait();
}
