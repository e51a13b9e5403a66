import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { compiledDir } from './build-info.ts';

interface Task<I, O> {
  id: number;
  input: I;
  resolve: (output: O) => void;
  reject: (error: Error) => void;
  /** How long the task may run once a worker has it; past it the worker is ended and replaced. */
  timeoutMs?: number;
  timer?: ReturnType<typeof setTimeout>;
}

/** A task that ran past its time: its worker was ended (a fresh one takes the next task). */
export class WorkerTimeout extends Error {
  readonly code = 'ETIMEDOUT';
}

/** What a worker may ask the pool while it works (a DNS lookup), answered by `serve`. */
export interface WorkerAsk {
  askId: number;
  question: unknown;
}

/**
 * A small pool of worker threads for CPU work that would otherwise hold the event loop. Workers
 * start on first use, one task each at a time, the rest wait in order; they do not keep the process
 * alive. A worker that dies fails its task and is replaced. A worker may ask the pool questions
 * while it works (`{ ask: { askId, question } }`), answered through `serve`. A task given a time
 * (`run(input, { timeoutMs })`) fails with WorkerTimeout when its worker takes longer, and that
 * worker is ended: the only way to stop CPU work inside a thread.
 *
 * `worker` names the worker's module beside `besideUrl` (`auth.worker` for `auth.worker.ts`): from
 * source it runs through `ts-worker.mjs`, which registers tsx first; compiled
 * (scripts/build-server.mjs), it is a module of its own beside the server.
 */
export function createWorkerPool<I, O>(options: {
  worker: string;
  besideUrl: string;
  size?: number;
  serve?: (question: unknown) => Promise<unknown>;
}) {
  const size = options.size ?? 1;
  const serve = options.serve ?? (() => Promise.reject(new Error('no answers here')));
  const start = (): Worker =>
    compiledDir
      ? new Worker(pathToFileURL(path.join(compiledDir, `${options.worker}.mjs`)))
      : new Worker(new URL('./ts-worker.mjs', import.meta.url), {
          workerData: { entry: new URL(`./${options.worker}.ts`, options.besideUrl).href },
        });
  const idle: Worker[] = [];
  const busy = new Map<Worker, Task<I, O>>();
  const queue: Array<Task<I, O>> = [];
  /** Workers ended for running past a task's time: whatever they still send is ignored. */
  const retired = new WeakSet<Worker>();
  let started = 0;
  let nextId = 0;

  function answer(worker: Worker, { askId, question }: WorkerAsk): void {
    serve(question).then(
      (result) => worker.postMessage({ answer: { askId, result } }),
      (error: Error & { code?: string }) =>
        worker.postMessage({ answer: { askId, error: { message: error.message, code: error.code } } }),
    );
  }

  function spawn(): Worker {
    const worker = start();
    worker.unref();
    worker.on('message', (message: { id?: number; output?: O; error?: string; ask?: WorkerAsk }) => {
      if (retired.has(worker)) return;
      if (message.ask) return answer(worker, message.ask);
      const task = busy.get(worker);
      busy.delete(worker);
      clearTimeout(task?.timer);
      if (task && task.id === message.id) {
        if (message.error !== undefined) task.reject(new Error(message.error));
        else task.resolve(message.output as O);
      }
      idle.push(worker);
      next();
    });
    worker.on('error', (error) => {
      if (retired.has(worker)) return;
      clearTimeout(busy.get(worker)?.timer);
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
      if (task.timeoutMs !== undefined) task.timer = setTimeout(() => expire(worker, task), task.timeoutMs);
      worker.postMessage({ id: task.id, input: task.input });
    }
  }

  function expire(worker: Worker, task: Task<I, O>): void {
    if (busy.get(worker) !== task) return;
    busy.delete(worker);
    retired.add(worker);
    started -= 1;
    void worker.terminate();
    task.reject(new WorkerTimeout(`${options.worker} took longer than ${task.timeoutMs} ms`));
    next();
  }

  return {
    run(input: I, { timeoutMs }: { timeoutMs?: number } = {}): Promise<O> {
      return new Promise((resolve, reject) => {
        queue.push({ id: nextId++, input, resolve, reject, timeoutMs });
        next();
      });
    },
    async close(): Promise<void> {
      await Promise.all([...idle, ...busy.keys()].map((w) => w.terminate()));
    },
  };
}
