import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES } from '@moat/contracts/errors';
import { SHELL_AREAS } from '@moat/contracts/routes';
import { describe, expect, it } from 'vitest';
import enConsole from '../locales/en.json';
import enAreas from '../locales/en-areas.json';
import enPublic from '../locales/en-public.json';
import { errorMessageKey } from './error-messages';
import { CLIENT_ERROR_CODES } from './http';
import { i18n } from './i18n';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..');
const en = { ...enPublic, ...enConsole, ...enAreas };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'test' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function leafKeys(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null ? leafKeys(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

const translationKeys = new Set(leafKeys(en));
/** Plural forms (`key_one`, `key_other`) are one key in the source. */
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;
const hasKey = (key: string) => translationKeys.has(key) || translationKeys.has(`${key}_other`);
const namespaces = Object.keys(en).join('|');
/** t('key'), t("key"), i18nKey="key", and any string literal shaped like a key ('auth.login.title'). */
const keyPatterns = [
  /\bt\(\s*['"`]([^'"`$]+)['"`]/g,
  /i18nKey=["']([^"']+)["']/g,
  new RegExp(`['"\`]((?:${namespaces})\\.[A-Za-z0-9_.]+)['"\`]`, 'g'),
];

/** A quoted property name at the start of a line (`'auth.login': …`, an audit action) is no key. */
const PROPERTY_NAME = /^(\s*)(['"])[^'"\n]+\2(\s*:)/gm;

function keysUsedIn(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(PROPERTY_NAME, '$1$3');
  return keyPatterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1] as string));
}

const usedKeys = new Map<string, string[]>();
for (const file of sourceFiles(SRC)) {
  for (const key of keysUsedIn(file)) {
    usedKeys.set(key, [...(usedKeys.get(key) ?? []), relative(SRC, file)]);
  }
}

describe('translations', () => {
  it('finds the keys the source uses (the scan itself works)', () => {
    expect(usedKeys.size).toBeGreaterThan(80);
    expect(usedKeys.has('auth.login.title')).toBe(true);
  });

  it('has an English text for every key used in the source', () => {
    const missing = [...usedKeys.entries()]
      .filter(([key]) => !hasKey(key))
      .map(([key, files]) => `${key} (${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('has a title for every shell area', () => {
    const missing = SHELL_AREAS.map((area) => `shell.areas.${area.key}`).filter(
      (key) => !translationKeys.has(key),
    );
    expect(missing).toEqual([]);
  });

  it('has a distinct message for every error code', () => {
    const codes = [...ERROR_CODES, ...CLIENT_ERROR_CODES];
    const keys = codes.map(errorMessageKey);
    expect(keys.filter((key) => !translationKeys.has(key))).toEqual([]);
    expect(new Set(keys).size).toBe(codes.length);
  });

  it('uses no key only in en.json', () => {
    // Keys built from a value of a closed list (`t(\`reports.kind.${kind}\`)`), type-checked by TranslationKey.
    const dynamicPrefixes = [
      'shell.areas.',
      'shell.sections.',
      'list.range.',
      'events.detail.historyKind.',
      'reports.kind.',
      'reports.status.',
      'userInteraction.ranges.',
      'userInteraction.attachments.state.',
      'userInteraction.attachments.restore.',
      'alerts.alert_',
      'trace.outcome.',
      'saasAndEngines.apps.',
      'saasAndEngines.tools.',
      'saasAndEngines.states.',
      'systemLogs.actorTypes.',
      'systemTasks.names.',
      'licences.modes.',
      'licences.states.',
      'settings.oidc.microsoft.',
      'settings.oidc.google.',
      'retraction.verdict.',
      'dmarc.intake.outcome.',
      'dmarc.overview.days.',
      'dmarc.explorer.range.',
      'dmarc.recommendations.codes.',
      'dmarc.recommendations.policyWord.',
      'retraction.status.',
      'retraction.connection.tlsMode.',
      'retraction.connection.testFailed.',
    ];
    const unused = [...translationKeys].filter(
      (key) =>
        !usedKeys.has(key.replace(PLURAL_SUFFIX, '')) &&
        !dynamicPrefixes.some((prefix) => key.startsWith(prefix)),
    );
    expect(unused).toEqual([]);
  });

  it('keeps the exact wordings of the specification', () => {
    const exact: Record<string, string> = {
      'emailActions.connectionError': 'Connection error',
      'emailActions.action.missingParams': 'Could not find email message to restore.',
      'emailActions.restoreOriginal.missingParams': "Error: Can't find attachment to restore",
      'emailActions.action.progress': 'Processing your email, this may take a while...',
      'emailActions.restoreOriginal.progress': 'Restoring your attachment(s), this may take a while...',
      'emailActions.restoreOriginal.title': 'Attachment Restore',
      'emailActions.action.title': 'Mail action',
      'emailActions.userVerification': 'User Verification',
      'emailActions.thankYou': 'Thank You',
      'emailActions.identificationNotFound': "Error: Can't check the identification",
      'emailActions.unknownError': 'Error: Unknown error occurred. Please contact support.',
      'emailActions.action.identificationUnparsable': 'Error processing e-mail',
      'emailActions.restoreOriginal.identificationUnparsable': 'Error checking the identification',
      'errors.notFound.checkpointTitle': 'Sorry, the page could not be found',
      'emailActions.emailLabel': 'Enter your email address:',
      'emailActions.codeLabel': 'Enter the verification code that was sent to you',
      'emailActions.resendCode': 'Resend code',
      'emailActions.done': 'Done',
      'emailActions.action.success': 'Requested action performed successfully',
      'emailActions.action.notFound': "Error: Can't find message to process",
      'emailActions.action.verifyUnparsable': 'Error verifying email',
      'emailActions.restoreOriginal.requestLabel':
        'Enter a message to be sent with attachment recover request',
      'emailActions.restoreOriginal.restored': 'Attachment restored successfully!',
      'emailActions.restoreOriginal.requested':
        'The admin has received your request, your attachment will return once approved.',
      'emailActions.restoreOriginal.notFound': "Error: Can't find attachment to restore",
      'emailActions.restoreOriginal.notRestorable':
        'Error: This attachment can not be restored. Please contact support',
      'emailActions.restoreOriginal.invalidEmail': 'Please input a valid email.',
      'emailActions.restoreEmail.invalidEmail': 'Email is not valid',
      'emailActions.restoreEmail.missingParams': 'Could not find email.',
      'emailActions.restoreEmail.identificationUnparsable': 'Error checking the identification',
      'emailActions.submit': 'Submit',
    };
    // SPEC §8 "Restore page" words, inside the page's sentences.
    const containing: Record<string, string> = {
      'emailActions.restoreEmail.notFound': "Can't find message",
      'emailActions.restoreEmail.notRestorable': "message can't be restored",
      'emailActions.restoreEmail.verifyNotFound': "Can't find email",
      'emailActions.restoreEmail.verifyFailed': 'ailed verifying email',
      'emailActions.enterMessage': 'enter a message',
      'emailActions.maxAttempts': 'maximum number of attempts',
    };
    for (const [key, text] of Object.entries(containing)) {
      expect(i18n.t(key as 'app.name'), key).toContain(text);
    }
    for (const [key, text] of Object.entries(exact)) {
      expect(i18n.t(key as 'app.name'), key).toBe(text);
    }
  });
});

/**
 * The files a module pulls in without a dynamic `import()`: its static imports, followed through
 * the source (type-only imports, styles and JSON left out).
 */
function staticallyImported(entries: string[]): Set<string> {
  const found = new Set<string>();
  const IMPORT =
    /^(?:import|export)\s+(?!type\b)[^;]*?\sfrom\s+['"](\.[^'"]+)['"]|^import\s+['"](\.[^'"]+)['"]/gms;
  const resolve = (from: string, spec: string) =>
    ['', '.ts', '.tsx', '/index.ts', '/index.tsx']
      .map((ending) => join(dirname(from), spec) + ending)
      .find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
  const visit = (file: string) => {
    if (found.has(file)) return;
    found.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = (match[1] ?? match[2]) as string;
      if (/\.(css|json)$/.test(spec)) continue;
      const target = resolve(file, spec);
      if (target) visit(target);
    }
  };
  for (const entry of entries) visit(join(SRC, entry));
  return found;
}

describe('translations split per area', () => {
  // What the signed-in dashboard shows first: the console's bundle, the shell, the area frame and
  // the overview (their routes and screen do not wait for `en-areas.json`).
  const FIRST_PAINT = [
    'main.tsx',
    'areas/shell/ShellLayout.tsx',
    'areas/shell/AreaPage.tsx',
    'features/overview/components/OverviewDashboard.tsx',
  ];
  const loadedFirst = new Set(Object.keys({ ...enPublic, ...enConsole }));
  const areaNamespaces = Object.keys(enAreas);
  const areaKey = new RegExp(`['"\`](${areaNamespaces.join('|')})\\.[A-Za-z0-9_.$]`, 'g');

  it('keeps every namespace in one file only', () => {
    expect(areaNamespaces.filter((namespace) => loadedFirst.has(namespace))).toEqual([]);
  });

  it('finds the files of the first paint (the scan itself works)', () => {
    const files = [...staticallyImported(FIRST_PAINT)].map((file) => relative(SRC, file));
    expect(files).toEqual(
      expect.arrayContaining(['app/router.tsx', 'features/navigation/components/SideNav.tsx']),
    );
    expect(files).not.toContain('features/security-events/components/EventsScreen.tsx');
  });

  it('shows the dashboard with the words it has from the start (no area words)', () => {
    const uses = [...staticallyImported(FIRST_PAINT)].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(areaKey)].map(
        (match) => `${match[1]} (${relative(SRC, file)})`,
      ),
    );
    expect(uses).toEqual([]);
  });
});
