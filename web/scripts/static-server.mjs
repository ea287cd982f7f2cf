// A minimal static file server for tests and benchmarks: serves a directory over http with the
// content types browsers insist on (`.wasm` as application/wasm, modules as text/javascript).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm',
  '.jpg': 'image/jpeg', '.png': 'image/png', '.svg': 'image/svg+xml', '.ts': 'text/plain',
};

/** Serves `roots` (URL prefix → directory) on 127.0.0.1; resolves to {url, close}. */
export function serve(roots) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const prefix = Object.keys(roots).filter((p) => path.startsWith(p)).sort((a, b) => b.length - a.length)[0];
    if (prefix === undefined) { res.writeHead(404).end(); return; }
    const base = resolve(roots[prefix]);
    let file = normalize(join(base, path.slice(prefix.length)));
    if (!file.startsWith(base)) { res.writeHead(403).end(); return; }
    if (file.endsWith('/') || file === base) file = join(file, 'index.html');
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => {
    done({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((c) => server.close(c)) });
  }));
}
