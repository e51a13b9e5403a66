// A worker thread starts without the TypeScript loader of the process that runs from source
// (tests, the CLI): register it (tsx), then run the worker module named in workerData. The
// compiled server starts its compiled workers directly (lib/worker-pool.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
