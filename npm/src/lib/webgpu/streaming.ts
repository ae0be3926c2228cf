// Weights streamed to the GPU instead of copied into WASM memory (docs/webgpu.md, "Weights"):
// a WebGPU model's safetensors files reach the engine as their header alone, read by ranges
// (lib/weight_file.js: paths, Blobs, URLs with Range requests, or bytes already in memory). At
// compile the engine places the nodes and names the weights the CPU reads: those are read into
// WASM memory (supply). The executor then uploads every other weight, one tensor at a time, from
// the file. torch.save archives and tensors given as objects still go to WASM memory whole.
import { check, WeightLoadError } from '../errors.js';
import { errnoText } from '../source.js';
import type { EmbindObject } from '../backend.js';
import type { WeightFile } from '../weight_file.js';

/** Where a streamed tensor's bytes are: file (index of its addWeightsFileStreamed), offset, length. */
interface StreamedSource {
  name: string;
  dtype: string;
  file: number;
  offset: number;
  bytes: number;
}

// A safetensors file (not a torch.save zip or pickle): an 8-byte header length, then '{'.
function isSafetensors(head: Uint8Array): boolean {
  return head.length >= 10 && head[8] === 0x7b && !(head[0] === 0x50 && head[1] === 0x4b);
}

async function readRange(file: WeightFile, offset: number, bytes: number, what: string): Promise<Uint8Array> {
  try {
    return await file.read(offset, bytes);
  } catch (e) {
    throw new WeightLoadError(`${file.origin}: cannot read ${what}: ${errnoText(e)}`, { cause: e });
  }
}

let halfTable: Float32Array | null = null; // float16 bits -> float32 value, built on first use
function widenHalf(bytes: Uint8Array, dtype: string): Uint8Array {
  const aligned = bytes.byteOffset % 2 ? bytes.slice() : bytes;
  const h = new Uint16Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 2);
  const out = new Float32Array(h.length);
  if (dtype === 'bfloat16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < h.length; i++) bits[i] = h[i]! << 16;
  } else {
    if (!halfTable) {
      halfTable = new Float32Array(65536);
      for (let b = 0; b < 65536; b++) {
        const e = (b >> 10) & 0x1f;
        const f = b & 0x3ff;
        const v = e === 0 ? f * 2 ** -24 : e === 31 ? (f ? NaN : Infinity) : (1 + f / 1024) * 2 ** (e - 15);
        halfTable[b] = b & 0x8000 ? -v : v;
      }
    }
    for (let i = 0; i < h.length; i++) out[i] = halfTable[h[i]!]!;
  }
  return new Uint8Array(out.buffer);
}

export class StreamedWeights {
  private files: WeightFile[] | null = [];
  private sources: Map<string, StreamedSource> | null = null; // once the engine has bound the weights

  /** Hands `file` to the engine as its header; false if it is not safetensors (read it whole instead). */
  async add(handle: EmbindObject, file: WeightFile): Promise<boolean> {
    if (!this.files || file.size < 10) return false;
    const head = await readRange(file, 0, 10, 'its header');
    if (!isSafetensors(head)) return false;
    const dv = new DataView(head.buffer, head.byteOffset, head.byteLength);
    // The engine checks the header length; this only bounds what is read and copied into WASM memory.
    const headEnd = Math.min(file.size, 8 + Number(dv.getBigUint64(0, true)));
    const header = await readRange(file, 0, headEnd, 'its header');
    check(handle.addWeightsFileStreamed(header, file.size, file.origin), 'WeightLoadError');
    this.files.push(file);
    return true;
  }

  get count(): number {
    return this.files?.length ?? 0;
  }

  /** After the files were added (before compile, which fills some): where each streamed tensor lives. */
  bind(handle: EmbindObject): void {
    const list = JSON.parse(String(handle.streamedWeights())) as StreamedSource[];
    this.sources = new Map(list.map((s) => [s.name, s]));
  }

  /**
   * Between compile() and finishCompile(): reads the streamed weights the CPU reads (the
   * engine's streamedToRead(), in file order) into WASM memory.
   */
  async supply(handle: EmbindObject): Promise<void> {
    const list = (JSON.parse(String(handle.streamedToRead())) as StreamedSource[])
      .sort((a, b) => a.file - b.file || a.offset - b.offset);
    for (const s of list) {
      const bytes = await this._read(s);
      check(handle.setStreamedBytes(s.name, bytes), 'WeightLoadError');
    }
  }

  /**
   * The bytes of streamed source tensor `name` (a plan value's "streamed") as the engine would
   * hold them for a value of `dtype`: half floats widened to float32, as bind() does on the CPU.
   */
  /** The dtype a streamed weight has in its file. */
  fileDtype(name: string): string | undefined { return this.sources?.get(name)?.dtype; }

  async bytesOf(name: string, dtype: string): Promise<Uint8Array> {
    const s = this.sources?.get(name);
    if (!s || !this.files) throw new Error(`WebGPU: no streamed bytes for weight '${name}'`);
    const bytes = await this._read(s);
    if (s.dtype === dtype) return bytes;
    if (dtype === 'float32' && (s.dtype === 'float16' || s.dtype === 'bfloat16')) return widenHalf(bytes, s.dtype);
    throw new Error(`WebGPU: weight '${name}' is ${s.dtype} in its file, the engine holds it as ${dtype}`);
  }

  private _read(s: StreamedSource): Promise<Uint8Array> {
    return readRange(this.files![s.file]!, s.offset, s.bytes, `weight '${s.name}' (${s.bytes} bytes at ${s.offset})`);
  }

  /** Forgets the files (the GPU holds the weights now); whoever opened them closes them. */
  release(): void {
    this.files = null;
    this.sources = null;
  }
}
