import { lazy } from 'react';
import { withAreaTexts } from '../../../lib/i18n';

/**
 * The sign-in dialogs, each in its own chunk: the login page's first load carries none of them
 * (nor the modal code they share) until a sign-in step needs one. Each comes with the areas' words.
 */
export const MailVerificationDialog = lazy(() =>
  withAreaTexts(() => import('./MailVerificationDialog')).then((module) => ({
    default: module.MailVerificationDialog,
  })),
);
export const RequiredMfaSetupDialog = lazy(() =>
  withAreaTexts(() => import('./RequiredMfaSetupDialog')).then((module) => ({
    default: module.RequiredMfaSetupDialog,
  })),
);
export const LoginReasonDialog = lazy(() =>
  withAreaTexts(() => import('./LoginReasonDialog')).then((module) => ({
    default: module.LoginReasonDialog,
  })),
);
/** The one-time password's replacement, a sign-in step of its own (the first admin's first sign-in). */
export const PasswordChangeForm = lazy(() =>
  withAreaTexts(() => import('./PasswordChangeForm')).then((module) => ({
    default: module.PasswordChangeForm,
  })),
);
