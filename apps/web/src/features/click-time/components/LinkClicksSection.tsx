import { Stack, Text, Title } from '@mantine/core';
import type { Click } from '@moat/contracts/click-time';
import { useId } from 'react';
import { DateText } from '../../../components/list/ListParts';
import { Breakable } from '../../../components/ui/Breakable';
import { useTranslation } from '../../../lib/i18n';
import { useClicks } from '../api/get-clicks';
import { OutcomeBadge } from './WhoClickedSection';

/** The message trace's links: each link its recipient clicked, with every click on it and what Moat did. */
export function LinkClicksSection({ inboundId, recipient }: { inboundId: string; recipient: string }) {
  const { t } = useTranslation();
  const headingId = useId();
  const query = useClicks({ message: inboundId, recipient, scanners: 'true', limit: 200 } as never);
  const byLink = new Map<string, Click[]>();
  for (const click of query.data?.items ?? [])
    byLink.set(click.url, [...(byLink.get(click.url) ?? []), click]);
  if (!query.data || byLink.size === 0) return null;
  return (
    <section aria-labelledby={headingId}>
      <Title order={2} size="h4" id={headingId} mb="xs">
        {t('clickTime.trace.title')}
      </Title>
      <Stack gap="sm">
        {[...byLink].map(([url, clicks]) => (
          <Stack key={url} gap={4}>
            <Text size="sm" fw={600} className="list-text-anywhere">
              <Breakable text={url} />
            </Text>
            {clicks.map((click) => (
              <Text key={click.id} size="sm" component="div">
                <OutcomeBadge click={click} /> <DateText iso={click.clickedAt} />
              </Text>
            ))}
          </Stack>
        ))}
      </Stack>
    </section>
  );
}
