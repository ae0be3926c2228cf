// The model-file cache (env.cache): files fetched from http(s) URLs are kept, keyed by URL, so a
// second load reads them from the cache and makes no request. In pages and workers it is the
// Cache API (on by default); in Node a directory (off by default: set env.cache.dir, or
// env.cache.enabled = true for ~/.cache/torch-ir-wasm). An entry holds the response's ETag and
// Last-Modified, its size and the SHA-256 of its bytes (where crypto.subtle exists); an entry
// whose bytes no longer have that size or hash is dropped and fetched again.
import { isNode } from './platform.js';

/** env.cache. */
export interface CacheSettings {
  /** Cache model files fetched from http(s) URLs. Default: true in browsers and workers, false in Node. */
  enabled: boolean;
  /** Node: the cache directory (setting it turns the cache on); default ~/.cache/torch-ir-wasm ($XDG_CACHE_HOME). */
  dir: string | undefined;
  /** Browsers: the Cache API cache's name. */
  name: string;
}

export const cacheSettings: CacheSettings = {
  enabled: !isNode && typeof caches !== 'undefined',
  dir: undefined,
  name: 'torch-ir-wasm',
};

/** What the cache keeps beside the bytes. */
interface EntryMeta {
  url: string;
  size: number;
  sha256: string | null;
  etag: string | null;
  lastModified: string | null;
}

function cacheable(url: string): boolean {
  return /^https?:/i.test(url);
}

function nodeCacheOn(): boolean {
  return cacheSettings.enabled || cacheSettings.dir !== undefined;
}

/** Whether a fetch of `url` goes through the cache. */
export function cacheActive(url: string): boolean {
  if (!cacheable(url)) return false;
  return isNode ? nodeCacheOn() : cacheSettings.enabled && typeof caches !== 'undefined';
}

async function sha256(bytes: Uint8Array): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const d = new Uint8Array(await subtle.digest('SHA-256', bytes as unknown as ArrayBuffer));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function valid(meta: EntryMeta, bytes: Uint8Array): Promise<boolean> {
  if (bytes.length !== meta.size) return false;
  return meta.sha256 === null || (await sha256(bytes)) === meta.sha256;
}

/** The cached bytes of `url`, or null (a missing or damaged entry: damaged ones are dropped). */
export async function cacheGet(url: string): Promise<Uint8Array | null> {
  try {
    if (isNode) {
      const node = await import('#node');
      const got = await node.cacheReadNode(cacheDir(node), url);
      if (!got) return null;
      const meta = JSON.parse(got.meta) as EntryMeta;
      if (meta.url === url && (await valid(meta, got.bytes))) return got.bytes;
      await node.cacheDeleteNode(cacheDir(node), url);
      return null;
    }
    const cache = await caches.open(cacheSettings.name);
    const res = await cache.match(url);
    if (!res) return null;
    const meta = JSON.parse(res.headers.get('x-torch-ir-wasm-meta') ?? 'null') as EntryMeta | null;
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (meta && meta.url === url && (await valid(meta, bytes))) return bytes;
    await cache.delete(url);
    return null;
  } catch {
    return null; // an unusable cache (quota, private mode, a read-only directory): fetch
  }
}

/** Keeps `bytes` fetched from `url` (errors are ignored: the cache is an optimisation). */
export async function cachePut(url: string, bytes: Uint8Array, headers: Headers): Promise<void> {
  const meta: EntryMeta = {
    url, size: bytes.length, sha256: await sha256(bytes).catch(() => null),
    etag: headers.get('etag'), lastModified: headers.get('last-modified'),
  };
  try {
    if (isNode) {
      const node = await import('#node');
      await node.cacheWriteNode(cacheDir(node), url, bytes, JSON.stringify(meta));
      return;
    }
    const cache = await caches.open(cacheSettings.name);
    await cache.put(url, new Response(bytes as unknown as BodyInit, {
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length), 'x-torch-ir-wasm-meta': JSON.stringify(meta) },
    }));
  } catch {
    // not kept
  }
}

function cacheDir(node: { defaultCacheDir(): string }): string {
  return cacheSettings.dir ?? node.defaultCacheDir();
}
