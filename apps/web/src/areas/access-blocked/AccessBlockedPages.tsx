import { ROUTES } from '@moat/contracts/routes';
import { KeyedMessagePanel } from '../../components/ui/MessagePanel';

const toLogin = { to: ROUTES.auth.login, labelKey: 'common.goToLogin' } as const;

/** access-blocked/customer-locked: the account is locked (locked_status.should_lock). */
export function CustomerLockedPage() {
  return (
    <KeyedMessagePanel
      titleKey="accessBlocked.customerLocked.title"
      descriptionKey="accessBlocked.customerLocked.description"
      link={toLogin}
    />
  );
}

/** access-blocked/request-sent: an unlock request went out. */
export function RequestSentPage() {
  return (
    <KeyedMessagePanel
      titleKey="accessBlocked.requestSent.title"
      descriptionKey="accessBlocked.requestSent.description"
      link={toLogin}
    />
  );
}
