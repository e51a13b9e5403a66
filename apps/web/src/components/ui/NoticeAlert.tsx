import { Alert } from '@mantine/core';
import type { ReactNode } from 'react';

/** A short message above a form: an error (announced at once) or information (announced politely). */
export function NoticeAlert({ tone, children }: { tone: 'error' | 'info'; children: ReactNode }) {
  return (
    <Alert
      color={tone === 'error' ? 'red' : 'blue'}
      variant="light"
      role={tone === 'error' ? 'alert' : 'status'}
    >
      {children}
    </Alert>
  );
}
