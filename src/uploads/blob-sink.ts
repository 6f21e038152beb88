import type { BlobInfo } from "../blob/types.js";
import type { HandlerContext } from "../context/context.js";
import type { UploadTarget } from "./multipart.js";

/** Bytes buffered between the request and a slower blob store before reading pauses. */
const QUEUE_BYTES = 1024 * 1024;

/** The write end of one upload: a stream that `blobStore.put` reads, fed chunk by chunk. */
export interface BlobSink {
  /** The store cancelled the stream or its put settled before the end of the file. */
  readonly stopped: boolean;
  /** Resolves once the put has settled, either way. */
  settled(): Promise<void>;
  /** Whether the store wants more bytes now. */
  ready(): boolean;
  /** Resolves when the store reads, gives up, or the put settles. */
  drained(): Promise<void>;
  enqueue(chunk: Uint8Array): void;
  /** Ends the stream and waits for the blob to be stored. */
  close(): Promise<BlobInfo>;
  /** Errors the stream and aborts the put; waits until the store has cleaned up. */
  abort(reason: unknown): Promise<void>;
}

/**
 * Starts `ctx.blobStore.put(target.key, ...)` on a stream that the caller feeds with `enqueue`,
 * with byte-counted backpressure: `ready()` is false while `QUEUE_BYTES` wait for the store. The
 * put's failure is reported to `fail` as soon as it happens.
 */
export function openSink(
  ctx: HandlerContext,
  target: UploadTarget,
  contentType: string,
  filename: string | null,
  fail: (error: unknown) => void,
): BlobSink {
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    wake?.();
    wake = null;
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      pull: wakeUp,
      cancel: () => {
        cancelled = true;
        wakeUp();
      },
    },
    { highWaterMark: QUEUE_BYTES, size: (chunk) => chunk.byteLength },
  );
  const abortController = new AbortController();
  let putSettled = false;
  const result = Promise.resolve().then(() =>
    ctx.blobStore.put(target.key, body, {
      contentType,
      filename,
      metadata: target.metadata,
      expiresAt: target.expiresAt,
      signal: abortController.signal,
    }),
  );
  result.then(
    () => {},
    (error: unknown) => fail(error),
  );
  void result
    .finally(() => {
      putSettled = true;
      wakeUp();
    })
    .catch(() => {});

  return {
    get stopped() {
      return putSettled || cancelled;
    },
    settled: () =>
      result.then(
        () => {},
        () => {},
      ),
    ready: () => cancelled || (controller.desiredSize ?? 0) > 0,
    drained: () => (putSettled || cancelled ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve))),
    enqueue(chunk) {
      if (!cancelled) controller.enqueue(chunk);
    },
    async close() {
      if (cancelled) throw new Error("The blob store stopped reading the upload.");
      controller.close();
      return result;
    },
    async abort(reason) {
      controller.error(reason);
      abortController.abort(reason);
      // A store that resolved anyway (against its contract) must not keep a refused upload.
      if (
        await result.then(
          () => true,
          () => false,
        )
      )
        await ctx.blobStore.delete(target.key);
    },
  };
}
