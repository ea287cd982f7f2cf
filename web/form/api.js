// The HTTP client: every call under /api/v1 with `Authorization: Bearer <key>`. Errors come
// back as the server's envelope {error: {code, message, details}}.
const KEY = 'stillreel.apiKey';
const VIDEOS = 'stillreel.videos';

export const apiKey = {
  get: () => localStorage.getItem(KEY) ?? '',
  set: (key) => (key ? localStorage.setItem(KEY, key) : localStorage.removeItem(KEY)),
};

export class ApiError extends Error {
  constructor(status, envelope) {
    const error = envelope?.error ?? { code: 'network', message: `request failed (${status})`, details: [] };
    super(error.message);
    this.status = status;
    this.code = error.code;
    this.details = error.details ?? [];
  }
}

async function call(method, path, body) {
  const headers = { Authorization: `Bearer ${apiKey.get()}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(`/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, { error: { code: 'network', message: `the server cannot be reached (${err.message})`, details: [] } });
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const api = {
  projects: () => call('GET', '/get_projects'),
  createProject: (body) => call('POST', '/create_project', body),
  templates: () => call('GET', '/get_templates'),
  engines: () => call('GET', '/get_engines'),
  createVideo: (body) => call('POST', '/create_video', body),
  combine: (body) => call('POST', '/combine_video_clips', body),
  video: (uuid) => call('GET', `/get_video?uuid=${encodeURIComponent(uuid)}`),
};

// The API has no "list my videos", so this browser remembers the videos it created.
export const history = {
  list: () => {
    try { return JSON.parse(localStorage.getItem(VIDEOS) ?? '[]'); } catch { return []; }
  },
  add: (uuid) => {
    const list = history.list().filter((v) => v.uuid !== uuid);
    list.unshift({ uuid, added_at: new Date().toISOString() });
    localStorage.setItem(VIDEOS, JSON.stringify(list.slice(0, 50)));
  },
};
