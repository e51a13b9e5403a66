import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { SAAS_APPS } from '@moat/contracts/deployment';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { LOGIN_CHALLENGE_COOKIE } from '../modules/auth/auth.routes.ts';
import { RECIPIENT_TRUST_COOKIE } from '../modules/public-actions/recipient-trust.ts';
import { buildTestApp, CSRF } from './app.ts';
import { buildQuarantinedMessage, buildSession, buildTenant, buildUser } from './factories.ts';

/**
 * Schema-driven fuzzing of every operation the OpenAPI document lists: path params, query params
 * and JSON bodies generated from each operation's schema, schema-valid-looking and hostile (NUL,
 * undecodable escapes, lone surrogates, long strings, wrong types, nested garbage, missing and
 * extra fields, huge and negative numbers, empty strings, raw bodies). Each request goes out
 * anonymously and as a signed-in admin, both with the CSRF header so handlers are reached. Any
 * answer >= 500 fails and prints the request. Runs are reproducible: a fixed seed per operation
 * (FUZZ_SEED moves them all, FUZZ_RUNS makes a longer run).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_250_101);
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 30);

/**
 * Operations left out, with the reason. None stream and none needs a real SMTP relay (mail goes to
 * the outbox in tests), so the list is empty; it stays here for the next one that does.
 */
const EXCLUDED: Record<string, string> = {};

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
};
type Parameter = { name: string; in: 'path' | 'query' | 'header' | 'cookie'; schema: JsonSchema };
type OpenApiOperation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
};
type OpenApiDocument = {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

/** One request, as generated. `body` is a JSON value, raw bytes, or absent. */
type Body =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; type: string; bytes: Buffer };
/** `cookies` values are sent as given (already encoded). */
type Generated = { path: string; query: string; body: Body; cookies: Record<string, string> };

// The app, a tenant with an admin, and a held message: their ids and addresses seed the
// "valid-looking" values so generated requests reach past the lookups.
const t = await buildTestApp();
afterAll(() => t.close());
const tenant = await buildTenant(t.db);
const admin = await buildUser(t.db, tenant.id, { role: 'admin', email: `admin@${tenant.domain}` });
let known: { strings: string[]; byName: Record<string, string[]> } = { strings: [], byName: {} };
let held = 0;
/** A new held message for each operation: an earlier one may have released or deleted the last. */
async function refreshKnown() {
  const message = await buildQuarantinedMessage(t.db, tenant.id, {
    recipient: `r${++held}@${tenant.domain}`,
  });
  known = {
    strings: [
      message.publicId,
      message.id,
      message.recipient,
      admin.email,
      admin.id,
      tenant.domain,
      '123456',
      ...SAAS_APPS,
    ],
    byName: {
      type: [message.saasType],
      msg: [message.publicId],
      id: [message.id],
      ids: [message.id],
      email: [message.recipient, admin.email],
      userEmail: [admin.email],
      requester_email_address: [admin.email],
      code: ['123456'],
    },
  };
}

const docResponse = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
const doc = docResponse.json() as OpenApiDocument;

const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    name: `${method.toUpperCase()} ${path}`,
    method: method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
    path,
    operation,
  })),
);

function resolve(schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const found = doc.components?.schemas?.[name];
  if (!found) throw new Error(`unresolved ${schema.$ref}`);
  return resolve(found);
}

// --- Hostile values -----------------------------------------------------------------------

/** What PostgreSQL text cannot hold: the class of input that answered 500 before the input guard. */
const UNSTORABLE_STRINGS = ['\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\udc00\ud800'];
const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t\r\n',
  '\u202e\u200b',
  "' OR 1=1 --",
  '"; drop table users; --',
  '%00',
  '%FF',
  '../../../etc/passwd',
  '<script>alert(1)</script>',
  '😀',
  '0',
  '-1',
  'null',
  'NaN',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'a@b.cd',
];
const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...UNSTORABLE_STRINGS) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(300, 5_000, 100_000, 600_000).map((n) => 'x'.repeat(n)) },
);
const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -1,
    -0.5,
    1.5,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    2 ** 64,
    -(2 ** 64),
    1e308,
    -1e308,
    Number.MIN_VALUE,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const nested = (depth: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3, maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(10, 500, 3_000).map(nested) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 4 }) },
);

// --- Schema-valid-looking values --------------------------------------------------------------

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  const max = Math.min(schema.maxLength ?? 40, 60);
  const min = Math.min(schema.minLength ?? 0, max);
  const pattern = schema.pattern ? new RegExp(schema.pattern) : null;
  const fitting = known.strings.filter(
    (s) => (!pattern || pattern.test(s)) && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY),
  );
  const choices: Array<fc.WeightedArbitrary<string>> = [
    { weight: 2, arbitrary: fc.string({ minLength: min, maxLength: max }) },
  ];
  if (fitting.length > 0) choices.push({ weight: 4, arbitrary: fc.constantFrom(...fitting) });
  if (schema.format === 'uuid') choices.push({ weight: 2, arbitrary: fc.uuid() });
  if (schema.format === 'email') choices.push({ weight: 2, arbitrary: fc.emailAddress() });
  if (pattern) {
    try {
      choices.push({ weight: 2, arbitrary: fc.stringMatching(pattern).filter((s) => s.length <= 1000) });
    } catch {
      // A pattern fast-check cannot generate from: the other choices stand in.
    }
  }
  return fc.oneof(...choices);
}

/** A value that looks valid for the schema; `name` (the field's) steers it to a known id or address. */
function validLooking(raw: JsonSchema, depth = 0, name?: string): fc.Arbitrary<unknown> {
  const hinted = name === undefined ? undefined : known.byName[name];
  const value = byType(raw, depth, name);
  return hinted
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: value })
    : value;
}

function byType(raw: JsonSchema, depth: number, name: string | undefined): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  if (depth > 6) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((s) => byType(s, depth + 1, name)));
  if (schema.allOf?.[0]) return byType(schema.allOf[0], depth + 1, name);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((type) => byType({ ...schema, type }, depth + 1, name)));
  switch (types[0]) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({
        min: Math.max(schema.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER),
        max: Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER),
      });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(
        schema.items ? validLooking(schema.items, depth + 1, name) : fc.anything({ maxDepth: 1 }),
        {
          minLength: schema.minItems ?? 0,
          maxLength: Math.min(schema.maxItems ?? 4, 4),
        },
      );
    case 'object': {
      const properties = schema.properties ?? {};
      const record = fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([key, s]) => [key, validLooking(s, depth + 1, key)]),
        ),
        { requiredKeys: (schema.required ?? []).filter((key) => key in properties) },
      );
      const extra = schema.additionalProperties;
      if (!extra || extra === true) return record;
      return fc
        .tuple(
          record,
          fc.dictionary(fc.string({ maxLength: 10 }), validLooking(extra, depth + 1), { maxKeys: 3 }),
        )
        .map(([known, more]) => ({ ...more, ...known }));
    }
    default:
      return fc.anything({ maxDepth: 2, maxKeys: 3 });
  }
}

/** A valid-looking object with some of its fields dropped, replaced by hostile values, or added. */
function mutatedObjectOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  const keys = Object.keys(resolve(schema).properties ?? {});
  const key =
    keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 12 })) : fc.string();
  return fc
    .record({
      base: validLooking(schema),
      drop: fc.array(key, { maxLength: 2 }),
      set: fc.array(fc.tuple(key, hostileValue), { minLength: 1, maxLength: 3 }),
    })
    .map(({ base, drop, set }) => {
      if (base === null || typeof base !== 'object' || Array.isArray(base)) return base;
      const copy: Record<string, unknown> = { ...base };
      for (const k of drop) delete copy[k];
      for (const [k, v] of set) copy[k] = v;
      return copy;
    });
}

const RAW_BODIES: Array<{ type: string; bytes: Buffer }> = [
  { type: 'application/json', bytes: Buffer.from('') },
  { type: 'application/json', bytes: Buffer.from('{"a":') },
  { type: 'application/json', bytes: Buffer.from('1e999') },
  { type: 'application/json', bytes: Buffer.from('{"limit":1e999,"ids":[1e999]}') },
  { type: 'application/json', bytes: Buffer.from('{"__proto__":{"admin":true}}') },
  { type: 'application/json', bytes: Buffer.from('{"constructor":{"prototype":{"admin":true}}}') },
  { type: 'application/json', bytes: Buffer.from('null') },
  { type: 'application/json', bytes: Buffer.from('"\\u0000"') },
  { type: 'application/json', bytes: Buffer.from('{"x":"\\ud800"}') },
  {
    type: 'application/json',
    bytes: Buffer.from([0x7b, 0x22, 0x78, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  },
  { type: 'application/json', bytes: Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]) },
  { type: 'application/json; charset=latin1', bytes: Buffer.from('{"x":"caf\u00e9"}', 'latin1') },
  { type: 'application/json', bytes: Buffer.from(JSON.stringify({ x: 'y'.repeat(1_100_000) })) },
  { type: 'text/plain', bytes: Buffer.from('a\u0000b') },
  { type: 'text/plain', bytes: Buffer.from([0xc3, 0x28]) },
  { type: 'application/x-www-form-urlencoded', bytes: Buffer.from('a=%00&b=%FF') },
  { type: 'multipart/form-data; boundary=x', bytes: Buffer.from('--x\r\n\r\n--x--') },
];

function bodyOf(schema: JsonSchema | undefined, hostile: boolean): fc.Arbitrary<Body> {
  const none = fc.constant<Body>({ kind: 'none' });
  const json = (value: fc.Arbitrary<unknown>) => value.map((v): Body => ({ kind: 'json', value: v }));
  if (!hostile) return schema ? json(validLooking(schema)) : none;
  const raw = fc.constantFrom(...RAW_BODIES).map((b): Body => ({ kind: 'raw', ...b }));
  if (!schema) {
    return fc.oneof(
      { weight: 3, arbitrary: none },
      { weight: 1, arbitrary: json(hostileValue) },
      { weight: 1, arbitrary: raw },
    );
  }
  return fc.oneof(
    { weight: 5, arbitrary: json(mutatedObjectOf(schema)) },
    { weight: 1, arbitrary: json(hostileValue) },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: none },
  );
}

// --- URLs ------------------------------------------------------------------------------------

/** Percent-encode, keeping a lone surrogate as its (invalid) UTF-8 escape rather than throwing. */
function encode(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    out += code >= 0xd800 && code <= 0xdfff ? '%ED%A0%80' : encodeURIComponent(char);
  }
  return out;
}
const RAW_ESCAPES = ['%00', '%FF', '%C3%28', '%ED%A0%80', '%E2%82', '%', '%zz', '%2F', '..', '%2e%2e', '+'];
function urlValueOf(schema: JsonSchema, hostile: boolean, name?: string): fc.Arbitrary<string> {
  const valid = validLooking(schema, 0, name).map(encode);
  if (!hostile) return valid;
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 1, arbitrary: hostileString.filter((s) => s.length <= 5_000).map(encode) },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.constantFrom(...RAW_ESCAPES)).map(([v, suffix]) => `${v}${suffix}`),
    },
  );
}

/** One hostile value for a URL slot: a hostile string, or a raw escape replacing or ending a valid value. */
const hostileUrlValue: fc.Arbitrary<(valid: string) => string> = fc.oneof(
  hostileString.filter((s) => s.length <= 5_000).map((h) => () => encode(h)),
  fc.constantFrom(...RAW_ESCAPES).map((seq) => () => seq),
  fc.constantFrom(...RAW_ESCAPES).map((seq) => (valid: string) => `${valid}${seq}`),
);

/**
 * Three kinds of request, so both the handlers and the edges get reached: valid-looking
 * throughout; valid-looking but for ONE hostile path param, query param or body field (how a tester
 * finds the one field that reaches the database unchecked); and hostile anywhere (URL, extra query
 * params, raw or mangled body).
 */
function requestOf(path: string, parameters: Parameter[], schema: JsonSchema | undefined) {
  const inPath = parameters.filter((p) => p.in === 'path');
  const inQuery = parameters.filter((p) => p.in === 'query');
  const bodyKeys = schema ? Object.keys(resolve(schema).properties ?? {}) : [];
  const slots = [
    ...inPath.map((_, i) => ({ in: 'path' as const, i })),
    ...inQuery.map((_, i) => ({ in: 'query' as const, i })),
    ...bodyKeys.map((key) => ({ in: 'body' as const, key })),
  ];
  const build = (hostile: boolean) =>
    fc.record({
      pathValues: fc.tuple(...inPath.map((p) => urlValueOf(p.schema, hostile, p.name))),
      queryValues: fc.tuple(
        ...inQuery.map((p) => fc.option(urlValueOf(p.schema, hostile, p.name), { nil: undefined })),
      ),
      extraQuery: hostile
        ? fc.array(fc.tuple(fc.constantFrom('msg', 'x', '__proto__', 'a%00', '%FF'), urlValueOf({}, true)), {
            maxLength: 2,
          })
        : fc.constant<Array<[string, string]>>([]),
      body: bodyOf(schema, hostile),
      // The cookies the handlers read: the cookie parser percent-decodes them, so %00 arrives as NUL.
      cookies: hostile
        ? fc.record(
            {
              [LOGIN_CHALLENGE_COOKIE]: hostileUrlValue.map((value) => value('x')),
              [RECIPIENT_TRUST_COOKIE]: hostileUrlValue.map((value) => value('x')),
            },
            { requiredKeys: [] },
          )
        : fc.constant({}),
    });
  const oneHostile = fc
    .tuple(build(false), fc.nat(), hostileUrlValue, hostileValue)
    .map(([valid, pick, urlValue, bodyValue]) => {
      const slot = slots[pick % Math.max(slots.length, 1)];
      if (!slot) return valid;
      if (slot.in === 'path') {
        const pathValues = [...valid.pathValues];
        pathValues[slot.i] = urlValue(pathValues[slot.i] ?? '');
        return { ...valid, pathValues };
      }
      if (slot.in === 'query') {
        const queryValues = [...valid.queryValues];
        queryValues[slot.i] = urlValue(queryValues[slot.i] ?? '');
        return { ...valid, queryValues };
      }
      const base = valid.body.kind === 'json' ? valid.body.value : {};
      const object = base !== null && typeof base === 'object' && !Array.isArray(base) ? base : {};
      return { ...valid, body: { kind: 'json' as const, value: { ...object, [slot.key]: bodyValue } } };
    });
  return fc
    .oneof(
      { weight: 2, arbitrary: build(false) },
      { weight: 3, arbitrary: oneHostile },
      { weight: 2, arbitrary: build(true) },
    )
    .map(({ pathValues, queryValues, extraQuery, body, cookies }): Generated => {
      let filled = path;
      inPath.forEach((p, i) => {
        filled = filled.replace(`{${p.name}}`, pathValues[i] ?? '');
      });
      const pairs = inQuery.flatMap((p, i) =>
        queryValues[i] === undefined ? [] : [`${p.name}=${queryValues[i]}`],
      );
      for (const [name, value] of extraQuery) pairs.push(`${name}=${value}`);
      return { path: filled, query: pairs.join('&'), body, cookies };
    });
}

// --- Sending -----------------------------------------------------------------------------------

let sent = 0;
/** Each request from its own address: the per-route rate limits would otherwise answer 429 to most. */
const nextAddress = () => {
  sent++;
  return `10.${(sent >> 16) & 255}.${(sent >> 8) & 255}.${sent & 255}`;
};
const show = (text: string, max = 600) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;

const contentTypeOf = (body: Body) =>
  body.kind === 'json' ? 'application/json' : body.kind === 'raw' ? body.type : undefined;

async function send(method: string, request: Generated, cookies: Record<string, string>) {
  const url = request.query ? `${request.path}?${request.query}` : request.path;
  const headers: Record<string, string> = { ...CSRF };
  const cookieHeader = Object.entries({ ...request.cookies, ...cookies })
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
  if (cookieHeader) headers.cookie = cookieHeader;
  const contentType = contentTypeOf(request.body);
  if (contentType) headers['content-type'] = contentType;
  const payload =
    request.body.kind === 'json'
      ? (JSON.stringify(request.body.value) ?? 'null')
      : request.body.kind === 'raw'
        ? request.body.bytes
        : undefined;
  const res = await t.app.inject({
    method: method as 'GET',
    url,
    headers,
    remoteAddress: nextAddress(),
    ...(payload === undefined ? {} : { payload }),
  });
  return { url, payload, res };
}

/** A fixed seed per operation, from its name: adding an operation does not reshuffle the others. */
function seedOf(name: string): number {
  let hash = SEED | 0;
  for (let i = 0; i < name.length; i++) hash = (Math.imul(hash, 31) + name.charCodeAt(i)) | 0;
  return hash;
}

describe('API fuzz: no generated request answers 5xx', () => {
  it('fuzzes every operation of the OpenAPI document', () => {
    expect(docResponse.statusCode).toBe(200);
    expect(operations.length).toBeGreaterThan(50);
    for (const name of Object.keys(EXCLUDED)) expect(operations.map((o) => o.name)).toContain(name);
  });

  for (const op of operations) {
    const run = EXCLUDED[op.name] ? it.skip : it;
    run(op.name, async () => {
      await refreshKnown();
      const parameters = op.operation.parameters ?? [];
      const schema = op.operation.requestBody?.content?.['application/json']?.schema;
      await fc.assert(
        fc.asyncProperty(requestOf(op.path, parameters, schema), async (request) => {
          // A fresh admin session each run: a fuzzed logout or token call may end the last one.
          const { token } = await buildSession(t.db, admin);
          for (const [who, cookies] of [
            ['anonymous', {}],
            ['admin', { [SESSION_COOKIE]: token }],
          ] as const) {
            const { url, payload, res } = await send(op.method, request, cookies);
            if (res.statusCode >= 500) {
              const body = payload === undefined ? '(none)' : show(payload.toString('utf8'));
              throw new Error(
                `${op.name} as ${who} answered ${res.statusCode}\n${op.method} ${show(url)}\n` +
                  `cookies: ${JSON.stringify(request.cookies)}\n` +
                  `content-type: ${contentTypeOf(request.body) ?? '(none)'}\n` +
                  `body: ${body}\nanswer: ${show(res.body)}`,
              );
            }
          }
        }),
        {
          seed: seedOf(op.name),
          numRuns: NUM_RUNS,
          endOnFailure: true,
          // Our own report: the failing request as sent. fast-check's would print the generated
          // value in full (megabyte strings, thousands of nesting levels).
          reporter: (details) => {
            if (!details.failed) return;
            const { errorInstance: cause, seed, numRuns } = details;
            throw new Error(
              `${cause instanceof Error ? cause.message : String(cause)}\n(seed ${seed}, run ${numRuns})`,
            );
          },
        },
      );
    });
  }
});
