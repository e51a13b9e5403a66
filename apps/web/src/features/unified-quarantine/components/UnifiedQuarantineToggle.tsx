import { Switch } from '@mantine/core';
import type { DeploymentConfig } from '@moat/contracts/console';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNotify } from '../../../components/ui/Notifications';
import { setUnifiedQuarantine } from '../../../lib/console-data/set-unified-quarantine';
import { useTranslation } from '../../../lib/i18n';
import { queryKeys } from '../../../lib/query-keys';

/**
 * The top bar's Microsoft unified quarantine toggle (SPEC §2.4): on the dashboards, for a tenant
 * with the flag and the Microsoft 365 mail app. Admins change it; others see its state.
 */
export function UnifiedQuarantineToggle({
  deployment,
  canChange,
}: {
  deployment: DeploymentConfig;
  canChange: boolean;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const notify = useNotify();
  const save = useMutation({
    mutationFn: setUnifiedQuarantine,
    onSuccess: (updated) => queryClient.setQueryData(queryKeys.console.deployment(), updated),
    onError: () => notify({ tone: 'error', title: t('unifiedQuarantine.saveFailed') }),
  });
  const on = save.isPending ? save.variables : !deployment.unifiedQuarantineManuallyDisabled;
  return (
    <Switch
      size="sm"
      label={t('unifiedQuarantine.label')}
      checked={on}
      disabled={!canChange || save.isPending}
      onChange={(event) => save.mutate(event.currentTarget.checked)}
      styles={{ label: { whiteSpace: 'nowrap' } }}
    />
  );
}
