// The HTTP client: every endpoint of /api/v1, with bodies checked by the wasm core before they
// are sent, retries that cannot create a video twice, and a polling helper for renders.
// Plain `fetch`, no dependencies: the same file runs in Node 20+ and in browsers. The methods'
// documentation is in index.d.ts (what editors show), not here (what browsers download).
import {
  validateCreateVideo,
  validateCombineVideoClips,
  validateCreateProject,
  validateCreateBrandKit,
  validateUpdateBrandKit,
} from '../pkg/stillreel_wasm.js';

/** A non-2xx answer of the API, from its envelope `{error: {code, message, details}}`. */
export class StillreelApiError extends Error {
  constructor(status, code, message, details = [], options) {
    super(message, options);
    this.name = 'StillreelApiError';
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

/** A body the server would refuse with 422; thrown before any request is sent. */
export class StillreelValidationError extends StillreelApiError {
  constructor(details) {
    const n = details.length;
    super(422, 'validation_failed', `${n} ${n === 1 ? 'field is' : 'fields are'} invalid`, details);
    this.name = 'StillreelValidationError';
  }
}

/** A render that ended in `error`; `video` is the record as `GET /get_video` returned it. */
export class StillreelJobError extends Error {
  constructor(video, message) {
    super(message);
    this.name = 'StillreelJobError';
    this.video = video;
  }
}

const MAX_INTERVAL_MS = 5000;
// Retry-After can be large (an hour-long rate-limit window); past this a caller is better
// told than kept waiting.
const MAX_RETRY_AFTER_MS = 60_000;

function abortError(signal) {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// crypto.randomUUID exists only in secure contexts; getRandomValues exists everywhere, so a
// form served over plain http on a LAN can still make keys.
function newIdempotencyKey() {
  const b = globalThis.crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function retryAfterMs(response) {
  const value = response.headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.min(Math.max(date - Date.now(), 0), MAX_RETRY_AFTER_MS);
}

async function apiError(response) {
  const data = await response.json().catch(() => null);
  const error = data?.error;
  if (error && typeof error.code === 'string') {
    return new StillreelApiError(response.status, error.code, error.message ?? '', error.details ?? []);
  }
  return new StillreelApiError(response.status, 'http_error', `HTTP ${response.status}`, []);
}

function checked(result) {
  if (!result.ok) throw new StillreelValidationError(result.errors);
  return result;
}

// `?name=value&...` of the members given (undefined and null left out), or '' for none.
function queryString(params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

export function createClient({ baseUrl, apiKey, fetch: fetchImpl, retries = 3, retryDelayMs = 500 } = {}) {
  if (typeof baseUrl !== 'string') throw new TypeError('createClient: baseUrl must be a string');
  if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('createClient: apiKey must be a non-empty string');
  const doFetch = fetchImpl ?? globalThis.fetch.bind(globalThis);
  const root = `${baseUrl.replace(/\/+$/, '')}/api/v1`;

  async function request(method, path, { body, raw, contentType, idempotencyKey, signal } = {}) {
    const headers = { Authorization: `Bearer ${apiKey}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (raw !== undefined) headers['Content-Type'] = contentType;
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    // A POST without a key may have been stored before the connection broke: resending it
    // could create a second video, so only keyed POSTs are retried.
    const retryable = method === 'GET' || idempotencyKey !== undefined;
    const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    for (let attempt = 0; ; attempt += 1) {
      const last = !retryable || attempt >= retries;
      const backoff = Math.min(retryDelayMs * 2 ** attempt, MAX_INTERVAL_MS);
      let response;
      try {
        response = await doFetch(`${root}${path}`, { method, headers, body: payload, signal });
      } catch (err) {
        if (signal?.aborted || err?.name === 'AbortError') throw abortError(signal);
        if (last) {
          throw new StillreelApiError(0, 'network_error', `the server cannot be reached: ${err?.message ?? err}`, [], { cause: err });
        }
        await sleep(backoff, signal);
        continue;
      }
      if (response.ok) return response.json();
      if (!last && (response.status >= 500 || response.status === 429)) {
        const wait = retryAfterMs(response) ?? backoff;
        await response.body?.cancel().catch(() => {});
        await sleep(wait, signal);
        continue;
      }
      const error = await apiError(response);
      // With a key, the server itself makes a resend harmless: a first attempt still being
      // handled (409 idempotency_in_progress, e.g. after our own timeout) or a request the
      // server timed out reading (408) is worth another try with the same key.
      const keyedTransient = idempotencyKey !== undefined
        && (response.status === 408 || (response.status === 409 && error.code === 'idempotency_in_progress'));
      if (!last && keyedTransient) {
        await sleep(backoff, signal);
        continue;
      }
      throw error;
    }
  }

  const get = (path, signal) => request('GET', path, { signal });

  let optionsPromise = null;
  // What only the deployment knows, fetched once: a failed fetch is not cached.
  function options() {
    optionsPromise ??= Promise.all([get('/get_templates'), get('/get_engines'), get('/get_account')]).then(
      ([templates, engineList, account]) => {
        const engine = engineList.engines.find((e) => e.default) ?? engineList.engines[0];
        if (!engine) throw new StillreelApiError(0, 'no_engine', 'the server lists no render engine (GET /get_engines)');
        return {
          templates: templates.templates,
          available_vfx: engine.vfx_types,
          available_engines: engineList.engines.map((e) => e.id),
          default_engine: engine.id,
          clip_limit: account.clip_limit,
        };
      },
      (err) => {
        optionsPromise = null;
        throw err;
      },
    );
    return optionsPromise;
  }

  const client = {
    async createVideo(body, { idempotencyKey, signal } = {}) {
      checked(validateCreateVideo(body, await options()));
      return request('POST', '/create_video', { body, idempotencyKey: idempotencyKey ?? newIdempotencyKey(), signal });
    },
    async combineVideoClips(body, { idempotencyKey, signal } = {}) {
      checked(validateCombineVideoClips(body, await options()));
      return request('POST', '/combine_video_clips', { body, idempotencyKey: idempotencyKey ?? newIdempotencyKey(), signal });
    },
    async createProject(body, { signal } = {}) {
      checked(validateCreateProject(body));
      return request('POST', '/create_project', { body, signal });
    },
    getVideo: (uuid, { signal } = {}) => get(`/get_video?uuid=${encodeURIComponent(uuid)}`, signal),
    getVideos({ project, status, q, limit, cursor, signal } = {}) {
      return get(`/get_videos${queryString({ project, status, q, limit, cursor })}`, signal);
    },
    async *listVideos({ project, status, q, limit, signal } = {}) {
      let cursor;
      do {
        const page = await client.getVideos({ project, status, q, limit, cursor, signal });
        yield* page.videos;
        cursor = page.next_cursor;
      } while (cursor);
    },
    deleteVideo: (uuid, { signal } = {}) => request('POST', '/delete_video', { body: { uuid }, signal }),
    getUploads: ({ limit, cursor, signal } = {}) => get(`/get_uploads${queryString({ limit, cursor })}`, signal),
    deleteUpload: (uuid, { signal } = {}) => request('POST', '/delete_upload', { body: { uuid }, signal }),
    uploadMedia(data, { contentType, signal } = {}) {
      const type = contentType ?? (typeof data?.type === 'string' && data.type !== '' ? data.type : undefined);
      if (type === undefined) {
        return Promise.reject(new TypeError('uploadMedia: give contentType (image/jpeg, audio/mpeg ...) for data without a type'));
      }
      return request('POST', '/upload_media', { raw: data, contentType: type, signal });
    },
    async createBrandKit(body, { signal } = {}) {
      checked(validateCreateBrandKit(body, await options()));
      return request('POST', '/create_brand_kit', { body, signal });
    },
    async updateBrandKit(body, { signal } = {}) {
      checked(validateUpdateBrandKit(body, await options()));
      return request('POST', '/update_brand_kit', { body, signal });
    },
    getBrandKits: ({ limit, cursor, signal } = {}) => get(`/get_brand_kits${queryString({ limit, cursor })}`, signal),
    deleteBrandKit: (uuid, { signal } = {}) => request('POST', '/delete_brand_kit', { body: { uuid }, signal }),
    getProjects: ({ signal } = {}) => get('/get_projects', signal),
    getTemplates: ({ signal } = {}) => get('/get_templates', signal),
    getEngines: ({ signal } = {}) => get('/get_engines', signal),
    getAccount: ({ signal } = {}) => get('/get_account', signal),
    validationOptions: options,

    async waitForVideo(uuid, { onProgress, signal, intervalMs = 1000, branding = false } = {}) {
      let interval = intervalMs;
      let seen = null;
      for (;;) {
        if (signal?.aborted) throw abortError(signal);
        const video = await client.getVideo(uuid, { signal });
        const state = `${video.status}/${video.progress}/${video.branding?.status ?? ''}`;
        if (state !== seen) {
          seen = state;
          onProgress?.(video.progress, video);
        }
        if (video.status === 'error') {
          throw new StillreelJobError(video, `video ${uuid} failed: ${video.error?.message ?? 'render error'}`);
        }
        if (video.status === 'complete') {
          const b = video.branding;
          if (!branding || !b || b.status === 'complete') return video;
          if (b.status === 'error') {
            throw new StillreelJobError(video, `branded render of ${uuid} failed: ${b.error?.message ?? 'render error'}`);
          }
        }
        await sleep(interval, signal);
        interval = Math.min(interval * 1.5, MAX_INTERVAL_MS);
      }
    },
  };
  return client;
}
