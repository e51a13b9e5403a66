import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The main thread's side of the embedded database running in a worker thread
 * (`pglite-worker.mjs`): the part of PGlite's interface that drizzle and Moat use (`query`,
 * `exec`, `transaction`, `listen`, `dumpDataDir`, `close`). Statements cross as structured
 * clones; while one runs, the event loop is free.
 */
export interface RemoteResults {
  rows: unknown[];
  fields: Array<{ name: string; dataTypeID: number }>;
  affectedRows?: number;
}

interface QueryOptions {
  rowMode?: 'array' | 'object';
  parsers?: Record<number, unknown>;
}

export interface RemoteClient {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<RemoteResults>;
  exec(sql: string): Promise<RemoteResults[]>;
  transaction<T>(work: (tx: RemoteClient) => Promise<T>): Promise<T>;
  readonly closed: boolean;
}

/** An error the database answered, with PostgreSQL's fields (code, detail, constraint…). */
class RemoteDatabaseError extends Error {
  constructor(fields: Record<string, unknown>) {
    super(String(fields.message));
    Object.assign(this, fields);
    this.name = typeof fields.name === 'string' ? fields.name : 'DatabaseError';
  }
}

export class RemotePglite implements RemoteClient {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private nextId = 1;
  private isClosed = false;

  private constructor(
    worker: Worker,
    /** Where the database is stored; null in memory. */
    readonly dataDir: string | null,
  ) {
    this.worker = worker;
    worker.on(
      'message',
      (message: {
        id?: number;
        result?: unknown;
        error?: Record<string, unknown>;
        notice?: { channel: string; payload: string };
      }) => {
        if (message.notice) {
          for (const listener of this.listeners.get(message.notice.channel) ?? [])
            listener(message.notice.payload);
          return;
        }
        if (message.id === undefined) return;
        const waiting = this.waiting.get(message.id);
        if (!waiting) return;
        this.waiting.delete(message.id);
        if (message.error) waiting.reject(new RemoteDatabaseError(message.error));
        else waiting.resolve(message.result);
      },
    );
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      this.isClosed = true;
      this.failAll(new Error('The embedded database stopped'));
    });
  }

  /** Start the worker and its database (stored under `dataDir`, or in memory). */
  static async create(options: {
    dataDir: string | null;
    loadDataDir?: Uint8Array;
    postgresqlconf?: string[];
  }): Promise<RemotePglite> {
    const worker = new Worker(path.join(import.meta.dirname, 'pglite-worker.mjs'), {
      workerData: options,
      // The worker needs no TypeScript loader (plain JavaScript); vitest's or tsx's are not passed on.
      execArgv: [],
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: { ready?: boolean }) => {
        if (!message.ready) return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        resolve();
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
    return new RemotePglite(worker, options.dataDir);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  private failAll(error: Error) {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }

  private call<T>(op: string, message: Record<string, unknown> = {}): Promise<T> {
    if (this.isClosed) return Promise.reject(new Error('The embedded database is closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, ...message });
    });
  }

  private queryIn(tx: number | undefined, sql: string, params: unknown[] = [], options: QueryOptions = {}) {
    return this.call<RemoteResults>('query', {
      sql,
      params,
      tx,
      rowMode: options.rowMode,
      textTypes: Object.keys(options.parsers ?? {}).map(Number),
    });
  }

  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<RemoteResults> {
    return this.queryIn(undefined, sql, params, options);
  }

  exec(sql: string): Promise<RemoteResults[]> {
    return this.call('exec', { sql });
  }

  async transaction<T>(work: (tx: RemoteClient) => Promise<T>): Promise<T> {
    const tx = await this.call<number>('begin');
    const client: RemoteClient = {
      query: (sql, params, options) => this.queryIn(tx, sql, params, options),
      exec: (sql) => this.call('exec', { sql, tx }),
      transaction: () => Promise.reject(new Error('nested transactions use savepoints')),
      closed: false,
    };
    let result: T;
    try {
      result = await work(client);
    } catch (error) {
      await this.call('end', { tx, commit: false }).catch(() => {});
      throw error;
    }
    await this.call('end', { tx, commit: true });
    return result;
  }

  async listen(channel: string, callback: (payload: string) => void): Promise<void> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.call('listen', { channel });
    }
    set.add(callback);
  }

  async dumpDataDir(): Promise<Blob> {
    const bytes = await this.call<Uint8Array<ArrayBuffer>>('dump');
    return new Blob([bytes]);
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    await this.call('close').catch(() => {});
    this.isClosed = true;
    await this.worker.terminate();
  }
}
