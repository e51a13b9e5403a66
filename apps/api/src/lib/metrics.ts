import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The queues `moat_queue_depth` reports: mail waiting to be scanned, to be sent, and parked. */
export const QUEUES = ['inbound', 'outbox', 'failed'] as const;
export type QueueDepths = Record<(typeof QUEUES)[number], number>;

/** How long a scrape waits for the queue counts before it answers without them. */
export const QUEUE_DEPTH_TIMEOUT_MS = 2_000;

/** HTTP methods reported as themselves; anything else is `OTHER` (labels stay a small, fixed set). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
export const methodLabel = (method: string) => (METHODS.has(method) ? method : 'OTHER');

/** Seconds; from a fast engine on a small message to a remote daemon on a big attachment. */
const ENGINE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

let processRegistry: Registry | null = null;
/**
 * The process's own figures (memory, CPU, event-loop lag, GC, handles): prom-client's default
 * metrics, registered once per process. They start no timer (each is read at scrape time), but
 * they do enable an event-loop delay monitor and a GC observer that prom-client gives no way to
 * stop; one set per process, shared by every app built in it (the tests build many), leaks nothing.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Moat's Prometheus metrics (issue 14): one registry per app, never prom-client's global one. Built
 * once in `buildApp` and handed to what counts (the HTTP hook, the gateway, the mailer, sign-in).
 * Labels are small fixed sets (methods, route patterns, statuses, verdicts, actions, engine names,
 * reasons): never a tenant, an address or anything a client sent.
 */
export function createMetrics(deps: {
  /** The queue counts, read at scrape time; failing or slower than QUEUE_DEPTH_TIMEOUT_MS: left out. */
  queueDepths?: () => Promise<QueueDepths>;
  log?: { warn(obj: unknown, msg: string): void };
  queueTimeoutMs?: number;
}) {
  const registry = new Registry();
  const registers = [registry];
  const timeoutMs = deps.queueTimeoutMs ?? QUEUE_DEPTH_TIMEOUT_MS;
  let closed = false;

  const httpLabels = ['method', 'route', 'status'] as const;
  const metrics = {
    httpRequests: new Counter({
      name: 'moat_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern ("unmatched" when no route) and status',
      labelNames: httpLabels,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'moat_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status',
      labelNames: httpLabels,
      registers,
    }),
    gatewayMessages: new Counter({
      name: 'moat_gateway_messages_total',
      help: 'Inbound mail finished by the gateway, one per recipient copy, by verdict and action',
      labelNames: ['verdict', 'action'] as const,
      registers,
    }),
    engineDuration: new Histogram({
      name: 'moat_engine_duration_seconds',
      help: 'Time a detection engine took to scan one message',
      labelNames: ['engine'] as const,
      buckets: ENGINE_BUCKETS,
      registers,
    }),
    engineErrors: new Counter({
      name: 'moat_engine_errors_total',
      help: 'Scans a detection engine could not finish',
      labelNames: ['engine'] as const,
      registers,
    }),
    relayErrors: new Counter({
      name: 'moat_relay_errors_total',
      help: 'Outbound deliveries that failed: temporary (retried), permanent (5xx, bounced) or expired (retry window over, bounced)',
      labelNames: ['kind'] as const,
      registers,
    }),
    loginFailures: new Counter({
      name: 'moat_login_failures_total',
      help: 'Refused sign-in attempts, by reason',
      labelNames: ['reason'] as const,
      registers,
    }),
    loginThrottled: new Counter({
      name: 'moat_login_throttled_total',
      help: 'Sign-in attempts refused by throttling: account or address lockout, MFA lockout, request rate limit',
      labelNames: ['kind'] as const,
      registers,
    }),
  };

  new Gauge({
    name: 'moat_queue_depth',
    help: 'Messages waiting: inbound (stored, not yet scanned), outbox (to be sent or retried), failed (parked for an admin)',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      // A scrape never fails for the database: without fresh counts the gauge is left out.
      this.reset();
      if (!deps.queueDepths || closed) return;
      let timer: NodeJS.Timeout | undefined;
      try {
        const depths = await Promise.race([
          deps.queueDepths(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
            timer.unref();
          }),
        ]);
        for (const queue of QUEUES) this.set({ queue }, depths[queue]);
      } catch (error) {
        deps.log?.warn({ err: error }, 'metrics: reading the queue depths failed');
      } finally {
        clearTimeout(timer);
      }
    },
  });

  // What /metrics shows: Moat's metrics and the process's (the same objects, read live).
  const exposed = Registry.merge([registry, processMetrics()]);
  return {
    ...metrics,
    contentType: exposed.contentType,
    /** The Prometheus text exposition of everything. */
    scrape: (): Promise<string> => exposed.metrics(),
    /** The app is closing: no more database reads at scrape time. */
    close(): void {
      closed = true;
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
