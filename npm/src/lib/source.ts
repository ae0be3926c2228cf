// Reads IR / weights / constants sources: bytes, paths (Node), URLs (fetch),
// Blobs. Reports progress through onProgress({status, file, loaded, total,
// progress, source}); a load's AbortSignal stops a fetch or file read.

import { cacheActive, cacheGet, cachePut } from './cache.js';
import { isNode } from './platform.js';
import type { Progress } from './model_types.js';

/** A load's controls (loadIR / loadLM options): its AbortSignal and the RequestInit for URLs. */
export interface LoadControls {
  signal?: AbortSignal | undefined;
  fetchOptions?: RequestInit | undefined;
}

/** Bytes read so far of one file (the raw reports the Progress events are made from). */
export type ReadProgress = (p: { loaded: number; total: number; source?: string }) => void;

export { isNode };

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EMFILE: 'Too many open files',
};

export function errnoText(e: any): string {
  return ERRNO_TEXT[e?.code] || e?.message || String(e);
}

export function isBytesLike(v: unknown): v is ArrayBuffer | SharedArrayBuffer | ArrayBufferView {
  return v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer) ||
    (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

export function asUint8(v: ArrayBuffer | SharedArrayBuffer | ArrayBufferView): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return new Uint8Array(v);
}

export function isBlob(v: unknown): v is Blob {
  return typeof Blob !== 'undefined' && v instanceof Blob;
}

// A string or URL naming a file/resource (as opposed to inline data).
export function isLocation(v: unknown): v is string | URL {
  return typeof v === 'string' || (typeof URL !== 'undefined' && v instanceof URL);
}

function isRemote(loc: unknown): boolean {
  const s = String(loc);
  return /^(https?|data|blob):/i.test(s);
}

/**
 * A load's RequestInit: the caller's fetchOptions (headers, credentials, ...), `headers` added
 * to theirs, and the load's signal (with fetchOptions' own, where AbortSignal.any exists).
 */
export function requestInit({ signal, fetchOptions }: LoadControls, headers?: Record<string, string>): RequestInit {
  const init: RequestInit = { ...fetchOptions };
  if (headers) {
    const h = new Headers(fetchOptions?.headers);
    for (const [k, v] of Object.entries(headers)) h.set(k, v);
    init.headers = h;
  }
  if (signal) init.signal = fetchOptions?.signal && typeof AbortSignal.any === 'function' ? AbortSignal.any([signal, fetchOptions.signal]) : signal;
  return init;
}

/** A location string as fetch takes it: in a page or worker, relative to its base URL. */
export function fetchUrl(loc: string | URL): string | URL {
  if (isNode || typeof loc !== 'string') return loc;
  if (typeof document !== 'undefined') return new URL(loc, document.baseURI);
  if (typeof location !== 'undefined') return new URL(loc, location.href);
  return loc;
}

// signal aborts the request and the body read. Through env.cache where it applies (http(s) URLs):
// a cached file is read without a request ({cached: true}); a fetched one is kept.
async function fetchBytes(url: string | URL, onProgress: ReadProgress | undefined, load: LoadControls = {}): Promise<{ bytes: Uint8Array; cached: boolean }> {
  const key = String(url);
  const useCache = cacheActive(key);
  if (useCache) {
    const hit = await cacheGet(key);
    load.signal?.throwIfAborted();
    if (hit) return { bytes: hit, cached: true };
  }
  const bytes = await fetchBody(url, onProgress, load);
  if (useCache) await cachePut(key, bytes.bytes, bytes.headers);
  return { bytes: bytes.bytes, cached: false };
}

async function fetchBody(url: string | URL, onProgress: ReadProgress | undefined, load: LoadControls): Promise<{ bytes: Uint8Array; headers: Headers }> {
  const { signal } = load;
  const res = await fetch(url, requestInit(load));
  if (!res.ok) throw Object.assign(new Error(`HTTP ${res.status} ${res.statusText}`), { code: 'HTTP' });
  const total = Number(res.headers.get('content-length')) || 0;
  if (!onProgress || !res.body) {
    const bytes = new Uint8Array(await res.arrayBuffer());
    onProgress?.({ loaded: bytes.length, total: total || bytes.length, source: String(url) });
    return { bytes, headers: res.headers };
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
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
  return { bytes: out, headers: res.headers };
}

// Node path or file: URL -> filesystem path, else null.
export async function localPath(loc: string | URL): Promise<string | null> {
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
export function progressReporter(onProgress: ((event: Progress) => void) | undefined, file: string) {
  if (!onProgress) return undefined;
  const emit = (status: Progress['status'], loaded: number, total: number, cached = false) => onProgress({
    status, file, loaded, total, progress: status === 'done' ? 100 : total > 0 ? (100 * loaded) / total : 0, source: file,
    ...(cached ? { cached } : {}),
  });
  emit('initiate', 0, 0);
  return {
    progress: (({ loaded, total }) => emit('progress', loaded, total)) as ReadProgress,
    done: (bytes: Uint8Array, cached = false) => emit('done', bytes.length, bytes.length, cached),
  };
}

/**
 * Reads a location (path / URL string / URL / Blob) into bytes.
 * Returns {bytes, origin}; throws the raw error (callers wrap it), or the
 * signal's reason once `signal` is aborted.
 * load: {signal, fetchOptions} (fetchOptions: RequestInit for URLs).
 */
export async function readLocation(loc: string | URL | Blob, onProgress: ((event: Progress) => void) | undefined,
  { signal, fetchOptions }: LoadControls = {}): Promise<{ bytes: Uint8Array; origin: string }> {
  signal?.throwIfAborted();
  const blob = isBlob(loc);
  const path = blob ? null : await localPath(loc);
  const origin = blob ? (loc as File).name || 'blob' : path ?? String(loc);
  const report = progressReporter(onProgress, origin);
  let bytes: Uint8Array;
  let cached = false;
  try {
    if (blob) {
      bytes = new Uint8Array(await (loc as Blob).arrayBuffer());
    } else if (path !== null) {
      bytes = await (await import('#node')).readFileNode(path, report?.progress, signal);
    } else {
      ({ bytes, cached } = await fetchBytes(fetchUrl(loc as string | URL), report?.progress, { signal, fetchOptions }));
    }
  } catch (e) {
    signal?.throwIfAborted(); // whatever fetch or the read made of the abort: the signal's reason
    throw e;
  }
  signal?.throwIfAborted();
  report?.done(bytes, cached);
  return { bytes, origin };
}
