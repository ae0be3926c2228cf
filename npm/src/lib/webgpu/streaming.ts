// Weights streamed to the GPU instead of copied into WASM memory (docs/webgpu.md, "Weights"):
// a WebGPU model's safetensors files reach the engine as their header alone. At compile the
// engine places the nodes, then asks (reader) for the bytes of the weights the CPU reads; the
// executor uploads every other weight straight from these bytes at create, after which they are
// released. torch.save archives and tensors given as objects still go to WASM memory whole.
import { check } from '../errors.js';
import type { EmbindObject } from '../backend.js';

/** Where a streamed tensor's bytes are: file (index of its addWeightsFileStreamed), offset, length. */
interface StreamedSource {
  name: string;
  dtype: string;
  file: number;
  offset: number;
  bytes: number;
}

// A safetensors file (not a torch.save zip or pickle): an 8-byte header length, then '{'.
function isSafetensors(bytes: Uint8Array): boolean {
  return bytes.length >= 10 && bytes[8] === 0x7b && !(bytes[0] === 0x50 && bytes[1] === 0x4b);
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
  private files: Uint8Array[] | null = [];
  private sources: Map<string, StreamedSource> | null = null; // once the engine has bound the weights
  /** The engine's reader: (file index, byte offset, byte count) -> the bytes. */
  readonly reader = (file: number, offset: number, bytes: number): Uint8Array => this.files![file]!.subarray(offset, offset + bytes);

  /** Hands `op` (collectTensors' {file, origin}) to the engine as a header; false if not safetensors. */
  add(handle: EmbindObject, op: { file: Uint8Array; origin: string }): boolean {
    if (!this.files || !isSafetensors(op.file)) return false;
    const dv = new DataView(op.file.buffer, op.file.byteOffset, op.file.byteLength);
    // The engine checks the header length; this only bounds what is copied into WASM memory.
    const headEnd = Math.min(op.file.length, 8 + Number(dv.getBigUint64(0, true)));
    check(handle.addWeightsFileStreamed(op.file.subarray(0, headEnd), op.file.length, op.origin), 'WeightLoadError');
    this.files.push(op.file);
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
   * The bytes of streamed source tensor `name` (a plan value's "streamed") as the engine would
   * hold them for a value of `dtype`: half floats widened to float32, as bind() does on the CPU.
   */
  bytesOf(name: string, dtype: string): Uint8Array {
    const s = this.sources?.get(name);
    if (!s || !this.files) throw new Error(`WebGPU: no streamed bytes for weight '${name}'`);
    const bytes = this.reader(s.file, s.offset, s.bytes);
    if (s.dtype === dtype) return bytes;
    if (dtype === 'float32' && (s.dtype === 'float16' || s.dtype === 'bfloat16')) return widenHalf(bytes, s.dtype);
    throw new Error(`WebGPU: weight '${name}' is ${s.dtype} in its file, the engine holds it as ${dtype}`);
  }

  /** Drops the file bytes (the GPU holds the weights now). */
  release(): void {
    this.files = null;
    this.sources = null;
  }
}
