// Entry of the Node engine worker (worker-mode.js): serves proxy.js's protocol
// (proxy-worker.js serveProxy) on the thread's parentPort.
import { parentPort } from 'node:worker_threads';
import { serveProxy } from '../proxy-worker.js';

// @internal test hooks (debugFaultProxy): a worker that dies, the two ways a
// thread can (process.exit ends only this thread; an uncaught exception).
function debugDeath(data: any): boolean {
  if (data?.op !== 'debugFault') return false;
  if (data.args?.[0] === 'proxy-exit') process.exit(7);
  if (data.args?.[0] === 'proxy-throw') throw new Error('debugFault proxy-throw'); // uncaught: ends the thread
  return false;
}

serveProxy({
  post: (message, transfer) => parentPort!.postMessage(message, transfer),
  listen: (handler) => parentPort!.on('message', (data) => {
    if (!debugDeath(data)) handler(data);
  }),
});
