// After a submit: a progress bar while polling GET /get_video, then players for the main and
// the branded video, each with a download link and a copy-link button.
import { StillreelJobError } from './stillreel/src/browser.js';
import { api } from './session.js';
import { el } from './fields.js';
import { errorText, fileName, linkActions, statusText, videoName } from './videos.js';

// First polling interval; the client backs off from it.
const POLL_MS = 1000;

export function trackVideo(container, video, onDone) {
  const bar = el('div');
  const status = el('p', { class: 'status' });
  const players = el('div', { class: 'players' });
  const title = el('h3');
  // The branded render has its own bar: the video's reaches 100 % before the branding starts.
  const brandBar = el('div');
  const brandBox = el('div', { class: 'brand-progress', hidden: !video.branding },
    el('small', { text: 'Branded video' }),
    el('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-label': 'branded render' }, brandBar));
  const card = el('div', { class: 'result', 'data-video': video.uuid },
    title, el('small', { class: 'muted uuid', text: video.uuid }),
    el('small', { text: 'Video' }),
    el('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-label': 'video render' }, bar),
    brandBox, status, players);
  container.prepend(card);
  const shown = new Set();
  const player = (key, caption, url, v) => {
    if (shown.has(key) || !url) return;
    shown.add(key);
    const note = el('small', { class: 'copy-note', role: 'status' });
    players.append(el('figure', { 'data-kind': key }, el('figcaption', { text: caption }),
      el('video', { src: url, controls: true, playsinline: true, preload: 'metadata', 'data-kind': key }),
      el('div', { class: 'actions' }, ...linkActions(url, fileName(v, key === 'branded' ? '-branded' : ''), note)),
      note));
  };
  const show = (v) => {
    title.textContent = videoName(v);
    const progress = v.status === 'complete' ? 100 : (v.progress ?? 0);
    bar.style.width = `${progress}%`;
    bar.parentElement.setAttribute('aria-valuenow', String(progress));
    if (v.branding) {
      const branded = v.branding.status === 'complete' ? 100 : (v.branding.progress ?? 0);
      brandBox.hidden = false;
      brandBar.style.width = `${branded}%`;
      brandBar.parentElement.setAttribute('aria-valuenow', String(branded));
    }
    const parts = [el('b', { text: statusText(v.status, progress) }), ` · ${v.video_clips.length} clip(s)`];
    if (v.branding) parts.push(' · branded: ', el('b', { text: statusText(v.branding.status, v.branding.progress) }));
    if (v.error) {
      parts.push(el('br'), el('span', { class: 'job-error', text: errorText(v.error) }));
      // A failing photo is highlighted in the create tab.
      const photo = /^image_inputs\[(\d+)\]/.exec(v.error.field ?? '');
      if (photo) {
        const row = document.querySelector(`#images .image-row[data-index="${photo[1]}"]`);
        row?.classList.add('failed');
        row?.setAttribute('title', v.error.message);
      }
    }
    if (v.branding?.error) parts.push(el('br'), el('span', { class: 'job-error', text: `Branding: ${errorText(v.branding.error)}` }));
    status.replaceChildren(...parts);
    card.dataset.status = v.status;
    card.dataset.brandingStatus = v.branding?.status ?? '';
    if (v.status === 'complete') player('main', 'Main video', v.video_url, v);
    if (v.branding?.status === 'complete') player('branded', 'Branded video', v.branding.video_url, v);
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
