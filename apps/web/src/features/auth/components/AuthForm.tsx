import { Button, Stack, Title } from '@mantine/core';
import { type FormEvent, type ReactNode, type RefObject, useId } from 'react';

/**
 * The frame of every sign-in area form: a titled, labelled <form> (browser validation off; the
 * form shows its own messages), the fields, a full-width submit button and what follows it.
 */
export function AuthForm({
  formRef,
  onSubmit,
  title,
  submitLabel,
  pending,
  children,
  footer,
}: {
  formRef: RefObject<HTMLFormElement | null>;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  title: string;
  submitLabel: string;
  pending: boolean;
  children: ReactNode;
  footer?: ReactNode;
}) {
  const titleId = useId();
  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <Stack gap="md">
        <Title order={1} size="h2" id={titleId}>
          {title}
        </Title>
        {children}
        <Button type="submit" loading={pending} fullWidth>
          {submitLabel}
        </Button>
        {footer}
      </Stack>
    </form>
  );
}
