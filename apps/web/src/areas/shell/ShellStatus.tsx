import type { CurrentUser } from '@moat/contracts/current-user';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { lazyDialog } from '../../components/ui/lazy-dialog';
import { Banners } from '../../features/banners/components/Banners';
import { LicenceBanner } from '../../features/licence/components/LicenceBanner';
import { LicenceNavbarLabel } from '../../features/licence/components/NavbarLabel';
import { useParentPortal } from '../../features/parent-portal/use-parent-portal';
import { useVersionCheck } from '../../features/version-check/use-version-check';
import { deploymentQueryOptions } from '../../lib/console-data/get-deployment';
import { learningModeQueryOptions } from '../../lib/console-data/get-learning-mode';
import { uiFeaturesQueryOptions } from '../../lib/console-data/get-ui-features';
import { configureRequestModes } from '../../lib/http';
import { reloadDocument } from '../../lib/return-url';

const NewVersionDialog = lazyDialog(() =>
  import('../../features/version-check/components/NewVersionDialog').then((m) => m.NewVersionDialog),
);

/**
 * The shell's state layer (SPEC §4 "Licence banner", "Banners", "Version check", "Parent portal
 * message", "No-RDS mode", "New web API mode"): rendered once by ShellLayout above the page outlet.
 */
export function ShellStatus({ user }: { user: CurrentUser }) {
  const features = useQuery(uiFeaturesQueryOptions()).data;
  const deployment = useQuery(deploymentQueryOptions()).data;
  const learningOn = features?.enableLearningMode === true;
  const learning = useQuery({ ...learningModeQueryOptions(), enabled: learningOn }).data;
  const newVersion = useVersionCheck();
  useParentPortal();

  const noRds = features?.enableUINoRDS === true;
  const newWebApi = features?.enableNewWebAPI === true;
  useEffect(() => {
    configureRequestModes({ noRds, newWebApi });
    return () => configureRequestModes();
  }, [noRds, newWebApi]);

  return (
    <>
      {features && deployment && <LicenceBanner deployment={deployment} features={features} user={user} />}
      {deployment && (
        <Banners
          userId={user.id}
          supportEmail={deployment.support_email}
          learning={learningOn && learning ? learning : null}
        />
      )}
      <NewVersionDialog opened={newVersion} onReload={reloadDocument} />
    </>
  );
}

/** SPEC §4 "Navbar label": rendered by ShellLayout under the logo of the side menu. */
export function NavbarLabel({ user }: { user: CurrentUser }) {
  const features = useQuery(uiFeaturesQueryOptions()).data;
  const deployment = useQuery(deploymentQueryOptions()).data;
  if (!features || !deployment) return null;
  return <LicenceNavbarLabel deployment={deployment} features={features} user={user} />;
}
