import { createWorkerPool } from '../lib/worker-pool.ts';
import type { AttachmentScan } from './anti-malware.ts';
import type { Finding } from './types.ts';

/**
 * The anti-malware scan of large archives on worker threads (zip inflation is CPU work that would
 * otherwise hold the event loop). A worker that dies fails its task: the engine is fail-closed,
 * so the message is marked suspicious.
 */
export function createScanPool(size = 1) {
  const pool = createWorkerPool<AttachmentScan, Finding[]>({
    worker: 'anti-malware.worker',
    besideUrl: import.meta.url,
    size,
  });
  return { scan: (input: AttachmentScan) => pool.run(input), close: pool.close };
}
