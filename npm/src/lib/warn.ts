// One place for user-facing warnings (silence with env.warnings = false).
import { env } from './backend.js';
export function warn(message: string): void { if (env.warnings !== false) console.warn(`torch-ir-wasm: ${message}`); }
