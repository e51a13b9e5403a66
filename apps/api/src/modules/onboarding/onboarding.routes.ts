import { errorResponseSchema } from '@moat/contracts/errors';
import {
  dnsCheckSchema,
  nextHopUpdateSchema,
  ONBOARDING_API,
  onboardingChecklistSchema,
  onboardingDomainSchema,
  onboardingStateSchema,
  organisationNameSchema,
  testMessageRequestSchema,
  testMessageResultSchema,
} from '@moat/contracts/onboarding';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema };

/** Onboarding (SPEC §2.5, issue 12): the organisation's admins set up its mail flow. */
export const onboardingRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.onboarding;
  const tags = ['onboarding'];
  const preHandler = app.requireAdmin;

  app.get(
    ONBOARDING_API.onboarding,
    {
      preHandler,
      schema: {
        tags,
        summary: "Where the organisation's set-up stands: its domains, the MX host to name, its next hop",
        response: { 200: onboardingStateSchema, ...errors },
      },
    },
    async (request) => service.state(tenantActorOf(request).tenantId),
  );

  app.post(
    ONBOARDING_API.domains,
    {
      preHandler,
      schema: {
        tags,
        summary:
          "Add a mail domain: it waits, pending, for a TXT record that proves it is the organisation's (see pending_domains); audited",
        body: onboardingDomainSchema,
        response: { 200: onboardingStateSchema, ...errors, 409: errorResponseSchema },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.addDomain(tenantId, request.body.domain, actor);
    },
  );

  app.post(
    ONBOARDING_API.verifyDomain,
    {
      preHandler,
      schema: {
        tags,
        summary:
          'Verify a pending domain by its TXT record (moat-verification=<token>): from then on the gateway takes its mail; audited',
        body: onboardingDomainSchema,
        response: {
          200: onboardingStateSchema,
          ...errors,
          404: errorResponseSchema,
          409: errorResponseSchema,
        },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.verifyDomain(tenantId, request.body.domain, actor);
    },
  );

  app.post(
    ONBOARDING_API.dnsCheck,
    {
      preHandler,
      schema: {
        tags,
        summary:
          "Look up one of the organisation's domains' MX, SPF and DMARC records and say what to change",
        body: onboardingDomainSchema,
        response: { 200: dnsCheckSchema, ...errors, 404: errorResponseSchema },
      },
    },
    async (request) => service.checkDns(tenantActorOf(request).tenantId, request.body.domain),
  );

  app.get(
    ONBOARDING_API.checklist,
    {
      preHandler,
      schema: {
        tags,
        summary:
          "What is still missing, looked up now: every domain's MX, SPF and DMARC (missing, to change, or not checked when a lookup failed), domains waiting for verification, the gateway's public name, a mail server",
        response: { 200: onboardingChecklistSchema, ...errors },
      },
    },
    async (request) => service.checklist(tenantActorOf(request).tenantId),
  );

  app.put(
    ONBOARDING_API.name,
    {
      preHandler,
      schema: {
        tags,
        summary: "Rename the organisation (the first one is named after its admin's domain); audited",
        body: organisationNameSchema,
        response: { 200: onboardingStateSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.rename(tenantId, request.body.name, actor);
    },
  );

  app.put(
    ONBOARDING_API.nextHop,
    {
      preHandler,
      schema: {
        tags,
        summary:
          "The organisation's mail server, where Moat delivers its mail (host or host:port); null: the deployment's relay. Audited",
        body: nextHopUpdateSchema,
        response: { 200: onboardingStateSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.setNextHop(tenantId, request.body.next_hop, actor);
    },
  );

  app.post(
    ONBOARDING_API.testMessage,
    {
      preHandler,
      config: { rateLimit: { max: 10, timeWindow: '10 minutes' } },
      schema: {
        tags,
        summary:
          'Send a test message to an address of the organisation through its next hop; answers what that server said',
        body: testMessageRequestSchema,
        response: { 200: testMessageResultSchema, ...errors, 409: errorResponseSchema },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.sendTestMessage(tenantId, request.body.to, actor);
    },
  );

  app.post(
    ONBOARDING_API.complete,
    {
      preHandler,
      schema: {
        tags,
        summary: "Finish onboarding: the organisation's admins are no longer led to it; audited",
        response: { 200: onboardingStateSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.complete(tenantId, actor);
    },
  );
};
