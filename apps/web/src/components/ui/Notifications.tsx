import { Notification } from '@mantine/core';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useTranslation } from '../../lib/i18n';

/** How long a notification stays before it goes by itself. */
export const NOTIFICATION_TIMEOUT_MS = 8_000;
const MAX_SHOWN = 4;

export interface NotificationInput {
  tone: 'success' | 'error';
  title: string;
  message?: string;
}

interface ShownNotification extends NotificationInput {
  id: number;
}

const NotifyContext = createContext<(notification: NotificationInput) => void>(() => {});

/** Shows a short notification (the outcome of an action) in the corner of the page. */
export function useNotify() {
  return useContext(NotifyContext);
}

/**
 * Holds the page's notifications and shows them in a corner stack: successes are announced
 * politely, errors at once; each can be closed and goes by itself after a while.
 */
export function NotificationsProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState<ShownNotification[]>([]);
  const nextId = useRef(0);
  const timers = useRef(new Set<number>());

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending) window.clearTimeout(timer);
    };
  }, []);

  const dismiss = useCallback((id: number) => {
    setShown((current) => current.filter((notification) => notification.id !== id));
  }, []);

  const notify = useCallback(
    (notification: NotificationInput) => {
      nextId.current += 1;
      const id = nextId.current;
      setShown((current) => [...current.slice(-(MAX_SHOWN - 1)), { ...notification, id }]);
      const timer = window.setTimeout(() => {
        timers.current.delete(timer);
        dismiss(id);
      }, NOTIFICATION_TIMEOUT_MS);
      timers.current.add(timer);
    },
    [dismiss],
  );

  return (
    <NotifyContext.Provider value={notify}>
      {children}
      <section className="notifications" aria-label={t('common.notifications')}>
        {shown.map((notification) => (
          <Notification
            key={notification.id}
            role={notification.tone === 'error' ? 'alert' : 'status'}
            color={notification.tone === 'error' ? 'red' : 'green'}
            title={notification.title}
            onClose={() => dismiss(notification.id)}
            closeButtonProps={{ 'aria-label': t('common.close') }}
            withBorder
            classNames={{ description: 'notification-description' }}
          >
            {notification.message}
          </Notification>
        ))}
      </section>
    </NotifyContext.Provider>
  );
}
