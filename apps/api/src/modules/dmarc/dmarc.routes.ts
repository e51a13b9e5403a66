import {
  DMARC_API,
  intakeQuerySchema,
  intakeResponseSchema,
  overviewQuerySchema,
  overviewResponseSchema,
  REPORT_UPLOAD_TYPES,
  recordsQuerySchema,
  recordsResponseSchema,
  reportIdParamsSchema,
  reportsResponseSchema,
  spfQuerySchema,
  spfResponseSchema,
  uploadResultSchema,
} from '@moat/contracts/dmarc';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod/mini';
import { AppError } from '../../errors.ts';
import { sendCsv } from '../../lib/csv.ts';
import { tenantActorOf } from '../../plugins/app/session.ts';
import { REPORT_LIMITS } from './aggregate-report.ts';
import { RECORDS_CSV_MAX } from './dmarc.service.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  413: errorResponseSchema,
};

/** DMARC's reports and what they say (issue 37): admins only. */
export const dmarcRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.dmarc;
  const tags = ['dmarc'];
  const common = { preHandler: app.requireAdmin };

  // A report file is the request body as it is (XML, gzip or zip): parsed only in this scope.
  await app.register(async (upload) => {
    // A TLS report is JSON: taken here as the file it is, not parsed as a request.
    upload.removeContentTypeParser('application/json');
    upload.addContentTypeParser(
      [...REPORT_UPLOAD_TYPES],
      { parseAs: 'buffer', bodyLimit: REPORT_LIMITS.fileBytes },
      (_request, body, done) => done(null, body),
    );
    upload.withTypeProvider<ZodTypeProvider>().post(
      DMARC_API.reports,
      {
        ...common,
        bodyLimit: REPORT_LIMITS.fileBytes,
        schema: {
          tags,
          summary:
            'Take in an aggregate report file (XML, gzip or zip) as the body; the same report twice counts once',
          response: { 200: uploadResultSchema, 201: uploadResultSchema, ...errors },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (!Buffer.isBuffer(body) || body.length === 0)
          throw new AppError('validation_error', 'Send the report file as the request body');
        const { tenantId, actor } = tenantActorOf(request);
        const result = await service.ingest(tenantId, body, 'upload', actor);
        return reply.code(result.duplicate ? 200 : 201).send(result);
      },
    );
  });

  app.get(
    DMARC_API.reports,
    {
      ...common,
      schema: {
        tags,
        summary: 'The aggregate reports taken in, newest period first',
        querystring: z.object({
          limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
          offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
        }),
        response: { 200: reportsResponseSchema, ...errors },
      },
    },
    async (request) =>
      service.reports(tenantActorOf(request).tenantId, request.query.limit, request.query.offset),
  );

  app.get(
    DMARC_API.rawReport,
    {
      ...common,
      schema: {
        tags,
        summary: "A report's XML as the reporter sent it",
        params: reportIdParamsSchema,
      },
    },
    async (request, reply) => {
      const found = await service.rawReport(tenantActorOf(request).tenantId, request.params.id);
      if (!found) throw new AppError('not_found', 'No such report');
      return reply
        .type('application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${found.name}"`)
        .send(found.xml);
    },
  );

  app.get(
    DMARC_API.records,
    {
      ...common,
      schema: {
        tags,
        summary: 'The sources the reports name, with their SPF, DKIM and DMARC results (Reports Explorer)',
        querystring: recordsQuerySchema,
        response: { 200: recordsResponseSchema, ...errors },
      },
    },
    async (request) =>
      service.records({
        ...filterOf(tenantActorOf(request).tenantId, request.query),
        limit: request.query.limit,
        offset: request.query.offset,
      }),
  );

  app.get(
    DMARC_API.recordsCsv,
    {
      ...common,
      schema: {
        tags,
        summary: `The same rows as a CSV file (its filters and sort, at most ${RECORDS_CSV_MAX.toLocaleString('en')} rows)`,
        querystring: recordsQuerySchema,
        response: { 200: z.string(), ...errors },
      },
    },
    async (request, reply) => {
      const csv = await service.recordsCsv(filterOf(tenantActorOf(request).tenantId, request.query));
      return sendCsv(reply, 'dmarc-sources', csv, app.clock.now());
    },
  );

  app.get(
    DMARC_API.intake,
    {
      ...common,
      schema: {
        tags,
        summary: 'What came to the report addresses and the uploads: each file taken in, or refused and why',
        querystring: intakeQuerySchema,
        response: { 200: intakeResponseSchema, ...errors },
      },
    },
    async (request) =>
      service.intake(
        tenantActorOf(request).tenantId,
        request.query.outcome,
        request.query.limit,
        request.query.offset,
      ),
  );

  app.get(
    DMARC_API.overview,
    {
      ...common,
      schema: {
        tags,
        summary:
          'Per domain: its report address, published record, messages reported, pass rate, trend and failing sources',
        querystring: overviewQuerySchema,
        response: { 200: overviewResponseSchema, ...errors },
      },
    },
    async (request) => service.overview(tenantActorOf(request).tenantId, request.query.days),
  );

  app.get(
    DMARC_API.spf,
    {
      ...common,
      // Each call asks DNS about every domain and what it includes.
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary:
          "Each domain's SPF record looked up now: its lookups counted, its includes expanded, its problems named, a corrected record (SPF Management)",
        querystring: spfQuerySchema,
        response: { 200: spfResponseSchema, ...errors },
      },
    },
    async (request) => app.services.spf.check(tenantActorOf(request).tenantId, request.query.domain),
  );
};

/** A records query's filter, without its page. */
function filterOf(tenantId: string, q: z.output<typeof recordsQuerySchema>) {
  return {
    tenantId,
    domain: q.domain,
    ip: q.ip,
    reportId: q.report,
    dmarc: q.dmarc,
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
    sort: q.sort,
    dir: q.dir,
  };
}
