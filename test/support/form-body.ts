/**
 * A POST of `form` as multipart bytes already in memory. Node's fetch pumps a FormData body from a
 * detached task that enqueues into the stream even after the reader cancelled it, which surfaces
 * as an unhandled "ReadableStream is already closed" when the handler refuses an upload early.
 * Request bodies from a socket (every real server) do not do that, so tests send bytes.
 */
export async function bufferedFormRequest(url: string, form: FormData, headers: HeadersInit = {}, method = "POST"): Promise<Request> {
  const encoded = new Response(form);
  const all = new Headers(headers);
  all.set("content-type", encoded.headers.get("content-type")!);
  return new Request(url, { method, headers: all, body: new Uint8Array(await encoded.arrayBuffer()) });
}
