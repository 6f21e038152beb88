/**
 * A handler whose staged files live in S3, while S3 goes down (an s3rver child process the test
 * kills): every route that needs a file answers 503 `unavailable` with Retry-After, nothing is
 * sent upstream, nothing half-written is left in the bucket, and all works again once S3 is back.
 */
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3BlobStore } from "../../src/blob/s3.js";
import { CREDENTIALS, createHarness, expectError, type Harness, multipart } from "../support/harness.js";
import { type KillableS3, killableS3, S3_CREDENTIALS, s3Client } from "../support/s3.js";

const MIB = 1024 * 1024;
let s3: KillableS3;
let h: Harness;
let key: string;
let staged: string;
const observer = () => s3Client(s3.endpoint, { maxAttempts: 1 });
const blobsInBucket = async () =>
  ((await observer().send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: "tools-proxy/blobs/" }))).Contents ?? []).map((o) =>
    o.Key!.split("/").pop(),
  );

beforeAll(async () => {
  s3 = await killableS3();
  h = await createHarness({
    blobStore: s3BlobStore({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      credentials: S3_CREDENTIALS,
      forcePathStyle: true,
      partSizeBytes: 5 * MIB,
    }),
  });
  key = (await h.issueAgentKey("agent-a")).key;
  await h.connect(key, "notes", { token: CREDENTIALS.bearerToken });
  const upload = await h.call("POST", "/upload", { key, rawBody: multipart("staged before the outage", "text/plain", "before.txt") });
  expect(upload.status, upload.text).toBe(200);
  staged = upload.json.stagingKey;
});
afterAll(async () => {
  h.assertNoLeaks();
  await h.close();
  await s3.kill();
});

describe("S3 down", () => {
  it("answers 503 unavailable with Retry-After on every route that needs a file, and sends nothing upstream", async () => {
    await s3.kill();
    const upstreamBefore = h.upstream.requests.length;
    const upload = await h.call("POST", "/upload", { key, rawBody: multipart("during the outage", "text/plain", "during.txt") });
    expectError(upload, 503, "unavailable", /retry/i);
    expect(Number(upload.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    const file = await h.call("GET", `/files/${staged}`, { key });
    expectError(file, 503, "unavailable");
    expect(file.headers.get("retry-after")).toBeTruthy();

    const proxied = await h.call("POST", "/proxy", {
      key,
      body: { toolkit: "notes", method: "POST", url: `${h.origins.upstream}/echo`, bodyFile: staged },
    });
    expectError(proxied, 503, "unavailable");

    const executed = await h.call("POST", "/execute", { key, body: { tool: "CALC_READ_FILE", arguments: { file: staged } } });
    expectError(executed, 503, "unavailable");

    expect(h.upstream.requests.length).toBe(upstreamBefore);
    expect(h.logs.filter((l) => l.level === "error")).toEqual([]);
  });

  it("is back once S3 is: the file staged before is whole, and the refused upload left nothing", async () => {
    await s3.start();
    const file = await h.call("GET", `/files/${staged}`, { key });
    expect(file.status).toBe(200);
    expect(file.text).toBe("staged before the outage");
    expect(await blobsInBucket()).toEqual([staged]);
  });

  it("S3 stopping in the middle of a multipart upload: 503, and no object is left", async () => {
    // A second handler on the same bucket, whose client shows what it sent.
    const client = s3Client(s3.endpoint);
    const h2 = await createHarness({ blobStore: s3BlobStore({ bucket: s3.bucket, client, partSizeBytes: 5 * MIB }) });
    const key2 = (await h2.issueAgentKey("agent-b")).key;
    const body = new Uint8Array(await new Response(multipart(new Uint8Array(12 * MIB).fill(65), "text/plain", "big.txt")).arrayBuffer());
    const boundary = new TextDecoder().decode(body.subarray(2, 80)).split("\r\n")[0];
    let sent = 0;
    let gate: () => void = () => {};
    const halfway = new Promise<void>((resolve) => (gate = resolve));
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent >= body.byteLength) return controller.close();
        if (sent >= 7 * MIB) await halfway;
        const next = body.subarray(sent, sent + 256 * 1024);
        sent += next.byteLength;
        controller.enqueue(next);
      },
    });
    const request = new Request(`http://tools.test${h2.basePath}/upload`, {
      method: "POST",
      headers: { "x-api-key": key2, "content-type": `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const answering = h2.send(request);
    // The first part is in S3; then S3 stops before the rest of the body arrives.
    await expect.poll(() => client.sent.includes("UploadPartCommand") && sent >= 7 * MIB, { timeout: 10_000 }).toBe(true);
    await s3.kill();
    gate();
    const res = await answering;
    expectError(res, 503, "unavailable");
    expect(client.sent).toContain("CreateMultipartUploadCommand");
    expect(client.sent).not.toContain("CompleteMultipartUploadCommand");
    await s3.start();
    expect(await blobsInBucket()).toEqual([staged]);
    h2.assertNoLeaks();
    await h2.close();
    client.destroy();
  });
});
