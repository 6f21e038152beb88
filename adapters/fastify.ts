import type { FastifyPluginCallback } from "fastify";
import { type FetchHandler, nodeBridge } from "./serve-node.js";

/**
 * A Fastify plugin serving the handler at the prefix it is registered with, which must be the
 * handler's basePath: `app.register(toFastifyPlugin(tools), { prefix: "/proxy/tools" })`. The
 * app's hooks run as for any route. Its body parsers do not: inside the plugin (an encapsulated
 * context, so the app's own routes keep theirs) no parser reads a body, and the handler gets the
 * request as Node received it, its URL as sent and its body streaming, and writes the response
 * itself, streamed (the reply is hijacked, so Fastify's onSend hooks and serializers skip it).
 */
export function toFastifyPlugin(tools: FetchHandler): FastifyPluginCallback {
  const serve = nodeBridge(tools);
  return (fastify, _options, done) => {
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser("*", (_request, _body, parsed) => parsed(null));
    fastify.all("/*", (request, reply) => {
      reply.hijack();
      serve(request.raw, reply.raw, request.originalUrl);
    });
    done();
  };
}
