// --js-library of both WASM builds: the relaxed-SIMD kernel module (src/kernels/wasm_relaxed/,
// bytes in bindings/relaxed_kernels.gen.js, a --pre-js) instantiated on the engine's own memory,
// once per thread that calls it (a pthread Worker has its own JS realm). kernels/gemm_s8.cpp
// asks tir_relaxed_s8_available() once, on the thread that first packs an int8 weight; where
// relaxed SIMD is missing (the module does not compile) or its int8 dot product is not exact on
// unsigned bytes (rx_probe), or the module was created with { tirRelaxedSimd: false }, the engine
// keeps its SIMD128 kernel. kernels/gemm.cpp asks tir_relaxed_f32_available() once, on its first
// blocked f32 product: the f32 kernel needs relaxed SIMD only (relaxed_madd fused or not).
mergeInto(LibraryManager.library, {
  $tirRelaxedExports: function() {
    if (tirRelaxedExports.cached !== undefined) return tirRelaxedExports.cached;
    var exports = null;
    try {
      var shared = typeof SharedArrayBuffer != 'undefined' && wasmMemory.buffer instanceof SharedArrayBuffer;
      var text = atob(shared ? tirRelaxedKernels.shared : tirRelaxedKernels.plain);
      var bytes = new Uint8Array(text.length);
      for (var i = 0; i < text.length; ++i) bytes[i] = text.charCodeAt(i);
      exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory: wasmMemory } }).exports;
    } catch (e) {
      exports = null;  // a CompileError: this engine has no relaxed SIMD
    }
    tirRelaxedExports.cached = exports;
    return exports;
  },
  tir_relaxed_s8_available__deps: ['$tirRelaxedExports'],
  tir_relaxed_s8_available: function() {
    if (Module['tirRelaxedSimd'] === false) return 0;
    var e = tirRelaxedExports();
    return e && e['rx_probe'](127, -128, 255) ? 1 : 0;
  },
  tir_relaxed_f32_available__deps: ['$tirRelaxedExports'],
  tir_relaxed_f32_available: function() {
    if (Module['tirRelaxedSimd'] === false) return 0;
    return tirRelaxedExports() ? 1 : 0;
  },
  tir_relaxed_f32_fused__deps: ['$tirRelaxedExports'],
  tir_relaxed_f32_fused: function() {
    var e = tirRelaxedExports();
    return e && e['rx_probe_fma'](1 + Math.pow(2, -12), -(1 + Math.pow(2, -11))) ? 1 : 0;
  },
  tir_relaxed_gemm_f32__deps: ['$tirRelaxedExports'],
  tir_relaxed_gemm_f32: function(args) {
    tirRelaxedExports()['rx_gemm_f32'](args);
  },
  tir_relaxed_gemm_s8__deps: ['$tirRelaxedExports'],
  tir_relaxed_gemm_s8: function(args, p0, p1, t0, t1) {
    tirRelaxedExports()['rx_gemm_s8'](args, p0, p1, t0, t1);
  },
});
