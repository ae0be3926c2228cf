// The optional peer dependency `webgpu` (dawn.node), as webgpu.ts uses it: it is
// not installed to compile this package, so its one entry point is declared here.
declare module 'webgpu' {
  /** A GPU (navigator.gpu's interface) over dawn.node, with Dawn's toggles. */
  export function create(flags: string[]): unknown;
}
