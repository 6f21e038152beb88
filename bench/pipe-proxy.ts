/**
 * The baseline of the proxy benchmarks: the least a credential-injecting reverse proxy does, on
 * `node:http` alone. One keep-alive agent; the caller's headers with `Host` set to the upstream's,
 * the hop-by-hop `Connection` header dropped and `Authorization: Bearer <token>` set; the request
 * body piped up and the answer (status, headers, body) piped back. No policy, no store, no parsing:
 * what `POST /proxy` and the passthrough route are compared to.
 */
import { Agent, createServer, request as httpRequest, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";

export interface PipeProxyOptions {
  /** Origin the proxy forwards to, e.g. `http://127.0.0.1:4000`; the request's path and query are kept. */
  upstream: string;
  /** Sent upstream as `Authorization: Bearer <token>`. */
  token: string;
}

export interface PipeProxy {
  /** Origin of the proxy, e.g. `http://127.0.0.1:4321`. */
  url: string;
  close(): Promise<void>;
}

/** The request listener, for a server started elsewhere (a benchmark child process). */
export function pipeProxyListener(options: PipeProxyOptions): { listener: RequestListener; agent: Agent } {
  const target = new URL(options.upstream);
  const authorization = `Bearer ${options.token}`;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const listener: RequestListener = (req, res) => {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host, authorization };
    delete headers.connection;
    delete headers["keep-alive"];
    const outbound = httpRequest(
      { hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outbound.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(outbound);
  };
  return { listener, agent };
}

/** Starts the pipe proxy on 127.0.0.1, port 0. */
export function startPipeProxy(options: PipeProxyOptions): Promise<PipeProxy> {
  const { listener, agent } = pipeProxyListener(options);
  const server = createServer({ keepAliveTimeout: 60_000 }, listener);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            agent.destroy();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
