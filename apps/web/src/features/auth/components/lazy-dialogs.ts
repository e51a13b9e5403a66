import { lazy } from 'react';

/**
 * The sign-in dialogs, each in its own chunk: the login page's first load carries none of them
 * (nor the modal code they share) until a sign-in step needs one.
 */
export const MailVerificationDialog = lazy(() =>
  import('./MailVerificationDialog').then((module) => ({ default: module.MailVerificationDialog })),
);
export const RequiredMfaSetupDialog = lazy(() =>
  import('./RequiredMfaSetupDialog').then((module) => ({ default: module.RequiredMfaSetupDialog })),
);
export const LoginReasonDialog = lazy(() =>
  import('./LoginReasonDialog').then((module) => ({ default: module.LoginReasonDialog })),
);
export const TenantApprovalDialog = lazy(() =>
  import('./TenantApprovalDialog').then((module) => ({ default: module.TenantApprovalDialog })),
);
