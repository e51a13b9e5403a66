// A worker thread starts without the server's TypeScript loader: register it (tsx), then run the
// authentication worker. The compiled server runs its own build of it instead.
import { register } from 'tsx/esm/api';

register();
await import('./auth.worker.ts');
