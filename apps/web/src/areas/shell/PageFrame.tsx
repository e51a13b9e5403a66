import { Anchor, Breadcrumbs, EmptyState, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useTranslation } from '../../lib/i18n';
import { useDocumentTitle } from '../../lib/use-document-title';

export interface Crumb {
  label: string;
  /** Omitted for the current page. */
  to?: string;
}

/** A shell page: breadcrumb trail, title, content. */
export function PageFrame({
  title,
  trail,
  children,
}: {
  title: string;
  trail: Crumb[];
  children: ReactNode;
}) {
  const { t } = useTranslation();
  useDocumentTitle(title);
  return (
    <Stack gap="lg">
      <nav aria-label={t('common.breadcrumb')}>
        <Breadcrumbs separatorMargin="xs">
          {trail.map((crumb, index) =>
            crumb.to ? (
              <Anchor key={crumb.to} component={Link} to={crumb.to} size="sm">
                {crumb.label}
              </Anchor>
            ) : (
              <Text
                key={crumb.label}
                size="sm"
                aria-current={index === trail.length - 1 ? 'page' : undefined}
              >
                {crumb.label}
              </Text>
            ),
          )}
        </Breadcrumbs>
      </nav>
      <Title order={1} className="page-title">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

/** A page of the navigation this edition does not have: said plainly, not an empty frame. */
export function NotInEdition({ subject }: { subject: string }) {
  const { t } = useTranslation();
  return (
    <EmptyState
      title={t('shell.notInEditionTitle', { area: subject })}
      description={t('shell.notInEditionDescription', { area: subject })}
      withIndicatorBackground
    />
  );
}
