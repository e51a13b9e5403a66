import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiGet, apiPost, configureRequestModes, NO_RDS_ANSWER, NO_RDS_URL_FRAGMENTS } from './http';

function okFetch() {
  const fetchMock = vi.fn(
    async (_url: string, _init?: RequestInit) =>
      new Response('{"ok":true}', { status: 200, headers: { 'content-type': 'application/json' } }),
  );
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

/** The replacement answer is not the call's answer, so its schema is not applied. */
const refuseAll = {
  parse: (): never => {
    throw new Error('not this shape');
  },
};

afterEach(() => {
  configureRequestModes();
  vi.unstubAllGlobals();
  // biome-ignore lint/suspicious/noDocumentCookie: the http layer reads document.cookie, so the test sets it.
  document.cookie = 'web_api_token=; expires=Thu, 01 Jan 1970 00:00:00 GMT';
});

describe('No-RDS mode (SPEC §4)', () => {
  it.each(NO_RDS_URL_FRAGMENTS)('answers a %s call itself while enableUINoRDS is on', async (fragment) => {
    const fetchMock = okFetch();
    configureRequestModes({ noRds: true, newWebApi: false });
    const answer = await apiGet(`/api/v1/${fragment}/list`, { schema: refuseAll });
    expect(answer).toEqual({ info: 'An error occurred. Please try again later.', rdsError: true });
    expect(answer).toEqual(NO_RDS_ANSWER);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('calls the server for other URLs, and for every URL once the mode is off', async () => {
    const fetchMock = okFetch();
    configureRequestModes({ noRds: true, newWebApi: false });
    await expect(apiGet('/api/v1/apps')).resolves.toEqual({ ok: true });
    configureRequestModes({ noRds: false, newWebApi: false });
    await expect(apiGet('/api/v1/system_log')).resolves.toEqual({ ok: true });
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/v1/apps', '/api/v1/system_log']);
  });
});

describe('New web API mode (SPEC §4)', () => {
  const endpoints = { '/api/v1/events': 'https://web-api.moat.example/v2/events' };

  it('rewrites a mapped URL with the bearer token of the web_api_token cookie and JSON', async () => {
    const fetchMock = okFetch();
    // biome-ignore lint/suspicious/noDocumentCookie: the http layer reads document.cookie, so the test sets it.
    document.cookie = 'web_api_token=tok%3D1';
    configureRequestModes({ noRds: false, newWebApi: true, webApiEndpoints: endpoints });
    await apiGet('/api/v1/events/42', { query: { page: 2 } });
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('https://web-api.moat.example/v2/events/42?page=2');
    expect(new Headers(init?.headers).get('Authorization')).toBe('Bearer tok=1');
    expect(new Headers(init?.headers).get('Content-Type')).toBe('application/json');
  });

  it('leaves unmapped URLs, and every URL while the flag is off, alone', async () => {
    const fetchMock = okFetch();
    configureRequestModes({ noRds: false, newWebApi: true, webApiEndpoints: endpoints });
    await apiPost('/api/v1/eventsx', {});
    configureRequestModes({ noRds: false, newWebApi: false, webApiEndpoints: endpoints });
    await apiGet('/api/v1/events/42');
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/v1/eventsx', '/api/v1/events/42']);
    expect(new Headers(fetchMock.mock.calls[1]?.[1]?.headers).has('Authorization')).toBe(false);
  });

  it('maps nothing by default', async () => {
    const fetchMock = okFetch();
    configureRequestModes({ noRds: false, newWebApi: true });
    await apiGet('/api/v1/events/42');
    expect(fetchMock.mock.calls[0]?.[0]).toBe('/api/v1/events/42');
  });
});
