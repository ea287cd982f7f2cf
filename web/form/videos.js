// How a video record reads in the form, the same on result cards, library cards and the
// combine picker: its name, its status line, its error and the actions on its file.
import { el } from './fields.js';

/** The transitions of create_video and combine_video_clips (docs/API-DESIGN.md, Rendering). */
export const TRANSITIONS = [
  { value: 'cut', label: 'Cut', hint: 'Clips join end to end.' },
  { value: 'crossfade', label: 'Crossfade', hint: 'Each clip dissolves into the next over 0.5 s.' },
  { value: 'fade-black', label: 'Fade to black', hint: 'Each join dips through black over 0.5 s.' },
];

/** Seconds of the joined video: blended transitions overlap each join by 0.5 s. */
export function joinedSeconds(clips, transition) {
  if (clips <= 0) return 0;
  return 5 * clips - (transition && transition !== 'cut' ? 0.5 * (clips - 1) : 0);
}

/** The title the user gave, else "Untitled video" (every card shows the date beside it). */
export function videoName(v) {
  const title = typeof v.title === 'string' ? v.title.trim() : '';
  return title || 'Untitled video';
}

/** "failed", "complete", "rendering · 40%", "queued". */
export function statusText(status, progress) {
  if (status === 'error') return 'failed';
  if (status === 'complete') return 'complete';
  if (status === 'in_progress') return `rendering · ${progress ?? 0}%`;
  return status.replace('_', ' ');
}

/** A job error as "field: message" (the input that failed), or the message alone. */
export function errorText(error) {
  if (!error) return '';
  const message = error.message || error.code || 'the render failed';
  return error.field ? `${error.field}: ${message}` : message;
}

/** A file name for the download attribute: the title's words, else the uuid. */
export function fileName(v, suffix = '') {
  const words = (v.title ?? '').normalize('NFKD').replace(/[^\w\s-]/g, '').trim().replace(/\s+/g, '-').slice(0, 80);
  return `${words || `video-${v.uuid}`}${suffix}.mp4`;
}

/** Copies `url`; where the page may not write the clipboard (plain http on another host),
 * shows the link selected in a read-only box, to copy by hand. */
export async function copyLink(url, note) {
  try {
    await navigator.clipboard.writeText(url);
    note.replaceChildren('Link copied.');
    note.dataset.copied = url;
  } catch {
    const box = el('input', { class: 'link-box', readonly: true, value: url, 'aria-label': 'Link to the video' });
    note.replaceChildren(box);
    box.select();
  }
}

/** Download and copy-link buttons for one file; `note` receives "Link copied." */
export function linkActions(url, name, note, label = '') {
  if (!url) return [];
  return [
    el('a', { class: 'btn small ghost download', href: url, download: name, text: `Download${label}` }),
    el('button', { type: 'button', class: 'btn small ghost copy', text: `Copy link${label}`, onclick: () => copyLink(url, note) }),
  ];
}
