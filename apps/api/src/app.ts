import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import cookie from '@fastify/cookie';
import proxyAddr from '@fastify/proxy-addr';
import rateLimit from '@fastify/rate-limit';
import { LINK_PATH_PREFIX } from '@moat/contracts/click-time';
import { AVAILABLE_SECURITY_TOOLS } from '@moat/contracts/deployment';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Redis as RedisClient } from 'ioredis';
import type { Config } from './config.ts';
import type { Database, DbOrTx } from './db/client.ts';
import { createEngines } from './engines/index.ts';
import { closeAttachmentLures } from './engines/lures/index.ts';
import type { Engine } from './engines/types.ts';
import { type Caches, createCaches } from './lib/cache.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { createCountersRepo } from './lib/counters.repo.ts';
import {
  type Counters,
  memoryCounters,
  postgresCounters,
  rateLimitStore,
  redisCounters,
} from './lib/counters.ts';
import { createMetrics, type Metrics, QUEUE_DEPTH_TIMEOUT_MS } from './lib/metrics.ts';
import { RequestLog } from './lib/request-log.ts';
import { ServerKey } from './lib/server-key.ts';
import { createGatewayPolicyRepo } from './mail/gateway/gateway-policy.repo.ts';
import { createInboundRepo } from './mail/gateway/inbound.repo.ts';
import { createMailFlowRepo } from './mail/gateway/mail-flow.repo.ts';
import { createGatewayProcessor, type DnsResolver, type GatewayProcessor } from './mail/gateway/processor.ts';
import { createRecipientVerifier } from './mail/gateway/recipient-verify.ts';
import { createSmtpIn, type SmtpIn } from './mail/gateway/smtp-in.ts';
import { createMailer, type Mailer } from './mail/outbound.ts';
import { createOutboundRoutes, systemMxResolver } from './mail/outbound-routes.ts';
import { createOutboxRepo } from './mail/outbox.repo.ts';
import { createSenderOf } from './mail/sender.ts';
import { createSubmissionIn, type SubmissionIn } from './mail/submission/submission-in.ts';
import { createAddOnsRepo } from './modules/add-ons/add-ons.repo.ts';
import { addOnsRoutes } from './modules/add-ons/add-ons.routes.ts';
import { type AddOnsService, createAddOnsService } from './modules/add-ons/add-ons.service.ts';
import { createAlertsRepo } from './modules/alerts/alerts.repo.ts';
import { type Alerts, createAlerts } from './modules/alerts/alerts.service.ts';
import { createAnalyticsRepo } from './modules/analytics/analytics.repo.ts';
import { analyticsRoutes } from './modules/analytics/analytics.routes.ts';
import { type AnalyticsService, createAnalyticsService } from './modules/analytics/analytics.service.ts';
import { createAuditRepo } from './modules/audit/audit.repo.ts';
import { auditRoutes } from './modules/audit/audit.routes.ts';
import { type AuditService, createAuditService } from './modules/audit/audit.service.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { type AuthService, createAuthService } from './modules/auth/auth.service.ts';
import { createCaptchaRepo } from './modules/auth/captcha.repo.ts';
import { type Captcha, createCaptcha } from './modules/auth/captcha.ts';
import { createLoginChallengesRepo } from './modules/auth/login-challenges.repo.ts';
import { createThrottleRepo } from './modules/auth/throttle.repo.ts';
import { createThrottle } from './modules/auth/throttle.ts';
import { createUserTokensRepo } from './modules/auth/user-tokens.repo.ts';
import { cliBridgeRoutes } from './modules/cli-bridge/cli-bridge.routes.ts';
import { createClickTimeRepo } from './modules/click-time/click-time.repo.ts';
import { clickTimeRoutes } from './modules/click-time/click-time.routes.ts';
import { type ClickTime, createClickTime } from './modules/click-time/click-time.service.ts';
import { createLinkEndpoint, type LinkEndpoint } from './modules/click-time/link-endpoint.ts';
import { createClusterRepo } from './modules/cluster/cluster.repo.ts';
import { type ClusterService, createClusterService } from './modules/cluster/cluster.service.ts';
import { createSweeper, type Sweeper } from './modules/cluster/sweeper.ts';
import { createCurrentUserRepo } from './modules/current-user/current-user.repo.ts';
import { currentUserRoutes } from './modules/current-user/current-user.routes.ts';
import {
  type CurrentUserService,
  createCurrentUserService,
} from './modules/current-user/current-user.service.ts';
import { customizationRoutes } from './modules/customization/customization.routes.ts';
import {
  type CustomizationService,
  createCustomizationService,
} from './modules/customization/customization.service.ts';
import { createDeploymentRepo } from './modules/deployment/deployment.repo.ts';
import { deploymentRoutes } from './modules/deployment/deployment.routes.ts';
import { createDeploymentService, type DeploymentService } from './modules/deployment/deployment.service.ts';
import { createDigestRepo } from './modules/digest/digest.repo.ts';
import { createDigestService, type DigestService } from './modules/digest/digest.service.ts';
import { createDkimSigner } from './modules/dkim-signing/dkim-signer.ts';
import { createDkimSigningRepo } from './modules/dkim-signing/dkim-signing.repo.ts';
import { dkimSigningRoutes } from './modules/dkim-signing/dkim-signing.routes.ts';
import {
  createDkimSigningService,
  type DkimSigningService,
} from './modules/dkim-signing/dkim-signing.service.ts';
import { createDlpRepo } from './modules/dlp/dlp.repo.ts';
import { dlpRoutes } from './modules/dlp/dlp.routes.ts';
import { createDlpService, type DlpService } from './modules/dlp/dlp.service.ts';
import { createDkimRepo } from './modules/dmarc/dkim.repo.ts';
import { dkimRoutes } from './modules/dmarc/dkim.routes.ts';
import { createDkimService, type DkimService, dkimResolver } from './modules/dmarc/dkim.service.ts';
import type { DkimResolver } from './modules/dmarc/dkim.ts';
import { createDmarcRepo } from './modules/dmarc/dmarc.repo.ts';
import { dmarcRoutes } from './modules/dmarc/dmarc.routes.ts';
import { createDmarcService, type DmarcService } from './modules/dmarc/dmarc.service.ts';
import { createDnsChangesRepo } from './modules/dmarc/dns-changes.repo.ts';
import { dnsChangesRoutes } from './modules/dmarc/dns-changes.routes.ts';
import {
  createDnsChangesService,
  type DnsChangesService,
  dnsChangeResolver,
} from './modules/dmarc/dns-changes.service.ts';
import { createFailureTlsRepo } from './modules/dmarc/failure-tls.repo.ts';
import { failureTlsRoutes } from './modules/dmarc/failure-tls.routes.ts';
import { createFailureTlsService, type FailureTlsService } from './modules/dmarc/failure-tls.service.ts';
import { dmarcInsightsRoutes } from './modules/dmarc/insights.routes.ts';
import { createRecommendationsRepo } from './modules/dmarc/recommendations.repo.ts';
import {
  createRecommendationsService,
  type RecommendationsService,
} from './modules/dmarc/recommendations.service.ts';
import { createReverseNames, type PtrResolver, type ReverseNames } from './modules/dmarc/reverse-names.ts';
import { createSpfService, type SpfService, spfResolver } from './modules/dmarc/spf.service.ts';
import type { SpfResolver } from './modules/dmarc/spf.ts';
import { createEmailCodesRepo } from './modules/email-codes/email-codes.repo.ts';
import { createEmailCodes } from './modules/email-codes/email-codes.service.ts';
import { createExceptionsRepo } from './modules/exceptions/exceptions.repo.ts';
import { exceptionsRoutes } from './modules/exceptions/exceptions.routes.ts';
import { createExceptionsService, type ExceptionsService } from './modules/exceptions/exceptions.service.ts';
import { createFeaturesRepo } from './modules/features/features.repo.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { helpRoutes } from './modules/help/help.routes.ts';
import { createMailExplorerRepo } from './modules/mail-explorer/mail-explorer.repo.ts';
import { mailExplorerRoutes } from './modules/mail-explorer/mail-explorer.routes.ts';
import {
  createMailExplorerService,
  type MailExplorerService,
} from './modules/mail-explorer/mail-explorer.service.ts';
import { createMessageTraceRepo } from './modules/message-trace/message-trace.repo.ts';
import { messageTraceRoutes } from './modules/message-trace/message-trace.routes.ts';
import {
  createMessageTraceService,
  type MessageTraceService,
} from './modules/message-trace/message-trace.service.ts';
import { createMetricsRepo } from './modules/metrics/metrics.repo.ts';
import { metricsRoutes } from './modules/metrics/metrics.routes.ts';
import { mfaRoutes } from './modules/mfa/mfa.routes.ts';
import { createMfaService, type MfaService } from './modules/mfa/mfa.service.ts';
import { myQuarantineRoutes } from './modules/my-quarantine/my-quarantine.routes.ts';
import {
  createMyQuarantineService,
  type MyQuarantineService,
} from './modules/my-quarantine/my-quarantine.service.ts';
import { createMySendersRepo } from './modules/my-senders/my-senders.repo.ts';
import { mySendersRoutes } from './modules/my-senders/my-senders.routes.ts';
import { createMySendersService, type MySendersService } from './modules/my-senders/my-senders.service.ts';
import { createOnboardingRepo } from './modules/onboarding/onboarding.repo.ts';
import { onboardingRoutes } from './modules/onboarding/onboarding.routes.ts';
import {
  createOnboardingService,
  type OnboardingResolver,
  type OnboardingService,
  systemResolver,
} from './modules/onboarding/onboarding.service.ts';
import { outboundRoutes } from './modules/outbound/outbound.routes.ts';
import { createOutboundService, type OutboundService } from './modules/outbound/outbound.service.ts';
import { createSmtpCredentialsRepo } from './modules/outbound/smtp-credentials.repo.ts';
import {
  createSmtpCredentialsService,
  type SmtpCredentialsService,
} from './modules/outbound/smtp-credentials.service.ts';
import { createOverviewRepo } from './modules/overview/overview.repo.ts';
import { overviewRoutes } from './modules/overview/overview.routes.ts';
import { createOverviewService, type OverviewService } from './modules/overview/overview.service.ts';
import { createPhishingReportsRepo } from './modules/phishing-reports/phishing-reports.repo.ts';
import { userInteractionRoutes } from './modules/phishing-reports/phishing-reports.routes.ts';
import {
  createPhishingReportsService,
  type PhishingReportsService,
} from './modules/phishing-reports/phishing-reports.service.ts';
import { createPolicyRepo } from './modules/policy/policy.repo.ts';
import { policyRoutes } from './modules/policy/policy.routes.ts';
import { createPolicyService, type PolicyService } from './modules/policy/policy.service.ts';
import { createPublicActionsRepo } from './modules/public-actions/public-actions.repo.ts';
import { publicActionsRoutes } from './modules/public-actions/public-actions.routes.ts';
import {
  createPublicActionsService,
  type PublicActionsService,
} from './modules/public-actions/public-actions.service.ts';
import { createRecipientTrust } from './modules/public-actions/recipient-trust.ts';
import { publicConfigRoutes } from './modules/public-config/public-config.routes.ts';
import {
  createPublicConfigService,
  type PublicConfigService,
} from './modules/public-config/public-config.service.ts';
import { restorePolicyFrom } from './modules/quarantine/policy.ts';
import { createQuarantineRepo } from './modules/quarantine/quarantine.repo.ts';
import { createQuarantineService, type QuarantineService } from './modules/quarantine/quarantine.service.ts';
import { createQuarantineAdminRepo } from './modules/quarantine-admin/quarantine-admin.repo.ts';
import { quarantineAdminRoutes } from './modules/quarantine-admin/quarantine-admin.routes.ts';
import {
  createQuarantineAdminService,
  type QuarantineAdminService,
} from './modules/quarantine-admin/quarantine-admin.service.ts';
import { createRetractionRepo } from './modules/retraction/retraction.repo.ts';
import { retractionRoutes } from './modules/retraction/retraction.routes.ts';
import { createRetractionService, type RetractionService } from './modules/retraction/retraction.service.ts';
import { createSearchRepo } from './modules/search/search.repo.ts';
import { searchRoutes } from './modules/search/search.routes.ts';
import { createSearchService, type SearchService } from './modules/search/search.service.ts';
import { createSecurityEventsRepo } from './modules/security-events/security-events.repo.ts';
import { securityEventsRoutes } from './modules/security-events/security-events.routes.ts';
import {
  createSecurityEventsService,
  type SecurityEventsService,
} from './modules/security-events/security-events.service.ts';
import { createIncidentsRepo } from './modules/service-status/incidents.repo.ts';
import { createServiceStatusRepo } from './modules/service-status/service-status.repo.ts';
import { serviceStatusRoutes } from './modules/service-status/service-status.routes.ts';
import {
  createServiceStatusService,
  recordedTasks,
  type ServiceStatusService,
} from './modules/service-status/service-status.service.ts';
import { createSessionsRepo } from './modules/sessions/sessions.repo.ts';
import { createSessionsService, type SessionsService } from './modules/sessions/sessions.service.ts';
import { settingsRoutes } from './modules/settings/settings.routes.ts';
import { createSettingsService, type SettingsService } from './modules/settings/settings.service.ts';
import { createSmartBannersRepo } from './modules/smart-banners/smart-banners.repo.ts';
import { smartBannersRoutes } from './modules/smart-banners/smart-banners.routes.ts';
import {
  createSmartBannersService,
  type SmartBannersService,
} from './modules/smart-banners/smart-banners.service.ts';
import { spaRoutes } from './modules/spa/spa.routes.ts';
import { createSpamLearningRepo } from './modules/spam-learning/spam-learning.repo.ts';
import { spamLearningRoutes } from './modules/spam-learning/spam-learning.routes.ts';
import {
  createSpamLearningService,
  type RemoteLearner,
  type SpamLearningService,
} from './modules/spam-learning/spam-learning.service.ts';
import { createOidcService, type OidcService } from './modules/sso/oidc.service.ts';
import { createSamlService, type SamlService } from './modules/sso/saml.service.ts';
import {
  createSignInSettingsService,
  type SignInSettingsService,
} from './modules/sso/sign-in-settings.service.ts';
import { createSsoRepo } from './modules/sso/sso.repo.ts';
import { ssoRoutes } from './modules/sso/sso.routes.ts';
import { createSsoHandover } from './modules/sso/sso-handover.ts';
import { createTenantSettings, TENANT_SETTINGS_TTL_MS } from './modules/tenants/tenant-settings.ts';
import { createTenantsRepo } from './modules/tenants/tenants.repo.ts';
import { createTenantsService, type TenantsService } from './modules/tenants/tenants.service.ts';
import { createTrialRepo } from './modules/trial/trial.repo.ts';
import { trialRoutes } from './modules/trial/trial.routes.ts';
import { createTrialService, type TrialService } from './modules/trial/trial.service.ts';
import { createUserInteractionRepo } from './modules/user-interaction/user-interaction.repo.ts';
import {
  createUserInteractionService,
  type UserInteractionService,
} from './modules/user-interaction/user-interaction.service.ts';
import { createUserInteractionSettingsRepo } from './modules/user-interaction-settings/user-interaction-settings.repo.ts';
import { userInteractionSettingsRoutes } from './modules/user-interaction-settings/user-interaction-settings.routes.ts';
import {
  createUserInteractionSettingsService,
  type UserInteractionSettingsService,
} from './modules/user-interaction-settings/user-interaction-settings.service.ts';
import { createUserManagementRepo } from './modules/user-management/user-management.repo.ts';
import { userManagementRoutes } from './modules/user-management/user-management.routes.ts';
import {
  createUserManagementService,
  type UserManagementService,
} from './modules/user-management/user-management.service.ts';
import { createUsersRepo } from './modules/users/users.repo.ts';
import { createUsersService, type UsersService } from './modules/users/users.service.ts';
import { createVipsRepo } from './modules/vips/vips.repo.ts';
import { vipsRoutes } from './modules/vips/vips.routes.ts';
import { createVipsService, type VipsService } from './modules/vips/vips.service.ts';
import { csrfPlugin } from './plugins/app/csrf.ts';
import { errorHandlerPlugin } from './plugins/app/error-handler.ts';
import { httpMetricsPlugin } from './plugins/app/http-metrics.ts';
import { answerFrameworkError, inputGuardPlugin } from './plugins/app/input-guard.ts';
import { sessionPlugin } from './plugins/app/session.ts';
import { compressionPlugin } from './plugins/external/compression.ts';
import { openApiPlugin } from './plugins/external/openapi.ts';
import { securityHeaders, securityHeadersPlugin } from './plugins/external/security-headers.ts';

export const VERSION: string = JSON.parse(
  fs.readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8'),
).version;

export interface Services {
  tenants: TenantsService;
  users: UsersService;
  publicConfig: PublicConfigService;
  sessions: SessionsService;
  captcha: Captcha;
  auth: AuthService;
  mfa: MfaService;
  mailer: Mailer;
  publicActions: PublicActionsService;
  quarantineAdmin: QuarantineAdminService;
  deployment: DeploymentService;
  trial: TrialService;
  serviceStatus: ServiceStatusService;
  search: SearchService;
  overview: OverviewService;
  mailExplorer: MailExplorerService;
  securityEvents: SecurityEventsService;
  exceptions: ExceptionsService;
  vips: VipsService;
  /** Retraction of delivered mail from the tenant's mailboxes (issue 36 §2). */
  retraction: RetractionService;
  /** DMARC aggregate reports about the tenant's domains (issue 37). */
  dmarc: DmarcService;
  /** DMARC failure reports and SMTP TLS reports about the tenant's domains (issue 37). */
  dmarcFailureTls: FailureTlsService;
  /** SPF Management: each domain's SPF record looked up, counted and corrected (issue 37). */
  spf: SpfService;
  /** DNS Change-Log: the domains' records polled, their changes logged, and the DMARC alerts (issue 37). */
  dnsChanges: DnsChangesService;
  /** DKIM Management: each domain's selectors and keys checked, a rotation plan (issue 37). */
  dkim: DkimService;
  /** DKIM signing: the tenant domains' own keys, their records, signing on or off, rotation (issue 38). */
  dkimSigning: DkimSigningService;
  /** DMARC Recommendations: what to change next per domain (issue 37). */
  dmarcRecommendations: RecommendationsService;
  /** Reverse names of the sources the DMARC reports name. */
  reverseNames: ReverseNames;
  /** Click-time protection: rewritten links, each click judged when it happens (issue 36). */
  clickTime: ClickTime;
  /** System Logs: the audit log, read. */
  auditLog: AuditService;
  /** User Management: the tenant's users for its admins. */
  userManagement: UserManagementService;
  /** Settings: the organisation's own policy. */
  settings: SettingsService;
  /** Customization: the logo and the default theme. */
  customization: CustomizationService;
  /** Every user's own held mail. */
  myQuarantine: MyQuarantineService;
  /** Every user's own allow and block list of senders. */
  mySenders: MySendersService;
  /** Onboarding: domains, their DNS, the next hop and a test message. */
  onboarding: OnboardingService;
  policy: PolicyService;
  /** User Interaction → Smart Banners: each verdict's banner, the senders spared, the preview. */
  smartBanners: SmartBannersService;
  /** Settings → User Interaction: Quarantine and Phishing Reports. */
  userInteractionSettings: UserInteractionSettingsService;
  /** The Add-ons Store. */
  addOns: AddOnsService;
  /** Phishing Reports, the User Interaction dashboard and Modified Attachments, the admins' alerts (issue 11). */
  phishingReports: PhishingReportsService;
  userInteraction: UserInteractionService;
  alerts: Alerts;
  analytics: AnalyticsService;
  messageTrace: MessageTraceService;
  spamLearning: SpamLearningService;
  /** SAML sign-in (issue 15) and Settings → Sign-in. */
  saml: SamlService;
  /** Microsoft and Google sign-in (OpenID Connect). */
  oidc: OidcService;
  signInSettings: SignInSettingsService;
  currentUser: CurrentUserService;
  /** Holding mail: the one intake path (the gateway, the CLI's import). */
  quarantine: QuarantineService;
  /** The mail gateway's detection engines and the processor of stored inbound mail. */
  gateway: {
    engines: Engine[];
    processor: GatewayProcessor;
    /** The SMTP front door as the configuration sets it, storing for this processor (not listening yet). */
    frontDoor: () => SmtpIn;
  };
  /** Outbound mail (issue 38): submission credentials, the submission port, what accepts its mail. */
  outbound: {
    credentials: SmtpCredentialsService;
    service: OutboundService;
    /** DLP: the data types, custom rules and the check of each message (DLP Data Types). */
    dlp: DlpService;
    /** The submission port as the configuration sets it (not listening yet). */
    submission: () => SubmissionIn;
  };
  digest: DigestService;
  /** The shared key's check across nodes. */
  cluster: ClusterService;
  /** Counters every node shares (rate limits, SMTP per-address limits). */
  counters: Counters;
  /** Housekeeping one node does for all. */
  sweeper: Sweeper;
  /** What rarely changes, kept per node and forgotten on every announced write (lib/cache.ts). */
  caches: Caches;
  /** This app's Prometheus metrics, served at /metrics (issue 14). */
  metrics: Metrics;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: Database;
    clock: Clock;
    services: Services;
  }
}

export interface BuildAppOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  /** The server's secret; by default SECRET_KEY or DATA_DIR/secret.key. */
  serverKey?: ServerKey;
  /** The CLI bridge's secret; the bridge exists only when the server owns an embedded database. */
  cliBridgeToken?: string;
  /** DNS for SPF, DKIM and DMARC; the system resolver by default (tests inject a fake). */
  dnsResolver?: DnsResolver;
  /** DNS for Onboarding's MX, SPF and DMARC checks; the system resolver by default. */
  onboardingResolver?: OnboardingResolver;
  /** DNS for SPF Management's look-ups; the system resolver (DNS_SERVERS) by default. */
  spfResolver?: SpfResolver;
  /** DNS for DKIM Management's key look-ups; the system resolver (DNS_SERVERS) by default. */
  dkimResolver?: DkimResolver;
  /** DNS for the reverse names of DMARC sources; the system resolver (DNS_SERVERS) by default. */
  ptrResolver?: PtrResolver;
  /** Shared counters; by default Redis (REDIS_URL), else PostgreSQL, else memory (embedded). */
  counters?: Counters;
  /** pino options; false turns logging off (tests). */
  logger?: boolean | Record<string, unknown>;
}

/** Redis when configured; else the PostgreSQL every node shares; else (one embedded node) memory. */
function countersFor(config: Config, database: Database, clock: Clock, log: FastifyBaseLogger): Counters {
  const onError = (error: unknown) => log.warn({ err: error }, 'counting hits in the shared store failed');
  if (config.redisUrl) {
    // Loaded only when configured: ioredis costs a fifth of a CPU second to load (issue 14).
    const { Redis } = createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient };
    return redisCounters(
      new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }),
      undefined,
      { clock, onError },
    );
  }
  return database.kind === 'postgres'
    ? postgresCounters(createCountersRepo(database.db), clock, { onError })
    : memoryCounters(clock);
}

/**
 * Fastify's `trustProxy`: a list of plain addresses becomes a set lookup (an IPv4 peer may appear
 * IPv4-mapped), instead of parsing every hop's address at each `request.ip`; ranges (CIDR) stay
 * with Fastify's own matcher.
 */
export function trustedProxies(
  setting: boolean | string[],
): boolean | string[] | ((address: string) => boolean) {
  if (typeof setting === 'boolean' || setting.some((entry) => entry.includes('/'))) return setting;
  const trusted = new Set(setting);
  return (address) => trusted.has(address.startsWith('::ffff:') ? address.slice(7) : address);
}

/** The client's address of a request Fastify has not seen, as its `request.ip` reads it. */
function ipOfRequest(trust: ReturnType<typeof trustedProxies>) {
  const trusts =
    typeof trust === 'function'
      ? trust
      : trust === true
        ? () => true
        : trust === false
          ? () => false
          : proxyAddr.compile(trust);
  return (request: http.IncomingMessage) => {
    const addresses = proxyAddr.all(request, trusts);
    return addresses[addresses.length - 1] ?? '';
  };
}

/** The one way to build the server: `npm start` and the tests both use it. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const clock = options.clock ?? systemClock;
  // A rewritten link's click is answered before Fastify's request cycle (link-endpoint.ts), once
  // the services it needs exist; everything else, and the tests' `inject`, goes through Fastify.
  let linkEndpoint: LinkEndpoint | null = null;
  const trustProxy = trustedProxies(config.trustProxy);
  const app = Fastify({
    serverFactory: (handler, options) => {
      const settings = options as {
        http?: http.ServerOptions;
        keepAliveTimeout?: number;
        requestTimeout?: number;
        connectionTimeout?: number;
        maxRequestsPerSocket?: number;
      };
      const server = http.createServer(settings.http ?? {}, (request, response) =>
        linkEndpoint ? linkEndpoint(request, response, handler) : handler(request, response),
      );
      // As Fastify sets up a server of its own.
      server.keepAliveTimeout = settings.keepAliveTimeout ?? server.keepAliveTimeout;
      server.requestTimeout = settings.requestTimeout ?? server.requestTimeout;
      server.setTimeout(settings.connectionTimeout ?? 0);
      if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
      return server;
    },
    // The tests' own logger (a stream, a level) keeps the redactions and serializers below.
    logger:
      options.logger === false || options.logger === true
        ? options.logger
        : {
            level: config.logLevel,
            redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
            // Query strings can hold emailed codes and tokens: they never reach the log.
            serializers: {
              req: (req: { method: string; url: string; hostname?: string; ip?: string }) => ({
                method: req.method,
                url: req.url.split('?')[0],
                hostname: req.hostname,
                remoteAddress: req.ip,
              }),
            },
            ...options.logger,
          },
    // No line per request at the default level (info); one at debug (lib/request-log.ts).
    logController: new RequestLog(),
    genReqId: () => randomUUID(),
    // Paths the router cannot decode (`%FF`) answer in the API's error shape too.
    frameworkErrors: answerFrameworkError,
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    trustProxy,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.decorate('config', config);
  app.decorate('database', database);
  app.decorate('clock', clock);
  const db = database.db;
  const serverKey = options.serverKey ?? ServerKey.fromEnvOrFile(config.secretKey, config.dataDir);
  const counters = options.counters ?? countersFor(config, database, clock, app.log);
  // One registry per app; what counts (HTTP, gateway, engines, relay, sign-in) is handed its part.
  const metricsRepo = createMetricsRepo(db);
  const metrics = createMetrics({
    queueDepths: () => metricsRepo.queueDepths(QUEUE_DEPTH_TIMEOUT_MS),
    log: app.log,
  });
  const dkimSigningRepo = createDkimSigningRepo(db);
  const dkimSigner = createDkimSigner({ repo: dkimSigningRepo, serverKey, clock });
  const mailer = createMailer({
    repo: createOutboxRepo(db),
    relayUrl: config.smtpRelayUrl,
    fromAddress: config.mailFrom,
    log: app.log,
    clock,
    journalPath: path.join(config.dataDir, 'outbox-sent.journal'),
    nodeId: config.nodeName,
    leaseMs: config.workLeaseMs,
    retryWindowMs: config.smtpRetryWindowMs,
    // Bound below: the tenant settings are built after the mailer (their caches need the database's notices).
    senderOf: (tenantId, tx) => senderOf(tenantId, tx),
    nextHopOf: (tenantId) => nextHopOf(tenantId),
    nextHopNetworks: config.nextHopNetworks,
    metrics,
    // Moat's own mail from a tenant domain that signs goes out DKIM-signed (issue 38).
    sign: async (message, fromDomain, tenantId) =>
      (await dkimSigner.sign(message, fromDomain, tenantId)).message,
    // The tenants' outbound mail: through OUTBOUND_RELAY_URL, or to the recipients' MX.
    outbound: createOutboundRoutes({
      relayUrl: config.outboundRelayUrl,
      resolver: systemMxResolver(config.dnsServers),
      mxPort: config.outboundMxPort,
      heloName: config.gateway.hostname,
      networks: config.outboundMxNetworks,
    }),
  });
  let senderOf = async (
    _tenantId: string,
    _tx?: DbOrTx,
  ): Promise<{ address: string | null; name: string | null } | null> => null;
  let nextHopOf = async (_tenantId: string): Promise<string | null> => null;
  const caches = createCaches({ database, clock });
  await caches.start();
  // The repositories, built once and handed to the services that use them.
  const repos = {
    audit: createAuditRepo(db),
    tenants: createTenantsRepo(db),
    users: createUsersRepo(db),
    features: createFeaturesRepo(db),
    deployment: createDeploymentRepo(db),
    trial: createTrialRepo(db),
    serviceStatus: createServiceStatusRepo(db),
    incidents: createIncidentsRepo({ db, clock }),
    search: createSearchRepo(db),
    overview: createOverviewRepo(db),
    mailExplorer: createMailExplorerRepo(db),
    securityEvents: createSecurityEventsRepo(db),
    exceptions: createExceptionsRepo(db),
    vips: createVipsRepo(db),
    policy: createPolicyRepo(db),
    analytics: createAnalyticsRepo(db),
    messageTrace: createMessageTraceRepo(db),
    currentUser: createCurrentUserRepo(db),
    digest: createDigestRepo(db),
    sessions: createSessionsRepo(db),
    captcha: createCaptchaRepo(db),
    throttle: createThrottleRepo(db),
    emailCodes: createEmailCodesRepo(db),
    publicActions: createPublicActionsRepo(db),
    quarantineAdmin: createQuarantineAdminRepo(db),
    quarantine: createQuarantineRepo(db),
    phishingReports: createPhishingReportsRepo(db),
    userInteraction: createUserInteractionRepo(db),
    alerts: createAlertsRepo(db),
    spamLearning: createSpamLearningRepo(db),
  };
  const { users, tenants, features, audit } = repos;
  const sessions = createSessionsService({
    clock,
    secureCookies: config.secureCookies,
    repo: repos.sessions,
    // A session is read on every signed-in request; its revocation and its user's changes are
    // announced, and 15 s bounds anything else (the idle timeout is checked on every request).
    live: caches.create('sessions', { tables: ['users', 'tenants'], keyedTable: 'sessions', ttlMs: 15_000 }),
  });
  const captcha = createCaptcha({ repo: repos.captcha, clock, serverKey, config });
  const throttle = createThrottle({ repo: repos.throttle, clock });
  const emailCodes = createEmailCodes({
    repo: repos.emailCodes,
    clock,
    pepper: serverKey.derive('email-codes'),
  });
  // What every public call reads is cached.
  const tenantSettings = createTenantSettings({
    caches,
    tenants,
    features,
    restorePolicyOf: async (tenantId, verdict, tx) =>
      restorePolicyFrom(await repos.quarantine.restorePoliciesOf(tenantId, tx), verdict),
  });
  const alerts = createAlerts({
    repo: repos.alerts,
    mailer,
    audit,
    clock,
    publicUrl: config.publicUrl,
  });
  const publicActions = createPublicActionsService({
    repo: repos.publicActions,
    // Every public call reads its link's message. A change to what is read of one is announced
    // with its public id (migration 0013), and the message's expiry is checked on every call;
    // 30 s bounds a notice lost in transit.
    messages: caches.create('public-messages', {
      tables: [],
      keyedTable: 'quarantine_messages',
      ttlMs: 30_000,
    }),
    settings: tenantSettings,
    codes: emailCodes,
    throttle,
    counters,
    audit,
    clock,
    mailer,
    trust: createRecipientTrust(serverKey),
    reports: repos.phishingReports,
    alerts,
    // Called only when a recipient releases, long after spamLearning (below) exists.
    learnReleased: (m, actor) => spamLearning.learnHeld(m.tenantId, m.id, 'ham', actor, 'recipient_release'),
  });
  const restorePolicy = tenantSettings.restorePolicy;
  senderOf = createSenderOf(config, {
    // Inside a transaction the tenant is read on it; otherwise from the cache.
    find: (tenantId, tx) => (tx ? repos.tenants.findById(tenantId, tx) : tenantSettings.tenantById(tenantId)),
    domainsOf: (tenantId, tx) => repos.tenants.domainsOf(tenantId, tx),
  });
  nextHopOf = async (tenantId) => (await tenantSettings.tenantById(tenantId))?.nextHopUrl ?? null;
  const spamLearning = createSpamLearningService({
    db,
    repo: repos.spamLearning,
    audit,
    caches,
    remote: () =>
      engines.flatMap((e) =>
        e.status === 'on' && 'learn' in e && typeof e.learn === 'function'
          ? [e as Engine & RemoteLearner]
          : [],
      ),
    log: app.log,
    messages: repos.messageTrace,
  });
  const { engines, blocklists } = createEngines(
    config.gateway,
    { learned: spamLearning.tableFor },
    { clock, log: app.log },
  );
  const inbound = createInboundRepo(db);
  const quarantine = createQuarantineService({
    db,
    clock,
    config,
    mailer,
    repo: repos.quarantine,
    tenants,
    audit,
    restorePolicy: tenantSettings.restorePolicy,
    alerts,
  });
  const clickTime = createClickTime({
    repo: createClickTimeRepo(db),
    caches,
    serverKey,
    clock,
    publicUrl: config.publicUrl,
    domainsOf: (tenantId) => repos.tenants.domainsOf(tenantId),
    audit,
    log: app.log,
    alertClickedThrough: (tenantId, blocked, people) => alerts.clickedThrough(tenantId, blocked, people),
    linkListings: config.gateway.blocklists.uriZones.length > 0 ? blocklists.linkListings : undefined,
  });
  const retraction = createRetractionService({
    repo: createRetractionRepo(db),
    audit,
    clock,
    serverKey,
    nodeName: config.nodeName,
    retentionDays: async (tenantId) => (await repos.tenants.findById(tenantId))?.retentionDays ?? 30,
    log: app.log,
  });
  // Reports sent to the domains' report addresses reach DMARC from the gateway, not a mailbox.
  const dmarcFailureTls = createFailureTlsService({
    repo: createFailureTlsRepo(db),
    domainsOf: (tenantId) => repos.tenants.domainsOf(tenantId),
    audit,
    clock,
  });
  const dmarc = createDmarcService({
    repo: createDmarcRepo(db),
    failureTls: dmarcFailureTls,
    domainsOf: (tenantId) => repos.tenants.domainsOf(tenantId),
    audit,
    clock,
    resolveTxt:
      options.onboardingResolver ?? systemResolver(config.dnsServers, { timeoutMs: 1500, tries: 1 }),
  });
  const spf = createSpfService({
    domainsOf: (tenantId) => repos.tenants.domainsOf(tenantId),
    resolver: options.spfResolver ?? spfResolver(config.dnsServers),
    clock,
  });
  const dkim = createDkimService({
    domainsOf: (tenantId) => repos.tenants.domainsOf(tenantId),
    ownKeys: (tenantId) => dkimSigning.publishedKeys(tenantId),
    repo: createDkimRepo(db),
    resolver: options.dkimResolver ?? dkimResolver(config.dnsServers),
    clock,
  });
  const smtpCredentials = createSmtpCredentialsService({
    repo: createSmtpCredentialsRepo(db),
    audit,
    clock,
  });
  const dlpRepo = createDlpRepo(db);
  const gatewayPolicies = createGatewayPolicyRepo(db);
  const dlp = createDlpService({
    repo: dlpRepo,
    exceptionsAmong: (tenantId, values) =>
      gatewayPolicies.entriesAmong(tenantId, values, undefined, 'outbound'),
    disabledToolsOf: (tenantId) => gatewayPolicies.disabledToolsOf(tenantId),
    audit,
    clock,
    caches,
  });
  const outboundService = createOutboundService({
    db,
    // Read when a message arrives: the engines are built after this service.
    scanEngines: () => engines.filter((e) => e.tool === 'anti_malware' || e.tool === 'ap_avanan'),
    dlp,
    dlpRepo,
    counters,
    alerts,
    audit,
    brandOf: (tenantId, tx) => repos.alerts.brandOf(tenantId, tx),
    mailer,
    sign: async (message, fromDomain, tenantId) =>
      (await dkimSigner.sign(message, fromDomain, tenantId)).message,
    clock,
    hostname: config.gateway.hostname,
    log: app.log,
  });
  const dkimSigning = createDkimSigningService({
    db,
    repo: dkimSigningRepo,
    audit,
    clock,
    serverKey,
    resolver: options.dkimResolver ?? dkimResolver(config.dnsServers),
    changed: () => dkimSigner.invalidate(),
  });
  const dnsChanges = createDnsChangesService({
    repo: createDnsChangesRepo(db),
    alertsRepo: repos.alerts,
    domainsOf: (tenantId) => repos.tenants.domainsOf(tenantId),
    resolver: dnsChangeResolver(config.dnsServers),
    mailer,
    audit,
    clock,
    publicUrl: config.publicUrl,
    pollMinutes: config.dmarcDnsPollMinutes,
    log: app.log,
  });
  const processor = createGatewayProcessor({
    db,
    clock,
    mailer,
    reports: dmarc,
    engines,
    inbound,
    tenants,
    users,
    vips: repos.vips,
    clickTime,
    mailFlow: createMailFlowRepo(db),
    policies: gatewayPolicies,
    quarantine,
    caches,
    concurrency: config.gateway.processingConcurrency,
    log: app.log,
    resolver: options.dnsResolver,
    mta: config.gateway.hostname,
    nodeId: config.nodeName,
    leaseMs: config.workLeaseMs,
    metrics,
  });
  // Background tasks run under cluster locks, each run recorded for System Tasks.
  const recordedLock = recordedTasks({
    repo: repos.serviceStatus,
    tryLock: database.tryLock,
    clock,
    node: config.nodeName,
  });
  const quarantineAdmin = createQuarantineAdminService({
    repo: repos.quarantineAdmin,
    audit,
    settings: tenantSettings,
    clock,
    mailer,
    publicActions,
    retryParked: processor.retryParked,
    recordRelease: repos.securityEvents.recordRelease,
    learnReleased: (tenantId, heldId, actor) =>
      spamLearning.learnHeld(tenantId, heldId, 'ham', actor, 'release'),
    learnDecision: (tenantId, heldId, label, actor, source) =>
      spamLearning.learnHeld(tenantId, heldId, label, actor, source),
  });
  const ssoRepo = createSsoRepo(db);
  const userTokens = createUserTokensRepo(db);
  /** Which providers some tenant has on (every public page load asks): cached, forgotten on writes. */
  const ssoProviders = caches.create<Set<'saml' | 'microsoft' | 'google'>>('sso-providers', {
    tables: ['sso_configs'],
    ttlMs: TENANT_SETTINGS_TTL_MS,
  });
  const handover = createSsoHandover({ clock, tenants, users, userTokens, audit });
  const saml = createSamlService({ clock, config, repo: ssoRepo, tenants, handover });
  const oidc = createOidcService({ clock, config, serverKey, repo: ssoRepo, tenants, handover });
  app.decorate('services', {
    tenants: createTenantsService({ db, tenants, features, audit }),
    users: createUsersService({ db, clock, users, tenants, audit }),
    publicConfig: createPublicConfigService({
      settings: tenantSettings,
      config,
      ssoEnabled: () => ssoProviders.get('enabled', () => ssoRepo.enabledProviders()),
    }),
    sessions,
    captcha,
    mailer,
    auth: createAuthService({
      db,
      clock,
      config,
      serverKey,
      mailer,
      captcha,
      throttle,
      sessions,
      codes: emailCodes,
      users,
      tenants,
      features,
      audit,
      challenges: createLoginChallengesRepo(db),
      userTokens,
      log: app.log,
      accountLock: database.withLock,
      metrics,
    }),
    mfa: createMfaService({ db, clock, serverKey, sessions, throttle, users, tenants, audit }),
    publicActions,
    quarantineAdmin,
    onboarding: createOnboardingService({
      db,
      clock,
      config,
      tenants,
      tenantsService: createTenantsService({ db, tenants, features, audit }),
      repo: createOnboardingRepo(db),
      audit,
      resolver: options.onboardingResolver ?? systemResolver(config.dnsServers),
      forgetTenants: () => caches.changed('tenants'),
    }),
    myQuarantine: createMyQuarantineService({
      quarantine: quarantineAdmin,
      publicActions,
      settings: tenantSettings,
      ownerOf: (tenantId, id) => repos.quarantineAdmin.ownerOf(tenantId, id),
    }),
    mySenders: createMySendersService({
      db,
      repo: createMySendersRepo(db),
      audit,
      clock,
      ownDomains: (tenantId) => repos.tenants.domainsOf(tenantId),
    }),
    deployment: createDeploymentService({
      repo: repos.deployment,
      tenants: repos.tenants,
      features: repos.features,
      audit: repos.audit,
      clock,
      mailer,
      supportEmail: config.supportEmail,
    }),
    trial: createTrialService({
      repo: repos.trial,
      audit: repos.audit,
      clock,
      mailer,
      supportEmail: config.supportEmail,
    }),
    serviceStatus: createServiceStatusService({
      repo: repos.serviceStatus,
      clock,
      incidents: repos.incidents,
      databaseKind: database.kind,
      serverVersion: VERSION,
      webDistDir: config.webDistDir,
      smtpRelayUrl: config.smtpRelayUrl,
      engines,
    }),
    search: createSearchService({
      repo: repos.search,
      restorePolicyOf: restorePolicy,
      clock,
      logger: app.log,
    }),
    overview: createOverviewService({ repo: repos.overview, mail: repos.analytics, clock }),
    mailExplorer: createMailExplorerService({ repo: repos.mailExplorer }),
    securityEvents: createSecurityEventsService({ repo: repos.securityEvents }),
    exceptions: createExceptionsService({
      repo: repos.exceptions,
      audit,
      clock,
      ownDomains: (tenantId) => repos.tenants.domainsOf(tenantId),
      linkBlocked: (tenantId, kind, value) => clickTime.linkBlocked(tenantId, kind, value),
      blocked: (tenantId, entries, actor) => retraction.blocked(tenantId, entries, actor),
    }),
    vips: createVipsService({ repo: repos.vips, audit, clock, forget: () => caches.changed('vips') }),
    clickTime,
    retraction,
    spf,
    dkim,
    dkimSigning,
    dmarc,
    dnsChanges,
    dmarcFailureTls,
    dmarcRecommendations: createRecommendationsService({
      repo: createRecommendationsRepo(db),
      overview: (tenantId, days) => dmarc.overview(tenantId, days),
      spf: (tenantId) => spf.check(tenantId),
      dkimFindings: (tenantId) => dkim.keyFindings(tenantId),
      clock,
      log: app.log,
    }),
    reverseNames: createReverseNames({
      resolve: options.ptrResolver ?? systemResolver<'PTR'>(config.dnsServers, { timeoutMs: 1500, tries: 1 }),
    }),
    auditLog: createAuditService({ repo: repos.audit }),
    customization: createCustomizationService({
      db,
      tenants,
      features,
      audit,
      forgetTenants: () => caches.changed('tenants'),
    }),
    settings: createSettingsService({
      db,
      tenants,
      quarantine: repos.quarantineAdmin,
      audit,
      senderConfig: config,
      forgetTenants: () => caches.changed('tenants'),
    }),
    userManagement: createUserManagementService({
      db,
      clock,
      config,
      repo: createUserManagementRepo(db),
      users,
      usersService: createUsersService({ db, clock, users, tenants, audit }),
      tenants,
      sessions,
      audit,
      mailer,
    }),
    policy: createPolicyService({ db, repo: repos.policy, audit: repos.audit, clock }),
    smartBanners: createSmartBannersService({
      repo: createSmartBannersRepo(db),
      policy: repos.policy,
      audit,
      forget: () => {
        caches.changed('tenants');
        caches.changed('gateway_policies');
      },
    }),
    userInteractionSettings: createUserInteractionSettingsService({
      repo: createUserInteractionSettingsRepo(db),
      restore: repos.quarantine,
      policy: repos.policy,
      alerts: repos.alerts,
      audit,
      forget: () => {
        caches.changed('tenants');
        caches.changed('restore_policies');
      },
    }),
    addOns: createAddOnsService({
      repo: createAddOnsRepo(db),
      tenants,
      audit,
      mailer,
      clock,
      supportEmail: config.supportEmail,
      available: AVAILABLE_SECURITY_TOOLS,
    }),
    phishingReports: createPhishingReportsService({
      repo: repos.phishingReports,
      audit,
      mailer,
      settings: tenantSettings,
      clock,
      learnConfirmed: (tenantId, heldId, actor) =>
        spamLearning.learnHeld(tenantId, heldId, 'spam', actor, 'phishing_report'),
      confirmed: (tenantId, reportId, heldId, actor) =>
        retraction.confirmedReport(tenantId, reportId, heldId, actor),
    }),
    userInteraction: createUserInteractionService({ repo: repos.userInteraction, alerts: repos.alerts }),
    alerts,
    analytics: createAnalyticsService({ repo: repos.analytics, clock }),
    messageTrace: createMessageTraceService({
      repo: repos.messageTrace,
      learnedLabel: repos.spamLearning.labelOf,
    }),
    spamLearning,
    saml,
    oidc,
    signInSettings: createSignInSettingsService({
      db,
      onSaved: () => ssoProviders.forget(),
      clock,
      tenants,
      saml,
      oidc,
      serverKey,
      repo: ssoRepo,
      audit,
    }),
    currentUser: createCurrentUserService({ repo: repos.currentUser, sessions, audit: repos.audit }),
    quarantine,
    gateway: {
      engines,
      processor,
      frontDoor: () =>
        createSmtpIn({
          store: processor.intake,
          tenants,
          clock,
          log: app.log,
          counters,
          nodeId: config.nodeName,
          // Unknown recipients are refused at RCPT (550 5.1.1), not accepted and bounced (backscatter).
          verifyRecipient: createRecipientVerifier({
            tenants,
            clock,
            log: app.log,
            relayUrl: config.smtpRelayUrl,
            heloName: config.gateway.hostname,
          }).check,
          options: {
            hostname: config.gateway.hostname,
            maxMessageBytes: config.gateway.maxMessageBytes,
            maxRecipients: 100,
            maxConnectionsPerIp: config.gateway.maxConnectionsPerIp,
            maxMessagesPerMinute: config.gateway.maxMessagesPerMinute,
            tls: config.gateway.tls,
          },
        }),
    },
    outbound: {
      credentials: smtpCredentials,
      service: outboundService,
      dlp,
      submission: () =>
        createSubmissionIn({
          authenticate: smtpCredentials.authenticate,
          domainsOf: (tenantId) => repos.tenants.domainsOf(tenantId),
          ownerOf: (domain) => repos.tenants.domainOwner(domain),
          stillValid: smtpCredentials.stillValid,
          submit: outboundService.submit,
          clock,
          log: app.log,
          counters,
          options: {
            hostname: config.gateway.hostname,
            maxMessageBytes: config.gateway.maxMessageBytes,
            maxRecipients: 100,
            tls: config.gateway.tls,
          },
        }),
    },
    digest: createDigestService({
      repo: repos.digest,
      restorePolicyOf: restorePolicy,
      clock,
      config,
      mailer,
      log: app.log,
      singleton: recordedLock,
    }),
    cluster: createClusterService({ repo: createClusterRepo(db), serverKey }),
    counters,
    caches,
    metrics,
    sweeper: createSweeper({
      tasks: [
        { name: 'counters', run: () => counters.sweep() },
        // SAML requests nobody answered, assertions past their end (issue 15).
        { name: 'sso-purge', run: () => ssoRepo.purgeExpired(clock.now()) },
        // Brute-force counts (auth_throttle) every rule has forgotten: one row per account and address seen.
        { name: 'auth-throttle-purge', run: () => throttle.forgetQuiet() },
        // Held mail past its tenant's retention (issue 11): deleted, one audit entry per tenant.
        { name: 'quarantine-purge', run: () => app.services.quarantineAdmin.purgeExpired() },
        // DNS Change-Log (issue 37): the domains due a poll, bounded and time-boxed, then their alerts.
        { name: 'dmarc-dns-poll', run: () => dnsChanges.pollDue() },
      ],
      singleton: recordedLock,
      log: app.log,
    }),
  });
  app.addHook('onClose', async () => {
    await app.services.digest.stop();
    await app.services.sweeper.stop();
    await processor.stop();
    await retraction.stop();
    await clickTime.flush();
    await dmarc.close();
    await dmarcFailureTls.close();
    await mailer.stop();
    await counters.close();
    caches.stop();
    metrics.close();
    // The attachment-lure worker is the process's (a message with pictures starts it again).
    await closeAttachmentLures();
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(errorHandlerPlugin);
  await app.register(httpMetricsPlugin);
  await app.register(inputGuardPlugin);
  await app.register(securityHeadersPlugin);
  linkEndpoint = createLinkEndpoint({
    clickTime,
    securityHeaders: securityHeaders(),
    ipOf: ipOfRequest(trustProxy),
    count: (status, seconds) => {
      const labels = { method: 'GET', route: `${LINK_PATH_PREFIX}*`, status: String(status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
    },
    log: app.log,
  });
  await app.register(compressionPlugin);
  await app.register(cookie);
  await app.register(rateLimit, {
    global: false,
    // Several nodes count together (Redis or PostgreSQL); one embedded node counts in memory.
    ...(counters.kind === 'memory' ? {} : { store: rateLimitStore(counters) }),
    // A shared store that cannot be reached must not turn every request into a 500.
    skipOnError: true,
  });
  await app.register(csrfPlugin);
  await app.register(sessionPlugin);
  await app.register(openApiPlugin, { version: VERSION });

  await app.register(healthRoutes);
  await app.register(helpRoutes);
  await app.register(metricsRoutes);
  await app.register(publicConfigRoutes);
  await app.register(currentUserRoutes);
  await app.register(authRoutes);
  await app.register(ssoRoutes);
  await app.register(mfaRoutes);
  await app.register(publicActionsRoutes);
  await app.register(quarantineAdminRoutes);
  await app.register(deploymentRoutes);
  await app.register(trialRoutes);
  await app.register(serviceStatusRoutes);
  await app.register(searchRoutes);
  await app.register(overviewRoutes);
  await app.register(mailExplorerRoutes);
  await app.register(securityEventsRoutes);
  await app.register(exceptionsRoutes);
  await app.register(vipsRoutes);
  await app.register(clickTimeRoutes);
  await app.register(retractionRoutes);
  await app.register(dmarcRoutes);
  await app.register(dnsChangesRoutes);
  await app.register(failureTlsRoutes);
  await app.register(dkimRoutes);
  await app.register(dkimSigningRoutes);
  await app.register(outboundRoutes);
  await app.register(dlpRoutes);
  await app.register(dmarcInsightsRoutes);
  await app.register(auditRoutes);
  await app.register(userManagementRoutes);
  await app.register(settingsRoutes);
  await app.register(customizationRoutes);
  await app.register(myQuarantineRoutes);
  await app.register(mySendersRoutes);
  await app.register(onboardingRoutes);
  await app.register(policyRoutes);
  await app.register(smartBannersRoutes);
  await app.register(userInteractionSettingsRoutes);
  await app.register(addOnsRoutes);
  await app.register(userInteractionRoutes);
  await app.register(analyticsRoutes);
  await app.register(messageTraceRoutes);
  await app.register(spamLearningRoutes);
  if (options.cliBridgeToken)
    await app.register(cliBridgeRoutes, { token: options.cliBridgeToken, serverKey });
  await app.register(spaRoutes, { distDir: config.webDistDir });

  return app;
}
