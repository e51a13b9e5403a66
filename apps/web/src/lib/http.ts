import {
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type FieldError,
  isErrorResponse,
} from '@moat/contracts/error-codes';

/** Codes the client itself produces when no usable answer came from the server. */
export const CLIENT_ERROR_CODES = ['network_error', 'invalid_response'] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];
export type ApiErrorCode = ErrorCode | ClientErrorCode;

/** Every failed call ends as one of these: the API's `ErrorResponse`, or a client-side stand-in. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** HTTP status; 0 when no answer arrived (network failure). */
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly details: FieldError[] | null;
  readonly reqId: string | null;

  constructor(init: {
    status: number;
    code: ApiErrorCode;
    message: string;
    details?: FieldError[] | null;
    reqId?: string | null;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? null;
    this.reqId = init.reqId ?? null;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryParams = URLSearchParams | Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions<T> {
  query?: QueryParams;
  /** Sent as JSON; a FormData is sent as a multipart form, a file (Blob) as its bytes. */
  body?: unknown;
  /** The answer is text, not JSON (SPEC §7 server_login); its text is the value. */
  textAnswer?: boolean;
  signal?: AbortSignal;
  /** Checks the answer's shape (a zod schema from contracts fits); a mismatch becomes `invalid_response`. */
  schema?: { parse: (value: unknown) => T };
}

export interface ApiErrorContext {
  method: HttpMethod;
  /** Path and query of the call, e.g. `/api/v1/current_user`. */
  url: string;
}

export type ApiErrorListener = (error: ApiError, context: ApiErrorContext) => void;

const apiErrorListeners = new Set<ApiErrorListener>();

/**
 * The one place where the global HTTP error rules of SPEC §8 ("Global": token mismatch, trial
 * expired, not authenticated, insufficient privileges, the global error handler) hook in. Every
 * failed call is reported here before it is thrown to the caller. Returns an unsubscribe function.
 */
export function onApiError(listener: ApiErrorListener): () => void {
  apiErrorListeners.add(listener);
  return () => {
    apiErrorListeners.delete(listener);
  };
}

/** Header the server's CSRF rule requires on state-changing calls; sent on every call. */
export const REQUESTED_WITH_HEADER = 'X-Requested-With';
export const REQUESTED_WITH_VALUE = 'moat';

export function buildUrl(path: string, query?: QueryParams): string {
  if (!query) return path;
  const params = new URLSearchParams();
  if (query instanceof URLSearchParams) {
    for (const [key, value] of query) params.append(key, value);
  } else {
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null) params.append(key, String(value));
    }
  }
  const search = params.toString();
  if (!search) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${search}`;
}

const STATUS_CODES = new Map<number, ErrorCode>();
for (const code of ERROR_CODES) {
  if (!STATUS_CODES.has(ERROR_STATUS[code])) STATUS_CODES.set(ERROR_STATUS[code], code);
}

/** The error code for a status when the answer did not carry one. */
export function codeForStatus(status: number): ErrorCode {
  return STATUS_CODES.get(status) ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

async function readBody(response: Response): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const text = await response.text();
  if (text === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

async function toApiError(response: Response): Promise<ApiError> {
  const body = await readBody(response).catch(() => ({ ok: false as const }));
  if (body.ok && isErrorResponse(body.value)) {
    const { code, message, details, reqId } = body.value;
    return new ApiError({ status: response.status, code, message, details, reqId });
  }
  const bodyMessage =
    body.ok && typeof body.value === 'object' && body.value !== null && 'message' in body.value
      ? body.value.message
      : undefined;
  return new ApiError({
    status: response.status,
    code: codeForStatus(response.status),
    message: typeof bodyMessage === 'string' ? bodyMessage : response.statusText,
  });
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/**
 * SPEC §4 "No-RDS mode": calls whose URL contains one of these fragments are answered by the
 * client with `NO_RDS_ANSWER` while feature enableUINoRDS is on.
 */
export const NO_RDS_URL_FRAGMENTS = [
  'blacklist',
  'anomaly_whitelist',
  'exceptions_list',
  'policy_status_counts',
  'system_log',
  'cache_query',
  'policy_catalog',
  'dashboard_widget',
  'policy_rule',
] as const;
export const NO_RDS_ANSWER = Object.freeze({
  info: 'An error occurred. Please try again later.',
  rdsError: true,
});

/**
 * SPEC §4 "New web API mode": URL prefixes (of this API) and the endpoint each moves to while
 * feature enableNewWebAPI is on. Empty, as the specification says.
 */
export const NEW_WEB_API_ENDPOINTS: Readonly<Record<string, string>> = Object.freeze({});
/** The cookie holding the bearer token of the new web API. */
export const WEB_API_TOKEN_COOKIE = 'web_api_token';

export interface RequestModes {
  /** Feature enableUINoRDS. */
  noRds: boolean;
  /** Feature enableNewWebAPI. */
  newWebApi: boolean;
  /** The URL mapping of the new web API; `NEW_WEB_API_ENDPOINTS` unless given. */
  webApiEndpoints?: Readonly<Record<string, string>>;
}

const OFF: RequestModes = { noRds: false, newWebApi: false };
let requestModes: RequestModes = OFF;

/**
 * Switches the request rewriting of SPEC §4 ("No-RDS mode", "New web API mode"); the shell calls
 * it once the tenant's flags are known, and with both off when it goes away.
 */
export function configureRequestModes(modes: RequestModes = OFF): void {
  requestModes = { ...modes };
}

function cookie(name: string): string | null {
  if (typeof document === 'undefined') return null;
  for (const part of document.cookie.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return null;
}

function isNoRdsUrl(url: string): boolean {
  return NO_RDS_URL_FRAGMENTS.some((fragment) => url.includes(fragment));
}

/** The new web API's endpoint for `url` (its query kept), or null when it is not mapped. */
function newWebApiUrl(url: string, endpoints: Readonly<Record<string, string>>): string | null {
  const [path = '', ...query] = url.split('?');
  const prefix = Object.keys(endpoints)
    .filter((from) => path === from || path.startsWith(from.endsWith('/') ? from : `${from}/`))
    .sort((a, b) => b.length - a.length)[0];
  if (prefix === undefined) return null;
  const target = `${endpoints[prefix]}${path.slice(prefix.length)}`;
  return query.length ? `${target}?${query.join('?')}` : target;
}

async function send<T>(method: HttpMethod, requestUrl: string, options: RequestOptions<T>): Promise<T> {
  let url = requestUrl;
  const headers: Record<string, string> = {
    Accept: 'application/json',
    [REQUESTED_WITH_HEADER]: REQUESTED_WITH_VALUE,
  };
  const init: RequestInit = { method, headers, credentials: 'same-origin', signal: options.signal };
  if (options.body instanceof FormData) {
    init.body = options.body; // the browser sets the multipart type with its boundary
  } else if (options.body instanceof Blob) {
    headers['Content-Type'] = 'application/octet-stream';
    init.body = options.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  if (requestModes.newWebApi) {
    const mapped = newWebApiUrl(url, requestModes.webApiEndpoints ?? NEW_WEB_API_ENDPOINTS);
    if (mapped !== null) {
      url = mapped;
      headers['Content-Type'] = 'application/json';
      const token = cookie(WEB_API_TOKEN_COOKIE);
      if (token) headers.Authorization = `Bearer ${token}`;
    }
  }

  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError({
      status: 0,
      code: 'network_error',
      message: error instanceof Error ? error.message : 'Network request failed',
    });
  }

  if (!response.ok) throw await toApiError(response);

  const body = options.textAnswer
    ? { ok: true as const, value: await response.text() }
    : await readBody(response);
  if (!body.ok) {
    throw new ApiError({ status: response.status, code: 'invalid_response', message: 'Unparsable answer' });
  }
  if (!options.schema) return body.value as T;
  try {
    return options.schema.parse(body.value);
  } catch {
    throw new ApiError({
      status: response.status,
      code: 'invalid_response',
      message: 'Answer does not match its schema',
    });
  }
}

/** One call to the API: same-origin cookies, JSON both ways, failures as `ApiError`. */
export async function request<T>(
  method: HttpMethod,
  path: string,
  options: RequestOptions<T> = {},
): Promise<T> {
  const url = buildUrl(path, options.query);
  // No-RDS mode: the client answers for the server (SPEC §4), so nothing goes out.
  if (requestModes.noRds && isNoRdsUrl(url)) return { ...NO_RDS_ANSWER } as T;
  try {
    return await send(method, url, options);
  } catch (error) {
    if (error instanceof ApiError) {
      for (const listener of apiErrorListeners) listener(error, { method, url });
    }
    throw error;
  }
}

type BodylessOptions<T> = Omit<RequestOptions<T>, 'body'>;

export const apiGet = <T>(path: string, options?: BodylessOptions<T>) => request<T>('GET', path, options);
export const apiDelete = <T>(path: string, options?: BodylessOptions<T>) =>
  request<T>('DELETE', path, options);
export const apiPost = <T>(path: string, body?: unknown, options?: BodylessOptions<T>) =>
  request<T>('POST', path, { ...options, body });
export const apiPut = <T>(path: string, body?: unknown, options?: BodylessOptions<T>) =>
  request<T>('PUT', path, { ...options, body });
export const apiPatch = <T>(path: string, body?: unknown, options?: BodylessOptions<T>) =>
  request<T>('PATCH', path, { ...options, body });
