import { isApiError } from './http';

const MAX_RETRIES = 2;

/** Retry only what may pass on a second try: no answer, or a server-side failure. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= MAX_RETRIES || !isApiError(error)) return false;
  return error.status === 0 || error.status >= 500;
}

/**
 * Runs a read (a query) again after 1 s, then 2 s, while `shouldRetry` allows, as the console's
 * query client does: for the public pages, which read without it. Stops when `signal` aborts.
 */
export async function withRetries<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  for (let failures = 0; ; failures += 1) {
    try {
      return await read();
    } catch (error) {
      if (signal?.aborted || !shouldRetry(failures, error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000 * 2 ** failures));
      if (signal?.aborted) throw error;
    }
  }
}
