import type { CurrentUser } from '@moat/contracts/current-user';
import { describe, expect, it } from 'vitest';
import { buildNavContext, type NavContextOverrides } from './nav-fixtures';
import {
  flattenNavItems,
  NAV_ITEMS,
  type NavContext,
  navLink,
  navTrail,
  PAGE_ONLY_ITEMS,
  visibleNavItems,
} from './nav-items';

/** Ids of every item `ctx` sees, at any depth. */
const visibleIds = (ctx: NavContext) => new Set(flattenNavItems(visibleNavItems(ctx)).map((item) => item.id));
const sees = (overrides: NavContextOverrides, id: string) => visibleIds(buildNavContext(overrides)).has(id);
const topLevel = (ctx: NavContext) => visibleNavItems(ctx).map((item) => item.id);
const find = (id: string) => flattenNavItems().find((item) => item.id === id);

const inactive = { is_active: false, msp_allowed: false };
const user = (overrides: Partial<CurrentUser>) => ({ user: overrides });

describe('navigation table', () => {
  it('gives every item a unique id, an icon and either a link or an action', () => {
    const all = flattenNavItems([...NAV_ITEMS, ...PAGE_ONLY_ITEMS]);
    expect(new Set(all.map((item) => item.id)).size).toBe(all.length);
    for (const item of all) {
      expect(item.icon).toBeTruthy();
      expect(Boolean(item.href) || Boolean(item.action)).toBe(true);
    }
  });

  it('links every entry inside the console (no dead or outside links)', () => {
    for (const item of flattenNavItems()) {
      if (item.href) expect(item.href).toMatch(/^\/[a-z0-9-]+(\/[a-z0-9-]+)*$/);
    }
  });
});

describe('visibility rules (SPEC §2.4, §6)', () => {
  it('always shows Overview and Events; Mail Explorer to admins only (its rows are every mailbox)', () => {
    expect(topLevel(buildNavContext()).slice(0, 3)).toEqual([
      'dashboard',
      'security-events',
      'mail-explorer',
    ]);
    const ctx = buildNavContext({ user: { role: 'user' } });
    expect(topLevel(ctx).slice(0, 2)).toEqual(['dashboard', 'security-events']);
    expect(visibleIds(ctx).has('mail-explorer')).toBe(false);
  });

  it('shows a plain user no admin-only page of User Interaction (the API would answer 403), and Quarantined Items for their own mail', () => {
    const features = { enableUserInteractionScreen: true, enableUserReportedPhishing: true };
    const admin = visibleIds(buildNavContext({ features }));
    const user = visibleIds(buildNavContext({ features, user: { role: 'user' } }));
    for (const id of [
      'user-interaction-dashboard',
      'restore-request-and-clean-attachments',
      'reported-phishing',
      'modified-attachments',
    ]) {
      expect(admin.has(id)).toBe(true);
      expect(user.has(id)).toBe(false);
    }
    expect(user.has('quarantine-item')).toBe(true);
  });

  it('shows the User Interaction dashboard only with enableUserInteractionScreen', () => {
    expect(sees({ features: { enableUserInteractionScreen: true } }, 'user-interaction-dashboard')).toBe(
      true,
    );
    expect(sees({ features: { enableUserInteractionScreen: false } }, 'user-interaction-dashboard')).toBe(
      false,
    );
  });

  it('uses the older Restore Requests page when TEX is off and a Google-type or Microsoft-type mail app is active', () => {
    const gmail = { apps: [{ name: 'google_mail' as const, state: 'enabled' as const }], tools: [] };
    const ctx = { features: { enableTEX: false }, apps: gmail };
    expect(sees(ctx, 'restore-request')).toBe(true);
    expect(sees(ctx, 'restore-request-and-clean-attachments')).toBe(false);
    expect(find('restore-request')?.href).toBe('/user-interaction/restore-request');
  });

  it('uses Restore Requests with clean attachments when TEX is on, or no Google/Microsoft mail app is active', () => {
    expect(sees({ features: { enableTEX: true } }, 'restore-request-and-clean-attachments')).toBe(true);
    expect(sees({ features: { enableTEX: true } }, 'restore-request')).toBe(false);
    const slackOnly = { apps: [{ name: 'slack' as const, state: 'enabled' as const }], tools: [] };
    expect(sees({ features: { enableTEX: false }, apps: slackOnly }, 'restore-request')).toBe(false);
    expect(
      sees({ features: { enableTEX: false }, apps: slackOnly }, 'restore-request-and-clean-attachments'),
    ).toBe(true);
  });

  it('counts only apps in state enabled as active', () => {
    const pending = { apps: [{ name: 'google_mail' as const, state: 'pending' as const }], tools: [] };
    expect(sees({ features: { enableTEX: false }, apps: pending }, 'restore-request')).toBe(false);
  });

  it('shows Phishing Reports with enableUserReportedPhishing and an active mail app', () => {
    expect(sees({ features: { enableUserReportedPhishing: true } }, 'reported-phishing')).toBe(true);
    expect(sees({ features: { enableUserReportedPhishing: false } }, 'reported-phishing')).toBe(false);
    const noMail = { apps: [{ name: 'box' as const, state: 'enabled' as const }], tools: [] };
    expect(sees({ features: { enableUserReportedPhishing: true }, apps: noMail }, 'reported-phishing')).toBe(
      false,
    );
  });

  it('always shows Quarantined Items and Modified Attachments to an admin', () => {
    const ctx = { apps: { apps: [], tools: [] } };
    expect(sees(ctx, 'quarantine-item')).toBe(true);
    expect(sees(ctx, 'modified-attachments')).toBe(true);
  });

  it('shows Smart Banners with enableSmartBanners or in debug mode', () => {
    expect(sees({ features: { enableSmartBanners: false } }, 'smart-banners')).toBe(false);
    expect(sees({ features: { enableSmartBanners: true } }, 'smart-banners')).toBe(true);
    expect(sees({ features: { enableSmartBanners: false }, debug: true }, 'smart-banners')).toBe(true);
  });

  it('shows Partner Risk with enableVendorRisk or in debug mode', () => {
    expect(sees({ features: { enableVendorRisk: false } }, 'vendor-risk')).toBe(false);
    expect(sees({ features: { enableVendorRisk: true } }, 'vendor-risk')).toBe(true);
    expect(sees({ debug: true }, 'vendor-risk')).toBe(true);
  });

  it('always shows Shadow IT and Custom Queries, and the Analytics dashboard to admins only', () => {
    for (const id of ['analytics-dashboard', 'shadow-it', 'custom-queries']) expect(sees({}, id)).toBe(true);
    expect(sees({ user: { role: 'user' } }, 'analytics-dashboard')).toBe(false);
    expect(sees({ user: { role: 'user' } }, 'shadow-it')).toBe(true);
  });

  it('shows Security Checkup with showCheckupReportsScreen, and Summary and Periodic Reports only without it', () => {
    const on = { features: { showCheckupReportsScreen: true } };
    const off = { features: { showCheckupReportsScreen: false } };
    expect(sees(on, 'security-checkup')).toBe(true);
    expect(sees(on, 'summary-report')).toBe(false);
    expect(sees(on, 'periodic-reports')).toBe(false);
    expect(sees(off, 'security-checkup')).toBe(false);
    expect(sees(off, 'summary-report')).toBe(true);
    expect(sees(off, 'periodic-reports')).toBe(true);
  });

  it('shows Supply-Chain Threats with enableSupplyChainThreats, on MSP portals too', () => {
    expect(sees({ features: { enableSupplyChainThreats: false } }, 'supply-chain-threats')).toBe(false);
    expect(sees({ features: { enableSupplyChainThreats: true } }, 'supply-chain-threats')).toBe(true);
    expect(
      sees(
        { features: { enableSupplyChainThreats: true }, deployment: { is_msp: true } },
        'supply-chain-threats',
      ),
    ).toBe(true);
  });

  it('shows Report Scheduler with enableReportSchedulingScreen', () => {
    expect(sees({ features: { enableReportSchedulingScreen: false } }, 'report-scheduler')).toBe(false);
    expect(sees({ features: { enableReportSchedulingScreen: true } }, 'report-scheduler')).toBe(true);
  });

  it('shows Security Training on debug, an active training config, enablePhishingTraining or a poc deployment', () => {
    expect(sees({}, 'phishing-training')).toBe(false);
    expect(sees({ debug: true }, 'phishing-training')).toBe(true);
    expect(
      sees({ deployment: { training: { is_active: true, msp_allowed: false } } }, 'phishing-training'),
    ).toBe(true);
    expect(sees({ features: { enablePhishingTraining: true } }, 'phishing-training')).toBe(true);
    expect(sees({ deployment: { deploymentMode: 'poc' } }, 'phishing-training')).toBe(true);
    expect(sees({ debug: true }, 'phishing-training-dashboard')).toBe(true);
    expect(sees({ debug: true }, 'phishing-training-policies')).toBe(true);
  });

  it('shows Security Training on an MSP portal only when the MSP allows it', () => {
    const on = { features: { enablePhishingTraining: true } };
    expect(sees({ ...on, deployment: { is_msp: true, training: inactive } }, 'phishing-training')).toBe(
      false,
    );
    expect(
      sees({ ...on, debug: true, deployment: { is_msp: true, training: inactive } }, 'phishing-training'),
    ).toBe(false);
    expect(
      sees(
        { ...on, deployment: { is_msp: true, training: { is_active: false, msp_allowed: true } } },
        'phishing-training',
      ),
    ).toBe(true);
  });

  it('shows Archiving to an admin or a demo customer when the archiving tool is active', () => {
    const archiving = { apps: { tools: [{ name: 'archiving' as const, state: 'enabled' as const }] } };
    expect(sees({ ...archiving, user: { role: 'admin' } }, 'archiving')).toBe(true);
    expect(sees({ ...archiving, user: { role: 'user' } }, 'archiving')).toBe(false);
    expect(
      sees({ ...archiving, user: { role: 'user' }, deployment: { deploymentMode: 'demo' } }, 'archiving'),
    ).toBe(true);
    expect(sees({ user: { role: 'admin' } }, 'archiving')).toBe(false);
  });

  it('shows Smart Archiving and its Search with enableSmartArchiveTestFF', () => {
    expect(sees({ features: { enableSmartArchiveTestFF: false } }, 'smart-archiving')).toBe(false);
    expect(sees({ features: { enableSmartArchiveTestFF: true } }, 'smart-archiving')).toBe(true);
    expect(sees({ features: { enableSmartArchiveTestFF: true } }, 'smart-archiving-search')).toBe(true);
  });

  it('shows DMARC on debug, an active DMARC config, enableDMARC (on in this edition) or poc', () => {
    expect(sees({}, 'dmarc')).toBe(true);
    const off = { enableDMARC: false };
    expect(sees({ features: off }, 'dmarc')).toBe(false);
    expect(sees({ debug: true, features: off }, 'dmarc')).toBe(true);
    expect(
      sees({ features: off, deployment: { dmarc: { is_active: true, msp_allowed: false } } }, 'dmarc'),
    ).toBe(true);
    expect(sees({ features: off, deployment: { deploymentMode: 'poc' } }, 'dmarc')).toBe(true);
  });

  it('keeps DMARC for admins: its screens read the reports about every domain', () => {
    expect(sees({ user: { role: 'user' } }, 'dmarc-overview')).toBe(false);
    expect(sees({ user: { role: 'user' } }, 'dmarc')).toBe(false);
  });

  it('hides DMARC under HideDMARCForFedRAMP, whatever else holds', () => {
    expect(sees({ debug: true, features: { enableDMARC: true, HideDMARCForFedRAMP: true } }, 'dmarc')).toBe(
      false,
    );
  });

  it('shows SPF and DKIM Management with their flags, and carries a drillDown on the report pages', () => {
    const off = { features: { enableSPFManagement: false, enableDKIMManagement: false } };
    expect(sees(off, 'dmarc-overview')).toBe(true);
    expect(sees(off, 'dmarc-spf-management')).toBe(false);
    expect(sees(off, 'dmarc-dkim-management')).toBe(false);
    expect(sees({}, 'dmarc-spf-management')).toBe(true);
    expect(sees({}, 'dmarc-dkim-management')).toBe(true);
    const explorer = find('dmarc-rua-explorer');
    expect(explorer && navLink(explorer)).toMatch(/^\/dmarc\/rua-explorer\?drillDown=/);
  });

  it('shows SSPM with enableAtmosecIntegration and an active integration, on poc, or with the MSP bypass flag', () => {
    const active = { is_active: true, msp_allowed: false };
    expect(sees({ features: { enableAtmosecIntegration: true } }, 'sspm')).toBe(false);
    expect(sees({ deployment: { sspm: active } }, 'sspm')).toBe(false);
    expect(sees({ features: { enableAtmosecIntegration: true }, deployment: { sspm: active } }, 'sspm')).toBe(
      true,
    );
    expect(sees({ deployment: { deploymentMode: 'poc' } }, 'sspm')).toBe(true);
    expect(sees({ features: { mspSSPMBypass: true } }, 'sspm')).toBe(true);
    const sspm = find('sspm');
    expect(sspm && navLink(sspm)).toBe('/checkpoint/infinity-redirect?appName=sspm');
  });

  it('shows Policy to admins and users, demo customers and holders of a policy view property', () => {
    const other = 'auditor' as CurrentUser['role'];
    expect(sees(user({ role: 'admin' }), 'policy')).toBe(true);
    expect(sees(user({ role: 'user' }), 'policy')).toBe(true);
    expect(sees(user({ role: other }), 'policy')).toBe(false);
    expect(sees({ ...user({ role: other }), deployment: { deploymentMode: 'demo' } }, 'policy')).toBe(true);
    expect(sees(user({ role: other, view_policy: true }), 'policy')).toBe(true);
    expect(sees(user({ role: other, view_edit_policy: true }), 'policy')).toBe(true);
  });

  it('shows SaaS Applications and Security Engines to admins and users when their tabs are on', () => {
    expect(sees(user({ role: 'user' }), 'cloud-apps')).toBe(true);
    expect(sees(user({ role: 'user' }), 'app-store')).toBe(true);
    expect(sees({ features: { cloudAppsTab: false } }, 'cloud-apps')).toBe(false);
    expect(sees({ features: { appStoreTab: false } }, 'app-store')).toBe(false);
    expect(sees(user({ role: 'auditor' as CurrentUser['role'] }), 'cloud-apps')).toBe(false);
  });

  it('shows DLP Data Types with enableGoogleDlpScanTemplate and the DLP tool active', () => {
    const dlp = { apps: { tools: [{ name: 'dlp' as const, state: 'enabled' as const }] } };
    expect(sees({ features: { enableGoogleDlpScanTemplate: true }, apps: { tools: [] } }, 'data-types')).toBe(
      false,
    );
    expect(sees({ ...dlp, features: { enableGoogleDlpScanTemplate: false } }, 'data-types')).toBe(false);
    expect(sees({ ...dlp, features: { enableGoogleDlpScanTemplate: true } }, 'data-types')).toBe(true);
    // DLP's exceptions page goes with the tool (outbound mail's entries).
    expect(sees(dlp, 'exceptions-dlp')).toBe(true);
    expect(sees({ apps: { tools: [] } }, 'exceptions-dlp')).toBe(false);
  });

  it('shows the Anti-Phishing exceptions only when the ap_avanan tool is active', () => {
    expect(sees({}, 'exceptions-anti-phishing')).toBe(true);
    expect(sees({ apps: { tools: [] } }, 'exceptions-anti-phishing')).toBe(false);
  });

  it('hides every Exceptions page from a plain user (admin only, issue 11)', () => {
    expect(sees({ user: { role: 'user' } }, 'security-exceptions')).toBe(false);
    expect(sees({ user: { role: 'user' } }, 'exceptions-anti-malware')).toBe(false);
  });

  it('shows the Anti-Spam exceptions with enableTrustedSenders', () => {
    expect(sees({ features: { enableTrustedSenders: true } }, 'exceptions-anti-spam')).toBe(true);
    expect(sees({ features: { enableTrustedSenders: false } }, 'exceptions-anti-spam')).toBe(false);
  });

  it('always shows admins the Anti-Malware and URL Reputation exceptions', () => {
    const ctx = { user: { role: 'admin' as const }, apps: { apps: [], tools: [] } };
    for (const id of ['exceptions-anti-malware', 'exceptions-url-reputation']) {
      expect(sees(ctx, id)).toBe(true);
    }
  });

  it('has no exception page for an engine this edition lacks (Anomaly), and has Click-Time and DLP', () => {
    const ids = flattenNavItems().map((item) => item.id);
    expect(ids).toContain('exceptions-click-time');
    expect(ids).toContain('exceptions-dlp');
    expect(ids).not.toContain('exceptions-anomaly');
  });

  it('shows the User Interaction settings to admins with enableUserInteractionScreen', () => {
    expect(sees(user({ role: 'admin' }), 'user-interaction-settings-quarantine')).toBe(true);
    expect(sees(user({ role: 'admin' }), 'user-interaction-settings-phishing-reports')).toBe(true);
    expect(sees(user({ role: 'user' }), 'user-interaction-settings')).toBe(false);
    expect(sees({ features: { enableUserInteractionScreen: false } }, 'user-interaction-settings')).toBe(
      false,
    );
  });

  it('shows User Management to an admin or demo customer with userManagementTab', () => {
    expect(sees(user({ role: 'admin' }), 'user-management')).toBe(true);
    expect(sees(user({ role: 'user' }), 'user-management')).toBe(false);
    expect(
      sees({ ...user({ role: 'user' }), deployment: { deploymentMode: 'demo' } }, 'user-management'),
    ).toBe(true);
    expect(sees({ features: { userManagementTab: false } }, 'user-management')).toBe(false);
  });

  it('shows Customization with enableCustomLogo or enableChangeApplicationMode', () => {
    const both = (logo: boolean, mode: boolean) => ({
      features: { enableCustomLogo: logo, enableChangeApplicationMode: mode },
    });
    expect(sees(both(false, false), 'customization')).toBe(false);
    expect(sees(both(true, false), 'customization')).toBe(true);
    expect(sees(both(false, true), 'customization')).toBe(true);
  });

  it('shows Settings to an admin or a demo customer', () => {
    expect(sees(user({ role: 'admin' }), 'settings')).toBe(true);
    expect(sees(user({ role: 'user' }), 'settings')).toBe(false);
    expect(sees({ ...user({ role: 'user' }), deployment: { deploymentMode: 'demo' } }, 'settings')).toBe(
      true,
    );
  });

  it('shows System Tasks with enableSystemTask and Service Status with serviceStatus; System Logs always', () => {
    expect(sees({ features: { enableSystemTask: false } }, 'system-tasks')).toBe(false);
    expect(sees({ features: { enableSystemTask: true } }, 'system-tasks')).toBe(true);
    expect(sees({ features: { serviceStatus: false } }, 'service-status')).toBe(false);
    expect(sees({ features: { serviceStatus: true } }, 'service-status')).toBe(true);
    expect(sees(user({ role: 'user' }), 'system-logs')).toBe(true);
  });

  it('shows Licenses to an admin when the licence page is shown, which it is not for MSP or demo tenants', () => {
    expect(sees(user({ role: 'admin' }), 'license-configuration')).toBe(true);
    expect(sees(user({ role: 'user' }), 'license-configuration')).toBe(false);
    expect(sees({ licencePageShown: false }, 'license-configuration')).toBe(false);
    expect(sees({ deployment: { is_msp: true } }, 'license-configuration')).toBe(false);
    expect(sees({ deployment: { deploymentMode: 'demo' } }, 'license-configuration')).toBe(false);
  });

  it('shows System Version, which opens the version dialog, with showVersionInfoLinkCP', () => {
    expect(sees({ features: { showVersionInfoLinkCP: false } }, 'system-version')).toBe(false);
    expect(sees({ features: { showVersionInfoLinkCP: true } }, 'system-version')).toBe(true);
    expect(find('system-version')?.action).toBe('versionInfo');
  });

  it('shows the Add-ons Store to an admin or demo customer with enableAddOnsStore', () => {
    expect(sees({ features: { enableAddOnsStore: false } }, 'add-ons-store')).toBe(false);
    expect(sees({ features: { enableAddOnsStore: true } }, 'add-ons-store')).toBe(true);
    expect(sees({ features: { enableAddOnsStore: true }, user: { role: 'user' } }, 'add-ons-store')).toBe(
      false,
    );
    expect(
      sees(
        {
          features: { enableAddOnsStore: true },
          user: { role: 'user' },
          deployment: { deploymentMode: 'demo' },
        },
        'add-ons-store',
      ),
    ).toBe(true);
  });

  it('offers each add-on only while it is not active', () => {
    const store = { features: { enableAddOnsStore: true } };
    const active = { is_active: true, msp_allowed: true };
    expect(sees({ ...store, deployment: { dmarc: active } }, 'add-on-dmarc')).toBe(false);
    expect(sees({ ...store, deployment: { sspm: active } }, 'add-on-sspm')).toBe(false);
    expect(sees({ ...store, deployment: { archiving: active } }, 'add-on-archiving')).toBe(false);
    expect(sees({ ...store, deployment: { training: active } }, 'add-on-phishing-training')).toBe(false);
    const archivingTool = { tools: [{ name: 'archiving' as const, state: 'enabled' as const }] };
    expect(sees({ ...store, apps: archivingTool }, 'add-on-archiving')).toBe(false);
    for (const id of [
      'add-on-dmarc',
      'add-on-iraas',
      'add-on-sspm',
      'add-on-archiving',
      'add-on-phishing-training',
    ]) {
      expect(sees(store, id)).toBe(true);
    }
  });

  it('offers add-ons on an MSP portal only when the MSP allows them, and IRaaS not at all', () => {
    const store = { features: { enableAddOnsStore: true } };
    const allowed = { is_active: false, msp_allowed: true };
    const msp = { is_msp: true, dmarc: inactive, sspm: allowed, archiving: inactive, training: allowed };
    const ctx = { ...store, deployment: msp };
    expect(sees(ctx, 'add-on-dmarc')).toBe(false);
    expect(sees(ctx, 'add-on-archiving')).toBe(false);
    expect(sees(ctx, 'add-on-iraas')).toBe(false);
    expect(sees(ctx, 'add-on-sspm')).toBe(true);
    expect(sees(ctx, 'add-on-phishing-training')).toBe(true);
  });

  it('does not offer the DMARC add-on under HideDMARCForFedRAMP', () => {
    expect(sees({ features: { enableAddOnsStore: true, HideDMARCForFedRAMP: true } }, 'add-on-dmarc')).toBe(
      false,
    );
  });

  it('drops the Add-ons Store when no add-on is left to sell', () => {
    const active = { is_active: true, msp_allowed: true };
    const ctx = {
      features: { enableAddOnsStore: true },
      deployment: { is_msp: true, dmarc: active, sspm: active, archiving: active, training: active },
    };
    expect(sees(ctx, 'add-ons-store')).toBe(false);
  });

  it('drops any section left with no visible child', () => {
    const items = visibleNavItems(buildNavContext(), [
      { id: 'empty', title: 'nav.items.analytics', icon: 'analytics', children: [] },
      {
        id: 'hidden-children',
        title: 'nav.items.analytics',
        icon: 'analytics',
        children: [
          { id: 'x', title: 'nav.items.dashboard', icon: 'dashboard', href: '/x', visible: () => false },
        ],
      },
      { id: 'leaf', title: 'nav.items.overview', icon: 'dashboard', href: '/leaf' },
    ]);
    expect(items.map((item) => item.id)).toEqual(['leaf']);
  });
});

describe('what each profile sees at the top level', () => {
  /** A tenant with Microsoft 365 mail, archiving and the Add-ons Store: where the profiles differ. */
  const tenant = (overrides: NavContextOverrides = {}) =>
    buildNavContext({
      ...overrides,
      features: { enableAddOnsStore: true, ...overrides.features },
      apps: {
        tools: [
          { name: 'ap_avanan', state: 'enabled' },
          { name: 'archiving', state: 'enabled' },
        ],
        ...overrides.apps,
      },
    });
  const common = ['dashboard', 'security-events', 'mail-explorer', 'user-interaction', 'analytics'];
  /**
   * A plain user has no admin-only page (Mail Explorer is one); of User Interaction they see
   * Quarantined Items, which shows them their own held mail.
   */
  const plain = ['dashboard', 'security-events', 'user-interaction', 'analytics'];

  it('admin', () => {
    expect(topLevel(tenant())).toEqual([
      ...common,
      'archiving',
      'dmarc',
      'policy',
      'configuration',
      'system-settings',
      'add-ons-store',
    ]);
  });

  it('user', () => {
    const ctx = tenant({ user: { role: 'user' } });
    expect(topLevel(ctx)).toEqual([...plain, 'policy', 'configuration', 'system-settings']);
    expect(visibleIds(ctx).has('user-management')).toBe(false);
    expect(visibleIds(ctx).has('license-configuration')).toBe(false);
  });

  it('hidden user (internal support, an admin of the tenant)', () => {
    expect(topLevel(tenant({ user: { role: 'admin', hidden: true } }))).toEqual(topLevel(tenant()));
  });

  it('MSP admin', () => {
    const ctx = tenant({ deployment: { is_msp: true } });
    // Nothing is left to sell: the MSP allows no add-on and archiving is active.
    expect(topLevel(ctx)).toEqual([
      ...common,
      'archiving',
      'dmarc',
      'policy',
      'configuration',
      'system-settings',
    ]);
    expect(visibleIds(ctx).has('license-configuration')).toBe(false);
  });

  it('demo customer (a user of a demo deployment)', () => {
    const ctx = tenant({ user: { role: 'user' }, deployment: { deploymentMode: 'demo' } });
    expect(topLevel(ctx)).toEqual([
      ...plain,
      'archiving',
      'policy',
      'configuration',
      'system-settings',
      'add-ons-store',
    ]);
    expect(visibleIds(ctx).has('user-management')).toBe(true);
    expect(visibleIds(ctx).has('settings')).toBe(true);
  });
});

describe('navTrail', () => {
  it('finds the deepest item whose link matches the path', () => {
    expect(
      navTrail('/configuration/security-exceptions/external/url-reputation').map((item) => item.id),
    ).toEqual(['configuration', 'security-exceptions', 'exceptions-url-reputation']);
  });

  it('keeps the section for a path below it that has no entry of its own', () => {
    expect(navTrail('/analytics/unknown/page').map((item) => item.id)).toEqual(['analytics']);
  });

  it('matches an exact-path child only on its exact path', () => {
    expect(navTrail('/phishing-training').map((item) => item.id)).toEqual([
      'phishing-training',
      'phishing-training-dashboard',
    ]);
    expect(navTrail('/phishing-training/policies').map((item) => item.id)).toEqual([
      'phishing-training',
      'phishing-training-policies',
    ]);
  });

  it('finds nothing outside the navigation', () => {
    expect(navTrail('/trial')).toEqual([]);
  });
});
