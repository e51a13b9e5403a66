import {
  DLP_API,
  DLP_DATA_TYPES,
  dlpCustomRuleInputSchema,
  dlpCustomRuleSchema,
  dlpDataTypeSettingSchema,
  dlpDataTypeUpdateSchema,
  dlpSettingsSchema,
  dlpTestInputSchema,
  dlpTestResultSchema,
} from '@moat/contracts/dlp';
import { errorResponseSchema } from '@moat/contracts/errors';
import {
  OUTBOUND_API,
  outboundHeldListSchema,
  outboundHeldParamsSchema,
  outboundHeldQuerySchema,
  outboundHeldSchema,
} from '@moat/contracts/outbound';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod/mini';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
};

const typeParams = z.object({ type: z.enum(DLP_DATA_TYPES) });
const ruleParams = z.object({ id: z.uuid() });

/**
 * DLP (issue 38): Security Settings → DLP Data Types (each type's action and threshold, custom
 * rules, a "try it" box) and the outbound mail it held. Admins only.
 */
export const dlpRoutes: FastifyPluginAsyncZod = async (app) => {
  const { dlp, service: outbound } = app.services.outbound;
  const tags = ['dlp'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    DLP_API.dataTypes,
    {
      ...common,
      schema: {
        tags,
        summary: 'Every DLP data type with its action and threshold, and the custom rules',
        response: { 200: dlpSettingsSchema, ...errors },
      },
    },
    async (request) => dlp.settings(tenantActorOf(request).tenantId),
  );

  app.put(
    DLP_API.dataType,
    {
      ...common,
      schema: {
        tags,
        summary: 'Change a data type: on or off, its action, its threshold (file types: the list)',
        params: typeParams,
        body: dlpDataTypeUpdateSchema,
        response: { 200: dlpDataTypeSettingSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return dlp.updateDataType(tenantId, request.params.type, request.body, actor);
    },
  );

  app.post(
    DLP_API.customRules,
    {
      ...common,
      schema: {
        tags,
        summary: 'Add a custom rule: keywords, or one regular expression (RE2)',
        body: dlpCustomRuleInputSchema,
        response: { 200: dlpCustomRuleSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return dlp.createRule(tenantId, request.body, actor);
    },
  );

  app.put(
    DLP_API.customRule,
    {
      ...common,
      schema: {
        tags,
        summary: 'Change a custom rule',
        params: ruleParams,
        body: dlpCustomRuleInputSchema,
        response: { 200: dlpCustomRuleSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return dlp.updateRule(tenantId, request.params.id, request.body, actor);
    },
  );

  app.delete(
    DLP_API.customRule,
    {
      ...common,
      schema: {
        tags,
        summary: 'Delete a custom rule',
        params: ruleParams,
        response: { 200: z.object({ id: z.string() }), ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      await dlp.deleteRule(tenantId, request.params.id, actor);
      return { id: request.params.id };
    },
  );

  app.post(
    DLP_API.test,
    {
      ...common,
      config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: "What the organisation's rules find in a text, masked (nothing is stored)",
        body: dlpTestInputSchema,
        response: { 200: dlpTestResultSchema, ...errors },
      },
    },
    async (request) => ({ hits: await dlp.test(tenantActorOf(request).tenantId, request.body.text) }),
  );

  app.get(
    OUTBOUND_API.held,
    {
      ...common,
      schema: {
        tags,
        summary: 'Outbound mail held for review, newest first',
        querystring: outboundHeldQuerySchema,
        response: { 200: outboundHeldListSchema, ...errors },
      },
    },
    async (request) => outbound.held(tenantActorOf(request).tenantId, request.query),
  );

  for (const [path, decide, summary] of [
    [OUTBOUND_API.release, 'release', 'Send held outbound mail on (signed and queued now)'],
    [OUTBOUND_API.decline, 'decline', 'Decline held outbound mail: it is never sent; its sender is told'],
  ] as const) {
    app.post(
      path,
      {
        ...common,
        schema: {
          tags,
          summary,
          params: outboundHeldParamsSchema,
          response: { 200: outboundHeldSchema, ...errors },
        },
      },
      async (request) => {
        const { tenantId, actor } = tenantActorOf(request);
        return outbound[decide](tenantId, request.params.id, actor);
      },
    );
  }
};
