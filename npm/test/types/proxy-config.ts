// An app that sets env.proxy = true tells the types once (declaration merging):
// loadIR then resolves to ProxyModel, whose methods are all async.
import { env } from 'torch-ir-wasm';

declare module 'torch-ir-wasm' {
  interface TypeConfig {
    proxy: true;
  }
}

env.proxy = true;
