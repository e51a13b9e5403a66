import { OutlineIcon } from '../../../components/ui/OutlineIcon';
import type { NavIconName } from '../nav-items';

/** Outline icons (24 × 24, stroke drawn in the current colour), one per icon name of the table. */
const PATHS: Record<NavIconName, string> = {
  dashboard: 'M4 13a8 8 0 0 1 16 0M12 13l4-4M4 19h16',
  events: 'M13 3L4 14h7l-1 7 9-11h-7z',
  mail: 'M3 6h18v12H3zM3 6l9 7 9-7',
  userInteraction: 'M9 7a3 3 0 1 0 0 .01M3 20v-1a6 6 0 0 1 12 0v1M16 4a3 3 0 0 1 0 6M18 14a5 5 0 0 1 3 5v1',
  restore: 'M4 12a8 8 0 1 0 3-6.2M4 4v4h4',
  phishing: 'M12 3v9a4 4 0 1 1-4-4M12 3l4 3',
  quarantine: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6zM9 12h6',
  attachment: 'M15 7l-6.5 6.5a2 2 0 0 0 3 3L18 10a4 4 0 0 0-6-6l-6.5 6.5a6 6 0 0 0 9 9L20 14',
  banner: 'M4 5h16v8H4zM4 17h10M4 20h6',
  analytics: 'M4 20h16M7 16v-5M12 16V7M17 16v-8',
  risk: 'M12 4l9 16H3zM12 10v4M12 17v.01',
  shadowIt: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18M3 12h18M12 3c3 3 3 15 0 18M12 3c-3 3-3 15 0 18',
  query: 'M10 4a6 6 0 1 0 0 12 6 6 0 0 0 0-12M15 15l5 5',
  checkup: 'M9 4h6v3H9zM7 5H5v16h14V5h-2M9 14l2 2 4-4',
  supplyChain: 'M8 12h8M4 9h4v6H4zM16 9h4v6h-4z',
  schedule: 'M4 6h16v14H4zM4 10h16M8 3v4M16 3v4M12 14v3h2',
  report: 'M6 3h9l4 4v14H6zM14 3v5h5M9 13h6M9 17h6',
  training: 'M2 9l10-5 10 5-10 5zM6 11v5c3 2 9 2 12 0v-5M22 9v6',
  policy: 'M6 3h9l4 4v14H6zM14 3v5h5M9 12h6M9 16h4',
  archive: 'M3 4h18v4H3zM5 8v12h14V8M10 12h4',
  search: 'M10 4a6 6 0 1 0 0 12 6 6 0 0 0 0-12M15 15l5 5',
  dmarc: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6zM9 12l2 2 4-4',
  dns: 'M4 5h16v5H4zM4 14h16v5H4zM7 7.5v.01M7 16.5v.01',
  key: 'M8 15a4 4 0 1 0 0-.01M11 12l9-9M17 6l2 2M15 8l2 2',
  cloud: 'M7 18a4 4 0 0 1 0-8 6 6 0 0 1 11 1 3.5 3.5 0 0 1-1 7zM10 14h4',
  settings: 'M4 6h9M17 6h3M4 12h3M11 12h9M4 18h11M19 18h1M15 4v4M9 10v4M17 16v4',
  apps: 'M4 4h6v6H4zM14 4h6v6h-6zM4 14h6v6H4zM14 14h6v6h-6z',
  engine: 'M9 4h6M12 4v3M6 7h12v10H6zM3 10v4M21 10v4M9 11h6M9 14h6',
  dataType: 'M4 7c0-2 16-2 16 0v10c0 2-16 2-16 0zM4 7c0 2 16 2 16 0M4 12c0 2 16 2 16 0',
  exception: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18M6 6l12 12',
  system: 'M4 4h16v6H4zM4 14h16v6H4zM8 7v.01M8 17v.01',
  users: 'M9 7a3 3 0 1 0 0 .01M3 20v-1a6 6 0 0 1 12 0v1M17 10h4M19 8v4',
  palette:
    'M12 3a9 9 0 0 0 0 18c1.5 0 2-1 2-2s-1-2 0-3 2.5 0 4 0a3 3 0 0 0 3-3c0-5.5-4-10-9-10M8 10v.01M12 7v.01M16 10v.01',
  tasks: 'M4 6h2M4 12h2M4 18h2M9 6h11M9 12h11M9 18h11',
  logs: 'M6 3h12v18H6zM9 8h6M9 12h6M9 16h3',
  status: 'M3 12h4l3-7 4 14 3-7h4',
  licence: 'M4 6h16v12H4zM8 10h5M8 14h3M16 13a2 2 0 1 0 0 .01',
  version: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18M12 8v.01M11 12h1v5h1',
  store: 'M4 8h16l-1 12H5zM9 8V6a3 3 0 0 1 6 0v2',
};

/** A navigation icon; decorative, the item's text names it. */
export function NavIcon({ name, size = 20 }: { name: NavIconName; size?: number }) {
  return <OutlineIcon d={PATHS[name]} size={size} />;
}

/** The lock toggle's pin. */
export function PinIcon({ size = 18 }: { size?: number }) {
  return <OutlineIcon d="M9 4h6l-1 6 3 3H7l3-3zM12 13v7" size={size} />;
}
