/** The console's bundle; `src/boot.ts` loads it (with the entry URL already settled). */
import 'virtual:mantine-styles.css';
import './styles/app.css';
import './styles/public-controls.css';
import './styles/page-loader.css';
import './styles/brand.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { AppProviders } from './app/AppProviders';
import { createAppRouter } from './app/router';
import { i18n } from './lib/i18n';
import { createQueryClient } from './lib/query-client';

document.documentElement.lang = i18n.language;
const queryClient = createQueryClient();
const router = createAppRouter(queryClient);

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  </StrictMode>,
);
