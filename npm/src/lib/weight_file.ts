// A weights file read by byte ranges instead of whole: how a WebGPU model reads its safetensors
// files (lib/webgpu/streaming.js). The engine gets the header, WASM memory the tensors the CPU
// reads, the GPU every other tensor, one at a time; no copy of the whole file is held. Sources:
// a path (Node: an open file), a Blob (slices), a URL (HTTP Range requests; a server that ignores
// Range sends the whole file once, which is then held like bytes given in memory), or bytes.
import { cacheActive, cacheGet, cachePut } from './cache.js';
import { fetchUrl, localPath, isBlob, progressReporter, requestInit } from './source.js';
import type { LoadControls } from './source.js';
import type { Progress } from './model_types.js';

export interface WeightFile {
  /** The path, URL or file name, as errors name it. */
  readonly origin: string;
  readonly size: number;
  /** `bytes` bytes at `offset` (rejects past the end). */
  read(offset: number, bytes: number): Promise<Uint8Array>;
  /** Ends the reads (closes a file; reports progress 'done'). */
  close(): Promise<void>;
}

type OnProgress = ((event: Progress) => void) | undefined;

// The largest weights file a WebGPU load reads whole to keep in env.cache (larger: streamed by ranges, not cached).
const CACHE_WHOLE_BYTES = 512 << 20;

/** Bytes already in memory, as a WeightFile (reads are views, no copies). */
export function bytesFile(bytes: Uint8Array, origin: string): WeightFile {
  return {
    origin,
    size: bytes.length,
    read: async (offset, n) => {
      if (offset + n > bytes.length) throw new Error(`${origin}: ${offset + n} bytes asked of a ${bytes.length}-byte file`);
      return bytes.subarray(offset, offset + n);
    },
    close: async () => {},
  };
}

// Counts the bytes read into onProgress's events (total: the file's size). cached: it came from env.cache.
function withProgress(file: WeightFile, onProgress: OnProgress, cached = false): WeightFile {
  const report = progressReporter(onProgress, file.origin);
  if (!report) return file;
  let loaded = 0;
  return {
    origin: file.origin,
    size: file.size,
    read: async (offset, n) => {
      const bytes = await file.read(offset, n);
      loaded += bytes.length;
      report.progress({ loaded, total: file.size, source: file.origin });
      return bytes;
    },
    close: async () => {
      await file.close();
      report.done(new Uint8Array(0), cached);
    },
  };
}

function httpError(res: Response): Error {
  return Object.assign(new Error(`HTTP ${res.status} ${res.statusText}`), { code: 'HTTP' });
}

async function openUrl(url: string | URL, origin: string, load: LoadControls): Promise<WeightFile> {
  const first = await fetch(url, requestInit(load, { Range: 'bytes=0-15' }));
  if (!first.ok) throw httpError(first);
  const total = /\/(\d+)\s*$/.exec(first.headers.get('content-range') ?? '');
  if (first.status !== 206 || !total) return bytesFile(new Uint8Array(await first.arrayBuffer()), origin); // no Range support
  await first.arrayBuffer();
  return {
    origin,
    size: Number(total[1]),
    read: async (offset, n) => {
      if (n === 0) return new Uint8Array(0);
      const res = await fetch(url, requestInit(load, { Range: `bytes=${offset}-${offset + n - 1}` }));
      if (res.status !== 206) throw res.ok ? new Error(`a range request answered ${res.status} (the server stopped honouring Range)`) : httpError(res);
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.length !== n) throw new Error(`a range request for ${n} bytes at ${offset} gave ${bytes.length}`);
      return bytes;
    },
    close: async () => {},
  };
}

/**
 * Opens a location (path / URL string / URL / Blob) for ranged reads. Throws the raw error
 * (callers wrap it with the origin), or the signal's reason once `load.signal` is aborted.
 */
export async function openWeightFile(loc: string | URL | Blob, onProgress: OnProgress, load: LoadControls = {}): Promise<WeightFile> {
  load.signal?.throwIfAborted();
  let file: WeightFile;
  try {
    if (isBlob(loc)) {
      const blob = loc as Blob;
      file = {
        origin: (loc as File).name || 'blob',
        size: blob.size,
        read: async (offset, n) => new Uint8Array(await blob.slice(offset, offset + n).arrayBuffer()),
        close: async () => {},
      };
    } else {
      const path = await localPath(loc);
      if (path !== null) {
        const f = await (await import('#node')).openFileNode(path);
        file = { origin: path, ...f };
      } else {
        const url = fetchUrl(loc);
        const cached = cacheActive(String(url)) ? await cacheGet(String(url)) : null;
        if (cached) return withProgress(bytesFile(cached, String(loc)), onProgress, true);
        file = await openUrl(url, String(loc), load);
        // env.cache keeps files up to CACHE_WHOLE_BYTES: read whole once, kept for the next load;
        // larger ones stream by ranges and are not cached.
        if (cacheActive(String(url)) && file.size <= CACHE_WHOLE_BYTES) {
          const bytes = await file.read(0, file.size);
          await cachePut(String(url), bytes, new Headers());
          file = bytesFile(bytes, String(loc));
        }
      }
    }
  } catch (e) {
    load.signal?.throwIfAborted();
    throw e;
  }
  return withProgress(file, onProgress);
}
