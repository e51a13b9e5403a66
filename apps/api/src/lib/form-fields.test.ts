import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { acceptFormFields, isFormFields } from './form-fields.ts';

const app = Fastify();
let handled = 0;

beforeAll(async () => {
  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) =>
    reply.status(error.statusCode ?? 500).send({ message: error.message, app: error instanceof AppError }),
  );
  await app.register(async (scope) => {
    acceptFormFields(scope, { bodyBytes: 1024, fieldBytes: 16, fields: 2 });
    scope.post('/form', async (request) => {
      handled += 1;
      return { fields: request.body, form: isFormFields(request) };
    });
  });
  // Outside the scope a multipart body is not parsed at all.
  app.post('/elsewhere', async () => ({ ok: true }));
});
afterAll(() => app.close());

/** A multipart body as a browser's FormData sends it. */
async function form(fields: Array<[string, string | Blob]>) {
  const data = new FormData();
  for (const [name, value] of fields) data.append(name, value);
  const request = new Request('http://moat.test/', { method: 'POST', body: data });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type') ?? '' },
  };
}

const post = async (body: { payload: Buffer | string | Readable; headers: Record<string, string> }) =>
  app.inject({ method: 'POST', url: '/form', ...body });

describe('acceptFormFields', () => {
  it('reads short text fields into the body; a field of exactly the limit is whole', async () => {
    const res = await post(
      await form([
        ['token', 'x'.repeat(16)],
        ['other', 'ü'],
      ]),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ fields: { token: 'x'.repeat(16), other: 'ü' }, form: true });
  });

  it('refuses a longer field, a field given twice, too many fields and a file with a 400, before the handler', async () => {
    const before = handled;
    const cases = [
      [[['token', 'x'.repeat(17)]], 'is too long'],
      [
        [
          ['token', 'a'],
          ['token', 'b'],
        ],
        'given twice',
      ],
      [
        [
          ['a', '1'],
          ['b', '2'],
          ['c', '3'],
        ],
        'at most 2 fields',
      ],
      [
        [
          ['token', 'a'],
          ['upload', new Blob(['x'], { type: 'text/plain' })],
        ],
        'text fields only',
      ],
    ] as const;
    for (const [fields, message] of cases) {
      const res = await post(await form(fields as unknown as Array<[string, string | Blob]>));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ app: true, message: expect.stringContaining(message) });
    }
    expect(handled).toBe(before);
  });

  it('refuses a part without a name and a name over 100 characters', async () => {
    const boundary = 'XyZ';
    const body = (disposition: string) =>
      `--${boundary}\r\ncontent-disposition: form-data${disposition}\r\n\r\nv\r\n--${boundary}--\r\n`;
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
    for (const disposition of ['', `; name="${'n'.repeat(101)}"`]) {
      const res = await post({ payload: body(disposition), headers });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().app).toBe(true);
    }
    // Whitespace before the parameters is still a form.
    const spaced = await post({
      payload: body('; name="token"'),
      headers: { 'content-type': `multipart/form-data ; boundary=${boundary}` },
    });
    expect(spaced.statusCode, spaced.body).toBe(200);
    expect(spaced.json()).toEqual({ fields: { token: 'v' }, form: true });
  });

  it('answers a form whose sender went away mid-way with a 400, not a 500', async () => {
    const whole = await form([['token', 'abc']]);
    const broken = new Readable({
      read() {
        this.push(whole.payload.subarray(0, 40));
        this.destroy(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      },
    });
    const res = await post({ payload: broken, headers: whole.headers });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ app: true, message: 'The form was not sent whole' });
  });

  it('refuses a body over the limit with a 413, by its Content-Length or as it streams in', async () => {
    const big = await form([
      ['token', 'a'],
      ['pad', 'x'.repeat(2000)],
    ]);
    expect((await post(big)).statusCode).toBe(413);
    const streamed = await post({
      payload: Readable.from([big.payload.subarray(0, 600), big.payload.subarray(600)]),
      headers: { ...big.headers, 'transfer-encoding': 'chunked' },
    });
    expect(streamed.statusCode, streamed.body).toBe(413);
  });

  it('answers a malformed body with a 400: no boundary, cut short, garbage', async () => {
    const whole = await form([['token', 'abc']]);
    const cases = [
      { payload: 'token=abc', headers: { 'content-type': 'multipart/form-data' } },
      { payload: whole.payload.subarray(0, 60), headers: whole.headers },
      { payload: 'garbage', headers: { 'content-type': 'multipart/form-data; boundary=XX' } },
    ];
    for (const body of cases) {
      const res = await post(body);
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
    }
  });

  it('is for its scope only: elsewhere a multipart body is an unsupported media type', async () => {
    const res = await app.inject({ method: 'POST', url: '/elsewhere', ...(await form([['token', 'a']])) });
    expect(res.statusCode).toBe(415);
  });
});
