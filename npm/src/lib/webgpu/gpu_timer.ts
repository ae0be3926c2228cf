// Per-node GPU times from timestamp queries ('timestamp-query'): a profiled run
// gives each GPU node a compute pass of its own whose beginning and end write
// timestamps; one resolve at the end of the run reads them all. Unlike wall
// times, nothing syncs between nodes, so the run keeps its shape and the times
// hold no submit or readback latency.
import { BUFFER_USAGE, MAP_MODE_READ, type GpuObject } from './kernels.js';

const QUERY_RESOLVE = 0x200;
// WebGPU's ceiling on one query set's count: larger plans use several sets.
const QUERIES_PER_SET = 4096;
const NODES_PER_SET = QUERIES_PER_SET / 2;

export class GpuTimer {
  private sets: GpuObject[] = [];
  private resolve: GpuObject[] = [];
  private staging: GpuObject[] = [];

  /** Whether `device` can time passes (the feature was granted at requestDevice). */
  static available(device: GpuObject): boolean {
    return Boolean(device.features?.has?.('timestamp-query'));
  }

  /** Room for `nodes` timed passes per run. */
  constructor(private device: GpuObject, readonly nodes: number) {
    for (let first = 0; first < nodes; first += NODES_PER_SET) {
      const count = 2 * Math.min(NODES_PER_SET, nodes - first);
      this.sets.push(device.createQuerySet({ type: 'timestamp', count }));
      this.resolve.push(device.createBuffer({ size: count * 8, usage: QUERY_RESOLVE | BUFFER_USAGE.COPY_SRC }));
      this.staging.push(device.createBuffer({ size: count * 8, usage: BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST }));
    }
  }

  /** The compute pass descriptor that times node `k` (0-based, in run order). */
  passOf(k: number): { timestampWrites: object } {
    const at = 2 * (k % NODES_PER_SET);
    return {
      timestampWrites: {
        querySet: this.sets[Math.floor(k / NODES_PER_SET)],
        beginningOfPassWriteIndex: at,
        endOfPassWriteIndex: at + 1,
      },
    };
  }

  /** Milliseconds of the first `used` nodes of the run just submitted. */
  async read(used: number): Promise<number[]> {
    const enc = this.device.createCommandEncoder();
    const sets = Math.ceil(used / NODES_PER_SET);
    for (let s = 0; s < sets; ++s) {
      const count = 2 * Math.min(NODES_PER_SET, used - s * NODES_PER_SET);
      enc.resolveQuerySet(this.sets[s], 0, count, this.resolve[s], 0);
      enc.copyBufferToBuffer(this.resolve[s], 0, this.staging[s], 0, count * 8);
    }
    this.device.queue.submit([enc.finish()]);
    const ms: number[] = [];
    for (let s = 0; s < sets; ++s) {
      const count = 2 * Math.min(NODES_PER_SET, used - s * NODES_PER_SET);
      await this.staging[s].mapAsync(MAP_MODE_READ, 0, count * 8);
      const t = new BigUint64Array(this.staging[s].getMappedRange(0, count * 8));
      // An implementation may clamp or reorder stamps across passes: never a negative time.
      for (let i = 0; i < count; i += 2) ms.push(t[i + 1]! > t[i]! ? Number(t[i + 1]! - t[i]!) / 1e6 : 0);
      this.staging[s].unmap();
    }
    return ms;
  }

  destroy(): void {
    for (const b of [...this.sets, ...this.resolve, ...this.staging]) b.destroy();
    this.sets = this.resolve = this.staging = [];
  }
}
