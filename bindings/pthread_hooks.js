// --post-js of the threaded build (Emscripten 3.1.6 pthreads), run inside the
// module's closure on the main thread.
// 1. Node: Emscripten never unrefs its pthread Workers, so an idle module
//    would keep the process alive forever. Each Worker is unref'd once it has
//    loaded the module (not before: startup waits on the pool's 'loaded'
//    messages).
// 2. A pthread that dies (trap, abort, stack overflow) makes its Worker fire
//    'error', and Emscripten's handler rethrows it: in Node an uncaught
//    exception that ends the host process. Ours reports it to the JS loader
//    (Module.tirOnWorkerError; npm/src/lib/trap.ts discards the instance). One that
//    dies while the module starts rejects the module's promise, which would
//    otherwise wait for it forever. The main thread is not left waiting either:
//    worker.js marks the thread crashed (_emscripten_thread_crashed) and the
//    main thread's futex waits (1 ms slices) then throw 'unwind' out of the
//    call in progress.
if (!ENVIRONMENT_IS_PTHREAD && typeof PThread == 'object') {
  var tirWorkerFailed = function(worker, e) {
    if (worker.tirFailed) return;
    worker.tirFailed = true;
    var msg = 'a pthread worker died: ' + (e && e.message ? e.message : String(e));
    if (!runtimeInitialized) readyPromiseReject(new Error(msg));
    else if (Module['tirOnWorkerError']) Module['tirOnWorkerError'](msg);
  };
  var tirLoadWasmModuleToWorker = PThread.loadWasmModuleToWorker;
  PThread.loadWasmModuleToWorker = function(worker, onFinishedLoading) {
    tirLoadWasmModuleToWorker(worker, function(w) {
      if (ENVIRONMENT_IS_NODE && worker.unref) worker.unref();
      if (onFinishedLoading) onFinishedLoading(w);
    });
    // Emscripten just set its rethrowing handler (Node calls worker.onerror
    // from its 'error' listener, so replacing the property is enough).
    worker.onerror = function(e) {
      tirWorkerFailed(worker, e);
    };
    worker.tirHooked = true;
    // Died before this hook (npm/src/lib/backend.ts's Node shim remembers it).
    if (worker.tirError) tirWorkerFailed(worker, worker.tirError);
  };
}
