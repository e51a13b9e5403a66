/** The benchmarks' floor: Fastify 5 with nothing but the routes it is compared on, answering JSON. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/api/v1/current_user', async () => ({ hello: 'world' }));
app.post('/api/v1/:type/identification_needed', async () => ({ status: true }));
// A redirect, as a rewritten link's clean click answers (click-time protection).
app.get('/l/*', async (request, reply) => reply.redirect(request.query.u, 303));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
