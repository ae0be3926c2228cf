// env.cache in Node: one file per URL in the cache directory, named by the URL's SHA-256, with
// the entry's metadata beside it (.json). Written to a temporary name, then renamed, so a
// reader never sees half a file.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'torch-ir-wasm');
}

const entryName = (url: string): string => createHash('sha256').update(url).digest('hex');

export async function cacheReadNode(dir: string, url: string): Promise<{ bytes: Uint8Array; meta: string } | null> {
  const base = join(dir, entryName(url));
  try {
    const meta = await readFile(base + '.json', 'utf8');
    const buf = await readFile(base);
    return { bytes: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), meta };
  } catch {
    return null;
  }
}

export async function cacheWriteNode(dir: string, url: string, bytes: Uint8Array, meta: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const base = join(dir, entryName(url));
  const tmp = `${base}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, base);
  await writeFile(tmp + '.json', meta);
  await rename(tmp + '.json', base + '.json');
}

export async function cacheDeleteNode(dir: string, url: string): Promise<void> {
  const base = join(dir, entryName(url));
  await rm(base + '.json', { force: true });
  await rm(base, { force: true });
}
