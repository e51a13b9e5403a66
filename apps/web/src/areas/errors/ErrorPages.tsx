import { ROUTES } from '@moat/contracts/routes';
import { KeyedMessagePanel } from '../../components/ui/MessagePanel';

const toLogin = { to: ROUTES.auth.login, labelKey: 'common.goToLogin' } as const;

/** error/401: an invalid or expired access link or token. */
export function UnauthorizedPage() {
  return (
    <KeyedMessagePanel
      titleKey="errors.unauthorized.title"
      descriptionKey="errors.unauthorized.description"
      link={toLogin}
    />
  );
}

/** error/403 (and error/403/…): no permission. */
export function ForbiddenPage() {
  return (
    <KeyedMessagePanel
      titleKey="errors.forbidden.title"
      descriptionKey="errors.forbidden.description"
      link={toLogin}
    />
  );
}

/** error/410: the email to restore no longer exists. */
export function GonePage() {
  return (
    <KeyedMessagePanel titleKey="errors.gone.title" descriptionKey="errors.gone.description" link={toLogin} />
  );
}
