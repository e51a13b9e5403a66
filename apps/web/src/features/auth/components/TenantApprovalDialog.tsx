import { InfoDialog } from '../../../components/ui/InfoDialog';
import { useTranslation } from '../../../lib/i18n';

/** A hidden (support) user whose tenant has support access off cannot sign in (SPEC §4 "Maintenance rule"). */
export function TenantApprovalDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <InfoDialog opened={opened} onClose={onClose} title={t('auth.tenantApproval.title')}>
      {t('auth.tenantApproval.text')}
    </InfoDialog>
  );
}
