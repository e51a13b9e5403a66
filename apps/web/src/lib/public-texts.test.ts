import { describe, expect, it } from 'vitest';
import { flowMessageText } from '../features/email-actions/texts';
import { i18n, type TranslationKey } from './i18n';
import { t } from './public-texts';

describe('texts of the public bundle', () => {
  it.each([
    ['emailActions.codeSent', { email: 'ana@acme.test' }],
    ['emailActions.wrongCode', { count: 2 }],
    ['emailActions.resendIn', { seconds: 30 }],
    ['validation.code_length', { length: 6 }],
    ['app.documentTitle', { title: 'Email Restore' }],
    ['emailActions.restoreEmail.title', {}],
    ['auth.login.invalidCredentials', {}],
    ['errors.referenceId', { reqId: 'r-1' }],
  ] as Array<[TranslationKey, Record<string, string | number>]>)(
    '%s reads as in the console',
    (key, values) => {
      expect(t(key, values)).toBe(i18n.t(key, values));
    },
  );

  it('fills in the values', () => {
    expect(t('validation.code_length', { length: 6 })).toBe('Enter the 6-digit code.');
    expect(t('app.documentTitle', { title: 'Email Restore' })).toBe('Email Restore - Moat');
  });

  it('shows an unknown key as itself and a server text as it came', () => {
    expect(t('overview.title' as TranslationKey)).toBe('overview.title');
    expect(flowMessageText({ text: '<b>as sent</b>' })).toBe('<b>as sent</b>');
  });
});
