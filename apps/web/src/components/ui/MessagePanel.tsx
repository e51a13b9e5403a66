import { Anchor, Paper, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { TranslationKey } from '../../lib/i18n';
import { useTranslation } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

/** A titled panel with a short text, an optional link on and optional further actions. */
export function MessagePanel({
  title,
  description,
  link,
  children,
}: {
  title: string;
  description?: ReactNode;
  link?: { to: string; label: string };
  children?: ReactNode;
}) {
  useDocumentTitle(title);
  return (
    <Paper withBorder p="lg" radius="md">
      <Stack gap="md">
        <Title order={1} size="h2">
          {title}
        </Title>
        {description && <Text>{description}</Text>}
        {children}
        {link && (
          <Anchor component={Link} to={link.to}>
            {link.label}
          </Anchor>
        )}
      </Stack>
    </Paper>
  );
}

/** A MessagePanel whose words all come from translation keys. */
export function KeyedMessagePanel({
  titleKey,
  descriptionKey,
  link,
}: {
  titleKey: TranslationKey;
  descriptionKey: TranslationKey;
  link: { to: string; labelKey: TranslationKey };
}) {
  const { t } = useTranslation();
  return (
    <MessagePanel
      title={t(titleKey)}
      description={t(descriptionKey)}
      link={{ to: link.to, label: t(link.labelKey) }}
    />
  );
}
