// --post-js of the threaded build. Emscripten 3.1.6 never unrefs its pthread
// Workers, so in Node an idle module would keep the process alive forever.
// Each Worker is unref'd once it has loaded the module (not before: the module's
// startup waits on the pool's 'loaded' messages).
if (ENVIRONMENT_IS_NODE && !ENVIRONMENT_IS_PTHREAD && typeof PThread == 'object') {
  var tirLoadWasmModuleToWorker = PThread.loadWasmModuleToWorker;
  PThread.loadWasmModuleToWorker = function(worker, onFinishedLoading) {
    tirLoadWasmModuleToWorker(worker, function(w) {
      if (worker.unref) worker.unref();
      if (onFinishedLoading) onFinishedLoading(w);
    });
  };
}
