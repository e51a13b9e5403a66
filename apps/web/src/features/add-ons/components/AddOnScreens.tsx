import {
  Alert,
  Anchor,
  Badge,
  Button,
  Center,
  Group,
  List,
  Loader,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { ADD_ON_IDS, ADD_ON_MESSAGE_MAX, type AddOn, type AddOnId } from '@moat/contracts/add-ons';
import { ADD_ON_ROUTES, ROUTES } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { StatusNotice } from '../../../components/ui/StatusNotice';
import { draftWordingProblem, WordingField } from '../../../components/ui/WordingField';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { useActivateAddOn, useAddOns, useRequestAddOn } from '../api/add-ons';

/** Each add-on's words: its name, what it does, what it brings. */
const WORDS: Record<AddOnId, { name: TranslationKey; what: TranslationKey; points: TranslationKey[] }> = {
  dmarc: {
    name: 'addOns.dmarc.name',
    what: 'addOns.dmarc.what',
    points: ['addOns.dmarc.point1', 'addOns.dmarc.point2', 'addOns.dmarc.point3'],
  },
  iraas: {
    name: 'addOns.iraas.name',
    what: 'addOns.iraas.what',
    points: ['addOns.iraas.point1', 'addOns.iraas.point2', 'addOns.iraas.point3'],
  },
  sspm: {
    name: 'addOns.sspm.name',
    what: 'addOns.sspm.what',
    points: ['addOns.sspm.point1', 'addOns.sspm.point2', 'addOns.sspm.point3'],
  },
  archiving: {
    name: 'addOns.archiving.name',
    what: 'addOns.archiving.what',
    points: ['addOns.archiving.point1', 'addOns.archiving.point2', 'addOns.archiving.point3'],
  },
  phishing_training: {
    name: 'addOns.phishing_training.name',
    what: 'addOns.phishing_training.what',
    points: [
      'addOns.phishing_training.point1',
      'addOns.phishing_training.point2',
      'addOns.phishing_training.point3',
    ],
  },
};

/** Where an add-on that is on starts, for those that have screens of their own. */
const START_OF: Partial<Record<AddOnId, { to: string; label: TranslationKey }>> = {
  dmarc: { to: `${ROUTES.dmarc}/overview`, label: 'addOns.dmarc.open' },
};

/** The add-on whose page `pathname` is. */
export function addOnOfPath(pathname: string): AddOnId | null {
  const path = pathname.replace(/\/+$/, '');
  return ADD_ON_IDS.find((id) => ADD_ON_ROUTES[id] === path) ?? null;
}

/** Where an add-on stands for the tenant, in a badge. */
function StatusBadge({ addOn }: { addOn: AddOn }) {
  const { t } = useTranslation();
  if (addOn.active)
    return (
      <Badge color="green" variant="light" className="quarantine-badge">
        {t('addOns.status.active')}
      </Badge>
    );
  if (addOn.in_edition)
    return (
      <Badge color="blue" variant="light" className="quarantine-badge">
        {t('addOns.status.available')}
      </Badge>
    );
  return (
    <Badge color="gray" variant="light" className="quarantine-badge">
      {t('addOns.status.notInEdition')}
    </Badge>
  );
}

function useAddOnsData() {
  const list = useAddOns();
  const isAdmin = useQuery(currentUserQueryOptions()).data?.role === 'admin';
  return { list, isAdmin };
}

/**
 * One add-on's page: what it does, whether it is on for the organisation, and the way to get it:
 * turned on here when this edition ships its module, else a request to the provider (stored and
 * emailed, at most once a day). Only admins act; a demo deployment's users look.
 */
export function AddOnScreen() {
  const { t, i18n } = useTranslation();
  const { pathname } = useLocation();
  const id = addOnOfPath(pathname);
  const { list, isAdmin } = useAddOnsData();
  const activate = useActivateAddOn();
  const request = useRequestAddOn();
  const [note, setNote] = useState('');
  if (!id) return null;
  if (list.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={t('addOns.loading')} />
      </Center>
    );
  }
  if (list.isError) return <ApiErrorAlert error={list.error} />;
  const addOn = list.data.items.find((a) => a.id === id)!;
  const words = WORDS[id];
  const name = t(words.name);
  const noteProblem = draftWordingProblem(note, ADD_ON_MESSAGE_MAX) !== null;
  const when = (iso: string) =>
    new Date(iso).toLocaleString(i18n.language, { dateStyle: 'long', timeStyle: 'short' });

  return (
    <Stack gap="md">
      <Group gap="sm">
        <StatusBadge addOn={addOn} />
      </Group>
      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="add-on-what">
        <Stack gap="sm">
          <Title order={2} size="h4" id="add-on-what">
            {t('addOns.whatTitle')}
          </Title>
          <Text size="sm">{t(words.what)}</Text>
          <List size="sm" spacing={4}>
            {words.points.map((point) => (
              <List.Item key={point}>{t(point)}</List.Item>
            ))}
          </List>
        </Stack>
      </Paper>
      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="add-on-get">
        <Stack gap="sm">
          <Title order={2} size="h4" id="add-on-get">
            {t(addOn.active ? 'addOns.activeTitle' : 'addOns.getTitle')}
          </Title>
          {addOn.active && <Text size="sm">{t('addOns.isActive', { name })}</Text>}
          {addOn.active && START_OF[id] && (
            <Group>
              <Button component={Link} to={START_OF[id]!.to} variant="light">
                {t(START_OF[id]!.label)}
              </Button>
            </Group>
          )}
          {!addOn.active && addOn.in_edition && (
            <>
              <Text size="sm">{t('addOns.inEdition', { name })}</Text>
              {isAdmin && (
                <Group>
                  <Button onClick={() => activate.mutate(id)} loading={activate.isPending}>
                    {t('addOns.activate', { name })}
                  </Button>
                </Group>
              )}
              {activate.isError && <ApiErrorAlert error={activate.error} showServerMessage />}
            </>
          )}
          {!addOn.in_edition && (
            <>
              <Text size="sm">
                {t(id === 'iraas' ? 'addOns.serviceNotInEdition' : 'addOns.notInEdition', { name })}
              </Text>
              {addOn.last_request && (
                <Alert color="blue" variant="light">
                  {t('addOns.requested', { date: when(addOn.last_request.at), by: addOn.last_request.by })}
                </Alert>
              )}
              {isAdmin ? (
                <>
                  <WordingField
                    multiline
                    label={t('addOns.note')}
                    description={t('addOns.noteHint', { max: ADD_ON_MESSAGE_MAX })}
                    max={ADD_ON_MESSAGE_MAX}
                    value={note}
                    onChange={setNote}
                  />
                  <Group>
                    <Button
                      onClick={() =>
                        request.mutate({ id, message: note.trim() }, { onSuccess: () => setNote('') })
                      }
                      loading={request.isPending}
                      disabled={noteProblem}
                    >
                      {t('addOns.request')}
                    </Button>
                  </Group>
                </>
              ) : (
                <Text size="sm" c="dimmed">
                  {t('addOns.adminsOnly')}
                </Text>
              )}
              <StatusNotice
                message={
                  request.isSuccess &&
                  t(list.data.provider_reachable ? 'addOns.requestSent' : 'addOns.requestRecorded')
                }
              />
              {request.isError && <ApiErrorAlert error={request.error} showServerMessage />}
            </>
          )}
        </Stack>
      </Paper>
      <Text size="sm">
        <Anchor component={Link} to={ADD_ON_ROUTES.store} size="sm">
          {t('addOns.allAddOns')}
        </Anchor>
      </Text>
    </Stack>
  );
}

/** The Add-ons Store itself: every add-on in a card with its state, each leading to its page. */
export function AddOnsStoreScreen() {
  const { t } = useTranslation();
  const { list } = useAddOnsData();
  if (list.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={t('addOns.loading')} />
      </Center>
    );
  }
  if (list.isError) return <ApiErrorAlert error={list.error} />;
  return (
    <Stack gap="md">
      <Text size="sm">{t('addOns.intro')}</Text>
      <SimpleGrid cols={{ base: 1, sm: 2, xl: 3 }}>
        {list.data.items.map((addOn) => (
          <Paper
            key={addOn.id}
            withBorder
            p="md"
            radius="md"
            component="section"
            aria-labelledby={`add-on-${addOn.id}`}
          >
            <Stack gap="xs">
              <Group justify="space-between" wrap="wrap" gap="xs">
                <Title order={2} size="h4" id={`add-on-${addOn.id}`}>
                  <Anchor component={Link} to={ADD_ON_ROUTES[addOn.id]} inherit>
                    {t(WORDS[addOn.id].name)}
                  </Anchor>
                </Title>
                <StatusBadge addOn={addOn} />
              </Group>
              <Text size="sm">{t(WORDS[addOn.id].what)}</Text>
            </Stack>
          </Paper>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
