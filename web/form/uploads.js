// Files from this computer, sent to POST /upload_media with a progress bar (XMLHttpRequest:
// fetch reports no upload progress): photos dropped or chosen several at a time, each becoming
// a photo row of the create tab, and one file for a URL field (music, logo, headshot).
import { apiKey } from './session.js';
import { el } from './fields.js';

/** The file's type; browsers that know no type for HEIC give '', so its name decides then
 * (the server goes by the file's bytes either way). */
function contentType(file) {
  if (file.type) return file.type;
  return /\.hei[cf]$/i.test(file.name) ? 'image/heic' : 'application/octet-stream';
}

/** Sends one file; resolves with the upload record, rejects with the server's message. */
export function send(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${location.origin}/api/v1/upload_media`);
    xhr.setRequestHeader('Authorization', `Bearer ${apiKey.get()}`);
    xhr.setRequestHeader('Content-Type', contentType(file));
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(Math.round((100 * e.loaded) / e.total)); };
    xhr.onload = () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status === 200 && data) resolve(data);
      else reject(new Error(data?.error?.message ?? `HTTP ${xhr.status}`));
    };
    xhr.onerror = () => reject(new Error('the server cannot be reached'));
    xhr.send(file);
  });
}

/** "2.4 MB", or "38 KB" for a small file. */
const size = (bytes) => (bytes >= 1e5 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} KB`);

/** Wires the drop zone; `onUploaded(url, file)` runs for every stored file, in order. */
export function uploadZone(onUploaded) {
  const zone = document.getElementById('dropzone');
  const input = document.getElementById('upload-input');
  const list = document.getElementById('uploads');
  // Every file gets its row at once (waiting), then they are sent one after the other.
  async function upload(files) {
    const rows = files.map((file) => {
      const bar = el('div');
      const note = el('span', { class: 'muted', text: 'waiting…' });
      const meter = el('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' }, bar);
      const item = el('li', { class: 'upload', 'data-name': file.name, 'data-state': 'waiting' },
        el('span', { class: 'name', text: file.name }), meter, note);
      list.append(item);
      const progress = (p) => { bar.style.width = `${p}%`; meter.setAttribute('aria-valuenow', String(p)); };
      return { file, item, note, progress };
    });
    for (const { file, item, note, progress } of rows) {
      item.dataset.state = 'uploading';
      note.textContent = 'uploading…';
      try {
        const stored = await send(file, progress);
        progress(100);
        note.textContent = `${size(stored.bytes)} · ${stored.media_type}`;
        item.dataset.url = stored.url;
        item.dataset.state = 'done';
        onUploaded(stored.url, file);
      } catch (err) {
        item.dataset.state = 'error';
        item.classList.add('invalid');
        note.textContent = `${file.name}: ${err.message}`;
      }
    }
  }
  document.getElementById('pick-files').addEventListener('click', () => input.click());
  input.addEventListener('change', () => { upload([...input.files]); input.value = ''; });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    upload([...e.dataTransfer.files].filter((f) => f.type.startsWith('image/')));
  });
}

/**
 * An "Upload…" button for one URL field: the chosen file is uploaded with a progress bar and
 * its URL is written into `input` (an `input` event follows, so the form validates it).
 * `accept` is the file input's filter, e.g. `audio/*`.
 */
export function filePicker(input, accept, what) {
  const chooser = el('input', { type: 'file', accept, hidden: true, class: 'file-chooser' });
  const bar = el('div');
  const meter = el('div', { class: 'progress', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0', hidden: true }, bar);
  const note = el('small', { class: 'upload-note', role: 'status' });
  const button = el('button', { type: 'button', class: 'btn small ghost pick-file', text: `Upload ${what}…`, onclick: () => chooser.click() });
  const box = el('div', { class: 'file-picker', 'data-state': 'idle' }, button, chooser, meter, note);
  const progress = (p) => { bar.style.width = `${p}%`; meter.setAttribute('aria-valuenow', String(p)); };
  chooser.addEventListener('change', async () => {
    const [file] = chooser.files;
    chooser.value = '';
    if (!file) return;
    box.dataset.state = 'uploading';
    box.classList.remove('invalid');
    button.disabled = true;
    meter.hidden = false;
    progress(0);
    note.textContent = `${file.name}: uploading…`;
    try {
      const stored = await send(file, progress);
      progress(100);
      box.dataset.state = 'done';
      note.textContent = `${file.name} · ${size(stored.bytes)} · ${stored.media_type}`;
      input.value = stored.url;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    } catch (err) {
      box.dataset.state = 'error';
      box.classList.add('invalid');
      note.textContent = `${file.name}: ${err.message}`;
    } finally {
      button.disabled = false;
    }
  });
  // The picker's own input must not count as an edit of the form's fields.
  for (const type of ['input', 'change']) chooser.addEventListener(type, (event) => event.stopPropagation());
  return box;
}
