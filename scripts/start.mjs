// npm start: build the web app and the compiled server if either is missing or older than its
// sources (npm install built both already), then run the server (API, SPA) in this process with
// plain `node`. Configuration comes from the environment (see README).
import { ensureBuilt } from './build.mjs';
import { runServer } from './run-server.mjs';

runServer(await ensureBuilt({ skipWeb: Boolean(process.env.WEB_DIST_DIR) }));
