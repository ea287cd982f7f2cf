// The "Library" tab: the account's videos from GET /get_videos, newest first, a page at a
// time: title, poster, status and progress (polled live while rendering), the failing input
// of a failed one, a title search and project and status filters, watch, download, copy link
// and delete.
import { api } from './session.js';
import { el } from './fields.js';
import { errorText, fileName, linkActions, statusText, videoName } from './videos.js';

const PAGE = 12;
const POLL_MS = 2000;
// Typing in the search box asks the server once the typing pauses.
const SEARCH_DELAY_MS = 300;

export function libraryTab(ctx) {
  const $ = (id) => document.getElementById(id);
  const cards = new Map(); // uuid → {card, video}
  let cursor = null;
  let timer = null;
  let searchTimer = null;
  let generation = 0; // a newer listing makes an older answer stale

  const running = (v) => ['queued', 'in_progress'].includes(v.status)
    || ['queued', 'in_progress'].includes(v.branding?.status);

  function fill(entry, v) {
    entry.video = v;
    const { card } = entry;
    card.dataset.status = v.status;
    const progress = v.status === 'complete' ? 100 : (v.progress ?? 0);
    card.querySelector('.poster').replaceChildren(v.poster_url
      ? el('img', { src: v.poster_url, alt: `Poster of ${videoName(v)}`, loading: 'lazy' })
      : el('div', { class: 'placeholder', text: v.status === 'error' ? 'failed' : 'rendering…' }));
    card.querySelector('.progress').hidden = v.status === 'error';
    card.querySelector('.progress > div').style.width = `${progress}%`;
    card.querySelector('.name').textContent = videoName(v);
    card.querySelector('.name').classList.toggle('untitled', !v.title);
    const when = new Date(v.created_at).toLocaleString();
    const branded = v.branding ? ` · branded ${statusText(v.branding.status, v.branding.progress)}` : '';
    card.querySelector('.meta').textContent = `${statusText(v.status, progress)} · ${v.video_clips.length} clip(s)${branded} · ${when}`;
    const problems = [errorText(v.error), v.branding?.error ? `Branding: ${errorText(v.branding.error)}` : ''].filter(Boolean);
    card.querySelector('.error').textContent = problems.join('\n');
    const url = v.branding?.status === 'complete' ? v.branding.video_url : v.video_url;
    const note = card.querySelector('.copy-note');
    // Only real elements: replaceChildren would print a null as the text "null".
    card.querySelector('.actions').replaceChildren(...[
      url ? el('button', { type: 'button', class: 'btn small ghost watch', text: 'Watch', onclick: () => watch(entry, url) }) : null,
      ...linkActions(url, fileName(v, url === v.video_url ? '' : '-branded'), note),
      running(v) ? null : el('button', { type: 'button', class: 'btn small ghost delete', text: 'Delete', onclick: () => remove(entry) }),
    ].filter(Boolean));
  }

  function watch(entry, url) {
    const player = entry.card.querySelector('.player');
    player.replaceChildren(el('video', { src: url, controls: true, playsinline: true, preload: 'metadata', poster: entry.video.poster_url ?? '' }));
  }

  async function remove(entry) {
    if (!window.confirm('Delete this video and its files? This cannot be undone.')) return;
    try {
      await api().deleteVideo(entry.video.uuid);
      entry.card.remove();
      cards.delete(entry.video.uuid);
      ctx.banner('Video deleted.', 'info');
    } catch (err) {
      ctx.banner(`Could not delete the video: ${err.message}`);
    }
  }

  function card(v) {
    const node = el('article', { class: 'video-card', 'data-video': v.uuid },
      el('div', { class: 'poster' }),
      el('h3', { class: 'name' }),
      el('div', { class: 'progress', role: 'progressbar' }, el('div')),
      el('p', { class: 'meta' }),
      el('p', { class: 'error' }),
      el('div', { class: 'actions' }),
      el('small', { class: 'copy-note', role: 'status' }),
      el('div', { class: 'player' }));
    const entry = { card: node, video: v };
    cards.set(v.uuid, entry);
    fill(entry, v);
    return node;
  }

  async function load(reset) {
    const mine = ++generation;
    if (reset) cursor = null;
    const q = $('lib-search').value.trim();
    try {
      const page = await api().getVideos({
        q: q || undefined,
        project: $('lib-project').value || undefined,
        status: $('lib-status').value || undefined,
        limit: PAGE,
        cursor: cursor ?? undefined,
      });
      if (mine !== generation) return;
      if (reset) { cards.clear(); $('videos').replaceChildren(); }
      $('videos').append(...page.videos.filter((v) => !cards.has(v.uuid)).map(card));
      cursor = page.next_cursor;
      $('lib-more').hidden = !cursor;
      $('lib-empty').hidden = cards.size > 0;
      $('lib-empty').textContent = q ? `No video titled like “${q}”.` : 'No videos yet.';
      poll();
    } catch (err) {
      ctx.banner(`Cannot list the videos: ${err.message}`);
    }
  }

  // Rendering videos are polled until they settle, so status and progress move on their own.
  function poll() {
    clearTimeout(timer);
    const busy = [...cards.values()].filter((e) => running(e.video));
    if (!busy.length || $('panel-library').hidden) return;
    timer = setTimeout(async () => {
      await Promise.all(busy.map((e) => api().getVideo(e.video.uuid).then((v) => fill(e, v)).catch(() => {})));
      poll();
    }, POLL_MS);
  }

  $('lib-refresh').addEventListener('click', () => load(true));
  $('lib-more').addEventListener('click', () => load(false));
  $('lib-project').addEventListener('change', () => load(true));
  $('lib-status').addEventListener('change', () => load(true));
  $('lib-search').addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => load(true), SEARCH_DELAY_MS);
  });

  return {
    load: () => load(true),
    setProjects(projects) { ctx.fillProjects($('lib-project'), projects, $('lib-project').value); $('lib-project').options[0].textContent = 'All projects'; },
  };
}
