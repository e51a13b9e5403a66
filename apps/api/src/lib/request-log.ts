import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * Fastify's own lines about each request: none at the default level (info), one per request at
 * debug (or trace) once it is answered. A request that errored is still logged as an error, and
 * Fastify's other warnings (a stream cut short, a failed write) stay as they are.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    reply.log.debug(
      { req: request, res: { statusCode: reply.statusCode }, responseTime: Math.round(reply.elapsedTime) },
      'request',
    );
  }
}
