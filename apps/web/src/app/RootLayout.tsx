import { Outlet, ScrollRestoration } from 'react-router';
import { BrandThemeClass } from '../features/public-settings/components/BrandThemeClass';
import { GlobalErrorRules } from './GlobalErrorRules';

export function RootLayout() {
  return (
    <>
      <BrandThemeClass />
      <ScrollRestoration />
      <Outlet />
      <GlobalErrorRules />
    </>
  );
}
