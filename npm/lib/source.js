// Reads IR / weights / constants sources: bytes, paths (Node), URLs (fetch),
// Blobs. Reports progress through onProgress({loaded, total, source}).

export const isNode =
  typeof process === 'object' && process !== null && typeof process.versions?.node === 'string' &&
  typeof window === 'undefined';

const ERRNO_TEXT = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EMFILE: 'Too many open files',
};

export function errnoText(e) {
  return ERRNO_TEXT[e?.code] || e?.message || String(e);
}

export function isBytesLike(v) {
  return v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer) ||
    (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

export function asUint8(v) {
  if (v instanceof Uint8Array) return v;
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return new Uint8Array(v);
}

// A string or URL naming a file/resource (as opposed to inline data).
export function isLocation(v) {
  return typeof v === 'string' || (typeof URL !== 'undefined' && v instanceof URL);
}

function isRemote(loc) {
  const s = String(loc);
  return /^(https?|data|blob):/i.test(s);
}

async function fetchBytes(url, onProgress) {
  const res = await fetch(url);
  if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status} ${res.statusText}`), { code: 'HTTP' });
  const total = Number(res.headers.get('content-length')) || 0;
  if (!onProgress || !res.body) {
    const bytes = new Uint8Array(await res.arrayBuffer());
    onProgress?.({ loaded: bytes.length, total: total || bytes.length, source: String(url) });
    return bytes;
  }
  const reader = res.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress({ loaded, total, source: String(url) });
  }
  const out = new Uint8Array(loaded);
  let pos = 0;
  for (const c of chunks) {
    out.set(c, pos);
    pos += c.length;
  }
  onProgress({ loaded, total: total || loaded, source: String(url) });
  return out;
}

// Node path or file: URL -> filesystem path, else null.
export async function localPath(loc) {
  if (!isNode || isRemote(loc)) return null;
  const s = String(loc);
  if (s.startsWith('file:')) {
    return (await import('#node')).fileURLToPath(s);
  }
  return s;
}

/**
 * Reads a location (path / URL string / URL / Blob) into bytes.
 * Returns {bytes, origin}; throws the raw error (callers wrap it).
 */
export async function readLocation(loc, onProgress) {
  if (typeof Blob !== 'undefined' && loc instanceof Blob) {
    return { bytes: new Uint8Array(await loc.arrayBuffer()), origin: loc.name || 'blob' };
  }
  const path = await localPath(loc);
  if (path !== null) return { bytes: await (await import('#node')).readFileNode(path, onProgress), origin: path };
  let url = loc;
  if (!isNode && typeof loc === 'string' && typeof document !== 'undefined') url = new URL(loc, document.baseURI);
  else if (!isNode && typeof loc === 'string' && typeof location !== 'undefined') url = new URL(loc, location.href);
  return { bytes: await fetchBytes(url, onProgress), origin: String(loc) };
}
