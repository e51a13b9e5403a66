import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { compiledDir } from '../lib/build-info.ts';
import type { AttachmentScan } from './anti-malware.ts';
import type { Finding } from './types.ts';

interface Task {
  id: number;
  input: AttachmentScan;
  resolve: (findings: Finding[]) => void;
  reject: (error: Error) => void;
}

/**
 * A small pool of worker threads for the anti-malware scan of large archives (zip inflation is
 * CPU work that would otherwise hold the event loop). Workers start on first use, one task each
 * at a time, the rest wait in order; they do not keep the process alive. A worker that dies
 * fails its task (the engine is fail-closed: the message is marked suspicious) and is replaced.
 */
export function createScanPool(size = 1) {
  // Compiled, the worker is a module of its own beside the server; from source it registers tsx.
  const url = compiledDir
    ? pathToFileURL(path.join(compiledDir, 'anti-malware.worker.mjs'))
    : new URL('./anti-malware.worker.mjs', import.meta.url);
  const idle: Worker[] = [];
  const busy = new Map<Worker, Task>();
  const queue: Task[] = [];
  let started = 0;
  let nextId = 0;

  function spawn(): Worker {
    const worker = new Worker(url);
    worker.unref();
    worker.on('message', (reply: { id: number; findings?: Finding[]; error?: string }) => {
      const task = busy.get(worker);
      busy.delete(worker);
      if (task?.id === reply.id) {
        if (reply.error !== undefined) task.reject(new Error(reply.error));
        else task.resolve(reply.findings ?? []);
      }
      idle.push(worker);
      next();
    });
    worker.on('error', (error) => {
      busy.get(worker)?.reject(error);
      busy.delete(worker);
      started -= 1;
      next();
    });
    started += 1;
    return worker;
  }

  function next(): void {
    while (queue.length > 0) {
      const worker = idle.pop() ?? (started < size ? spawn() : null);
      if (!worker) return;
      const task = queue.shift()!;
      busy.set(worker, task);
      worker.postMessage({ id: task.id, input: task.input });
    }
  }

  return {
    scan(input: AttachmentScan): Promise<Finding[]> {
      return new Promise((resolve, reject) => {
        queue.push({ id: nextId++, input, resolve, reject });
        next();
      });
    },
    async close(): Promise<void> {
      await Promise.all([...idle, ...busy.keys()].map((w) => w.terminate()));
    },
  };
}
