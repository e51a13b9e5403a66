import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, apiGet, apiPost, buildUrl, codeForStatus, onApiError } from './http';

function respond(status: number, body: string, contentType = 'application/json') {
  const fetchMock = vi.fn(
    async () =>
      new Response(status === 204 ? null : body, { status, headers: { 'content-type': contentType } }),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('http client', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('sends same-origin credentials, JSON and the X-Requested-With header on every call', async () => {
    const fetchMock = respond(200, '{"ok":true}');
    await apiPost('/api/v1/things', { name: 'a' });
    await apiGet('/api/v1/things');

    expect(fetchMock).toHaveBeenCalledTimes(2);
    const [postUrl, post] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(postUrl).toBe('/api/v1/things');
    expect(post.method).toBe('POST');
    expect(post.credentials).toBe('same-origin');
    expect(post.body).toBe('{"name":"a"}');
    expect(new Headers(post.headers).get('X-Requested-With')).toBe('moat');
    expect(new Headers(post.headers).get('Content-Type')).toBe('application/json');
    const [, get] = fetchMock.mock.calls[1] as unknown as [string, RequestInit];
    expect(new Headers(get.headers).get('X-Requested-With')).toBe('moat');
    expect(get.body).toBeUndefined();
  });

  it('returns the parsed JSON answer, and undefined for an empty one', async () => {
    respond(200, '{"a":1}');
    await expect(apiGet('/x')).resolves.toEqual({ a: 1 });
    respond(204, '');
    await expect(apiPost('/x')).resolves.toBeUndefined();
  });

  it('turns the API error shape into an ApiError with all its fields', async () => {
    respond(
      400,
      JSON.stringify({
        statusCode: 400,
        code: 'validation_error',
        message: 'body/email must match pattern',
        details: [{ field: 'body.email', message: 'invalid email' }],
        reqId: 'req-7',
      }),
    );
    const error = await caught(apiPost('/api/v1/auth/login', {}));
    expect(error).toMatchObject({
      status: 400,
      code: 'validation_error',
      message: 'body/email must match pattern',
      details: [{ field: 'body.email', message: 'invalid email' }],
      reqId: 'req-7',
    });
  });

  it('derives the code from the status when the error body is not the API shape', async () => {
    respond(502, '<html>Bad gateway</html>', 'text/html');
    const gateway = await caught(apiGet('/x'));
    expect(gateway).toMatchObject({ status: 502, code: 'internal_error', details: null, reqId: null });

    respond(404, '{"message":"Route GET:/x not found"}');
    const missing = await caught(apiGet('/x'));
    expect(missing).toMatchObject({ status: 404, code: 'not_found', message: 'Route GET:/x not found' });
  });

  it('turns a network failure into a network_error', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    const error = await caught(apiGet('/x'));
    expect(error).toMatchObject({ status: 0, code: 'network_error' });
  });

  it('lets an aborted call reject with the abort, not an ApiError', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new DOMException('aborted', 'AbortError');
      }),
    );
    await expect(apiGet('/x')).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('sends a FormData as a multipart form (the browser sets its type) and reads a text answer when asked', async () => {
    const fetchMock = respond(200, 'success', 'text/plain; charset=utf-8');
    const form = new FormData();
    form.set('token', 'T');
    expect(await apiPost('/api/v1/current_user/server_login', form, { textAnswer: true })).toBe('success');
    const [, post] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(post.body).toBe(form);
    expect(new Headers(post.headers).get('Content-Type')).toBeNull();
    expect(new Headers(post.headers).get('X-Requested-With')).toBe('moat');
  });

  it('reports an unparsable or mis-shaped success answer as invalid_response', async () => {
    respond(200, 'not json', 'text/plain');
    expect(await caught(apiGet('/x'))).toMatchObject({ status: 200, code: 'invalid_response' });

    respond(200, '{"b":2}');
    const schema = {
      parse(value: unknown) {
        if (typeof value === 'object' && value !== null && 'a' in value) return value;
        throw new Error('no a');
      },
    };
    expect(await caught(apiGet('/x', { schema }))).toMatchObject({ code: 'invalid_response' });
  });

  it('reports every failed call to the onApiError listeners until they unsubscribe', async () => {
    const listener = vi.fn();
    const unsubscribe = onApiError(listener);
    respond(
      403,
      JSON.stringify({
        statusCode: 403,
        code: 'forbidden',
        message: 'not authenticated',
        details: null,
        reqId: 'r',
      }),
    );
    await caught(apiGet('/api/v1/current_user', { query: { a: 1 } }));
    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener.mock.calls[0]?.[0]).toMatchObject({ status: 403, message: 'not authenticated' });
    expect(listener.mock.calls[0]?.[1]).toEqual({ method: 'GET', url: '/api/v1/current_user?a=1' });

    unsubscribe();
    await caught(apiGet('/api/v1/current_user'));
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('builds query strings, skipping absent values', () => {
    expect(buildUrl('/x', { a: 'b c', n: 1, skip: undefined, none: null })).toBe('/x?a=b+c&n=1');
    expect(buildUrl('/x', new URLSearchParams('id=1&id=2'))).toBe('/x?id=1&id=2');
    expect(buildUrl('/x', {})).toBe('/x');
  });

  it('maps statuses to error codes', () => {
    expect(codeForStatus(401)).toBe('unauthorized');
    expect(codeForStatus(429)).toBe('rate_limited');
    expect(codeForStatus(400)).toBe('bad_request');
    expect(codeForStatus(418)).toBe('bad_request');
    expect(codeForStatus(599)).toBe('internal_error');
  });
});
