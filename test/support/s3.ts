/**
 * A local S3-compatible server for the tests: s3rver (an npm dev dependency, so it is always
 * there), in this process for the conformance suite, or as a child process a test may kill.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { freePort, restartable } from "./restartable.js";

/** s3rver accepts any well-formed signature made with these. */
export const S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** A client for this server; `sent` lists the commands it sent, in order. */
  client(): S3Client & { sent: string[] };
  close(): Promise<void>;
}

/** An s3rver in this process with one empty bucket, its data in a temporary directory. */
export async function startS3(bucket = "tools-proxy-test"): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), "tools-proxy-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  return {
    endpoint,
    bucket,
    client() {
      const client = s3Client(endpoint);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An S3 client for a local endpoint that records the name of every command it sends. */
export function s3Client(endpoint: string, options: { maxAttempts?: number } = {}): S3Client & { sent: string[] } {
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
    maxAttempts: options.maxAttempts ?? 3,
  });
  const sent: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: "initialize", name: "recordCommands" },
  );
  return Object.assign(client, { sent });
}

/** An s3rver in a child process on a fixed free port, to kill and start again. */
export interface KillableS3 {
  endpoint: string;
  bucket: string;
  start(): Promise<void>;
  kill(): Promise<void>;
}

export async function killableS3(bucket = "tools-proxy-down"): Promise<KillableS3> {
  const directory = mkdtempSync(join(tmpdir(), "tools-proxy-s3-"));
  const port = await freePort();
  const bin = createRequire(import.meta.url).resolve("s3rver/bin/s3rver.js");
  const endpoint = `http://127.0.0.1:${port}`;
  const server = restartable(
    `s3rver on port ${port}`,
    () =>
      spawn(process.execPath, [bin, "-d", directory, "-a", "127.0.0.1", "-p", String(port), "-s", "--configure-bucket", bucket], {
        stdio: "ignore",
      }),
    () => answers(endpoint),
  );
  await server.start();
  return { endpoint, bucket, start: server.start, kill: server.stop };
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    return (await fetch(endpoint, { signal: AbortSignal.timeout(1000) })).status > 0;
  } catch {
    return false;
  }
}
