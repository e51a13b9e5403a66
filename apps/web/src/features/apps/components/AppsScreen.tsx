import {
  Alert,
  Anchor,
  Badge,
  Card,
  Center,
  Group,
  Loader,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Title,
} from '@mantine/core';
import type { AppsResponse, EnvironmentComponents } from '@moat/contracts/console';
import {
  type AppState,
  AVAILABLE_SAAS_APPS,
  AVAILABLE_SECURITY_TOOLS,
  ENGINE_OF_TOOL,
  SAAS_APPS,
  SECURITY_TOOLS,
} from '@moat/contracts/deployment';
import { ANTI_PHISHING_SETTINGS_ROUTE } from '@moat/contracts/routes';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ApiErrorAlert } from '../../../components/ui/ApiErrorAlert';
import { appsQueryOptions } from '../../../lib/console-data/get-apps';
import { environmentComponentsQueryOptions } from '../../../lib/console-data/get-environment-components';
import type { TranslationKey } from '../../../lib/i18n';
import { useTranslation } from '../../../lib/i18n';
import { currentUserQueryOptions } from '../../session/api/get-current-user';
import { useSetApps } from '../api/set-apps';

type Kind = 'apps' | 'tools';

const NAMES: Record<Kind, readonly string[]> = { apps: SAAS_APPS, tools: SECURITY_TOOLS };
const AVAILABLE: Record<Kind, readonly string[]> = {
  apps: AVAILABLE_SAAS_APPS,
  tools: AVAILABLE_SECURITY_TOOLS,
};

const STATE_COLOR: Record<AppState, string> = { enabled: 'green', disabled: 'gray', pending: 'yellow' };

function stateOf(apps: AppsResponse, kind: Kind, name: string): AppState | null {
  return apps[kind].find((entry) => entry.name === name)?.state ?? null;
}

/** One app or engine: what it is, its state and, for an admin, its switch. */
function AppCard({
  kind,
  name,
  state,
  engine,
  canChange,
}: {
  kind: Kind;
  name: string;
  state: AppState | null;
  engine: EnvironmentComponents['engines'][number] | undefined;
  canChange: boolean;
}) {
  const { t } = useTranslation();
  const save = useSetApps();
  const label = t(`saasAndEngines.${kind}.${name}.name` as TranslationKey);
  const on = state === 'enabled';
  const switchId = `app-switch-${name}`;
  return (
    <Card withBorder padding="md" radius="md" component="section" aria-labelledby={`${switchId}-title`}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Title order={2} size="h5" id={`${switchId}-title`}>
            {label}
          </Title>
          <Badge color={STATE_COLOR[state ?? 'disabled']} variant="light" className="quarantine-badge">
            {t(`saasAndEngines.states.${state ?? 'disabled'}`)}
          </Badge>
        </Group>
        <Text size="sm">{t(`saasAndEngines.${kind}.${name}.what` as TranslationKey)}</Text>
        {engine && (
          <Text size="sm" c="dimmed">
            {engine.status === 'on'
              ? t('saasAndEngines.engineRunning', { version: engine.version })
              : t('saasAndEngines.engineOff', { detail: engine.detail ?? '' })}
          </Text>
        )}
        {kind === 'tools' && name === 'ap_avanan' && (
          <Anchor component={Link} to={ANTI_PHISHING_SETTINGS_ROUTE} size="sm">
            {t('saasAndEngines.antiPhishingSettings')}
          </Anchor>
        )}
        {canChange ? (
          <Switch
            id={switchId}
            checked={on}
            disabled={save.isPending}
            label={t('saasAndEngines.switchLabel', { name: label })}
            onChange={(event) =>
              save.mutate({ [kind]: [{ name, state: event.currentTarget.checked ? 'enabled' : 'disabled' }] })
            }
          />
        ) : (
          <Text size="xs" c="dimmed">
            {t('saasAndEngines.adminOnly')}
          </Text>
        )}
        {save.isError && <ApiErrorAlert error={save.error} />}
      </Stack>
    </Card>
  );
}

function AppsPage({ kind }: { kind: Kind }) {
  const { t } = useTranslation();
  const apps = useQuery(appsQueryOptions());
  const components = useQuery({ ...environmentComponentsQueryOptions(), enabled: kind === 'tools' });
  const role = useQuery(currentUserQueryOptions()).data?.role;
  if (apps.isPending) {
    return (
      <Center py="xl">
        <Loader aria-label={t('saasAndEngines.loading')} />
      </Center>
    );
  }
  if (apps.isError) return <ApiErrorAlert error={apps.error} />;
  const available = AVAILABLE[kind];
  const others = NAMES[kind].filter((name) => !available.includes(name));
  const engines = components.data?.engines ?? [];
  return (
    <Stack gap="lg">
      <Text>{t(`saasAndEngines.${kind}.intro`)}</Text>
      <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }}>
        {available.map((name) => (
          <AppCard
            key={name}
            kind={kind}
            name={name}
            state={stateOf(apps.data, kind, name)}
            engine={
              kind === 'tools'
                ? engines.find((e) => e.name === ENGINE_OF_TOOL[name as keyof typeof ENGINE_OF_TOOL])
                : undefined
            }
            canChange={role === 'admin'}
          />
        ))}
      </SimpleGrid>
      <Stack gap="xs" component="section" aria-labelledby={`apps-${kind}-other`}>
        <Title order={2} size="h4" id={`apps-${kind}-other`}>
          {t('saasAndEngines.notInEdition')}
        </Title>
        <Alert variant="light" color="gray">
          <Text size="sm">{t(`saasAndEngines.${kind}.notInEditionText`)}</Text>
          <Text size="sm" mt="xs">
            {others.map((name) => t(`saasAndEngines.${kind}.${name}.name` as TranslationKey)).join(' · ')}
          </Text>
        </Alert>
      </Stack>
    </Stack>
  );
}

/** Configuration → SaaS Applications: the apps Moat protects for the tenant, switched on or off. */
export function SaasAppsScreen() {
  return <AppsPage kind="apps" />;
}

/** Configuration → Security Engines: the gateway's engines, their state on this server, and the tenant's switch. */
export function SecurityEnginesScreen() {
  return <AppsPage kind="tools" />;
}
