import { useEffect } from 'react';
import { usePublicFeatures } from '../api/get-public-features';
import { applyBrandBodyClass, brandBodyClass } from '../brand-class';

/** Loads the public settings and keeps the brand theme class (checkpoint, sonicwall) on <body>. */
export function BrandThemeClass() {
  const { data } = usePublicFeatures();
  const active = data ? brandBodyClass(data) : null;
  useEffect(() => {
    applyBrandBodyClass(document.body, active);
  }, [active]);
  return null;
}
