import type { MultipartFrame, UploadProgress } from "./multipart.js";
import type { Transport } from "./transport.js";

/**
 * Sends a Blob upload with XMLHttpRequest, for browsers: their fetch cannot stream a request body
 * over HTTP/1.1 and reports no upload progress, while XMLHttpRequest sends the Blob from disk and
 * reports the bytes written to the network. `onProgress` counts bytes of the file, as the
 * streamed path does. Resolves with the JSON answer, or rejects like `transport.send`.
 */
export function xhrUpload<T>(
  transport: Transport,
  frame: MultipartFrame,
  blob: Blob,
  options: { signal?: AbortSignal; onProgress?: (progress: UploadProgress) => void },
): Promise<T> {
  const { signal, onProgress } = options;
  const url = transport.url("/upload");
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    // Content-Length is the browser's to set, from the Blob.
    for (const [name, value] of transport.headers({ "content-type": frame.contentType })) xhr.setRequestHeader(name, value);
    const size = blob.size;
    let last = -1;
    const report = (sent: number) => {
      const loaded = Math.min(size, Math.max(0, sent - frame.head.byteLength));
      if (loaded <= last) return;
      last = loaded;
      onProgress?.({ loaded, total: size });
    };
    xhr.upload.onprogress = (event) => report(event.loaded);
    xhr.upload.onload = () => report(Number.POSITIVE_INFINITY);
    const abort = () => xhr.abort();
    signal?.addEventListener("abort", abort, { once: true });
    const done = () => signal?.removeEventListener("abort", abort);

    xhr.onload = () => {
      done();
      const response = new Response(xhr.responseText, {
        status: xhr.status,
        statusText: xhr.statusText,
        headers: parseHeaders(xhr.getAllResponseHeaders()),
      });
      transport
        .check(response)
        .then((ok) => transport.readJson<T>(ok))
        .then(resolve, reject);
    };
    xhr.onerror = () => {
      done();
      reject(transport.networkError(new Error("XMLHttpRequest failed"), url, signal));
    };
    xhr.onabort = () => {
      done();
      reject(signal?.reason ?? new DOMException("The upload was aborted.", "AbortError"));
    };
    report(0);
    xhr.send(new Blob([frame.head as BlobPart, blob, frame.tail as BlobPart], { type: frame.contentType }));
  });
}

function parseHeaders(raw: string): Headers {
  const headers = new Headers();
  for (const line of raw.trim().split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}
