import { Busboy } from '@fastify/busboy';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../errors.ts';

/** The longest form field name taken. */
const MAX_NAME_LENGTH = 100;

/**
 * A short multipart/form-data form of text fields only (a sign-in token), read by busboy into
 * `request.body` as { name: value }: the scope that registers it takes such forms and nothing
 * larger. A file, a field given twice or too long, more fields than allowed, a body over the limit
 * (refused as it streams in, whatever Content-Length says) or a malformed body is the sender's
 * mistake: a 4xx, and the handler never runs. Registered per scope, so no other route parses
 * multipart bodies.
 */
export function acceptFormFields(
  scope: FastifyInstance,
  limits: { bodyBytes: number; fieldBytes: number; fields: number },
): void {
  scope.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    let finished = false;
    const finish = (error: Error | null, fields?: Record<string, string>) => {
      if (finished) return;
      finished = true;
      payload.unpipe();
      payload.resume();
      done(error, fields);
    };
    const tooLarge = () => new AppError('payload_too_large', 'The form is larger than this request takes');
    if (Number(request.headers['content-length'] ?? 0) > limits.bodyBytes) return finish(tooLarge());

    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({
        headers: request.headers as { 'content-type': string },
        limits: { fieldSize: limits.fieldBytes, fields: limits.fields, files: 0 },
      });
    } catch (error) {
      return finish(badRequest(`The multipart form cannot be read: ${(error as Error).message}`));
    }
    const fields: Record<string, string> = Object.create(null);
    parser.on(
      'field',
      (name: string | undefined, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
        // busboy does not apply its own limit on names.
        if (name === undefined || name === '') return finish(badRequest('Every form field needs a name'));
        if (name.length > MAX_NAME_LENGTH) return finish(badRequest('A form field name is too long'));
        if (valueTruncated) return finish(badRequest(`The form field "${name}" is too long`));
        if (name in fields) return finish(badRequest(`The form field "${name}" is given twice`));
        fields[name] = value;
      },
    );
    parser.on('file', (name: string, stream: NodeJS.ReadableStream) => {
      stream.resume();
      finish(badRequest(`The form takes text fields only, not the file "${name}"`));
    });
    parser.on('filesLimit', () => finish(badRequest('The form takes text fields only, not files')));
    parser.on('fieldsLimit', () => finish(badRequest(`The form takes at most ${limits.fields} fields`)));
    parser.on('error', (error: Error) =>
      finish(badRequest(`The multipart form cannot be read: ${error.message}`)),
    );
    parser.on('finish', () => finish(null, { ...fields }));

    let seen = 0;
    payload.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limits.bodyBytes) finish(tooLarge());
    });
    // The client went away mid-form (the connection reset): its mistake, not the server's.
    payload.on('error', () => finish(badRequest('The form was not sent whole')));
    payload.pipe(parser);
  });
}

/** Whether the request says it sends a multipart form (the scope's other bodies parse as JSON). */
export function isFormFields(request: FastifyRequest): boolean {
  return /^multipart\/form-data\s*(;|$)/i.test(request.headers['content-type']?.trim() ?? '');
}
