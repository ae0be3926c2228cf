// Reads IR / weights / constants sources: bytes, paths (Node), URLs (fetch),
// Blobs. Reports progress through onProgress({status, file, loaded, total,
// progress, source}); a load's AbortSignal stops a fetch or file read.

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

export function isBlob(v) {
  return typeof Blob !== 'undefined' && v instanceof Blob;
}

// A string or URL naming a file/resource (as opposed to inline data).
export function isLocation(v) {
  return typeof v === 'string' || (typeof URL !== 'undefined' && v instanceof URL);
}

function isRemote(loc) {
  const s = String(loc);
  return /^(https?|data|blob):/i.test(s);
}

// fetchOptions: the caller's RequestInit (headers, credentials, ...); signal
// aborts the request and the body read.
async function fetchBytes(url, onProgress, { signal, fetchOptions } = {}) {
  const init = { ...fetchOptions };
  if (signal) init.signal = fetchOptions?.signal && typeof AbortSignal.any === 'function' ? AbortSignal.any([signal, fetchOptions.signal]) : signal;
  const res = await fetch(url, init);
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
    if (signal?.aborted) {
      reader.cancel().catch(() => {});
      signal.throwIfAborted();
    }
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

// Progress events, transformers.js style: per file 'initiate', then
// 'progress' (progress = percent of total; 0 while the total is unknown), then
// 'done'. The older fields loaded / total / source stay on every event.
function progressReporter(onProgress, file) {
  if (!onProgress) return undefined;
  const emit = (status, loaded, total) => onProgress({
    status, file, loaded, total, progress: status === 'done' ? 100 : total > 0 ? (100 * loaded) / total : 0, source: file,
  });
  emit('initiate', 0, 0);
  return {
    progress: ({ loaded, total }) => emit('progress', loaded, total),
    done: (bytes) => emit('done', bytes.length, bytes.length),
  };
}

/**
 * Reads a location (path / URL string / URL / Blob) into bytes.
 * Returns {bytes, origin}; throws the raw error (callers wrap it), or the
 * signal's reason once `signal` is aborted.
 * load: {signal, fetchOptions} (fetchOptions: RequestInit for URLs).
 */
export async function readLocation(loc, onProgress, { signal, fetchOptions } = {}) {
  signal?.throwIfAborted();
  const blob = isBlob(loc);
  const path = blob ? null : await localPath(loc);
  const origin = blob ? loc.name || 'blob' : path ?? String(loc);
  const report = progressReporter(onProgress, origin);
  let bytes;
  try {
    if (blob) {
      bytes = new Uint8Array(await loc.arrayBuffer());
    } else if (path !== null) {
      bytes = await (await import('#node')).readFileNode(path, report?.progress, signal);
    } else {
      let url = loc;
      if (!isNode && typeof loc === 'string' && typeof document !== 'undefined') url = new URL(loc, document.baseURI);
      else if (!isNode && typeof loc === 'string' && typeof location !== 'undefined') url = new URL(loc, location.href);
      bytes = await fetchBytes(url, report?.progress, { signal, fetchOptions });
    }
  } catch (e) {
    signal?.throwIfAborted(); // whatever fetch or the read made of the abort: the signal's reason
    throw e;
  }
  signal?.throwIfAborted();
  report?.done(bytes);
  return { bytes, origin };
}
