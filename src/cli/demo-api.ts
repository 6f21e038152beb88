/**
 * The upstream API of the bundled `demo` toolkit: a tiny notes service that `tools-proxy serve`
 * mounts on its own HTTP server, so the whole flow (connect, execute, proxy) works offline.
 * Notes live in this process's memory and are lost when it stops.
 */

/** Where `serve` mounts the demo API. */
export const DEMO_API_PATH = "/demo-api/v1";
/** The only API key the demo API accepts; the getting-started guide connects the `demo` toolkit with it. */
export const DEMO_API_KEY = "demo-key";
/** The header the demo API reads its key from. */
export const DEMO_KEY_HEADER = "x-demo-key";

/** Most notes kept; the oldest is dropped first, so a long-running server stays small. */
const MAX_NOTES = 1000;
const MAX_NOTE_CHARS = 1000;

interface Note {
  id: string;
  text: string;
  createdAt: string;
}

/**
 * Creates the demo API as a function from `Request` to `Response`, serving under `DEMO_API_PATH`:
 *
 * - `GET /notes` → `200 { notes: Note[] }`, oldest first
 * - `POST /notes` `{ text }` → `201 Note`
 * - `GET /notes/{id}` → `200 Note`, or 404
 *
 * Every request needs the header `x-demo-key: demo-key`; anything else is a 401. Errors are JSON
 * `{ error }`.
 */
export function createDemoApi(): (request: Request) => Promise<Response> {
  const notes: Note[] = [];
  let next = 1;

  return async (request) => {
    const path = new URL(request.url).pathname;
    if (!path.startsWith(`${DEMO_API_PATH}/`)) return reply(404, { error: `The demo API lives under ${DEMO_API_PATH}/.` });
    if (request.headers.get(DEMO_KEY_HEADER) !== DEMO_API_KEY) {
      return reply(401, { error: `Send the header ${DEMO_KEY_HEADER}: ${DEMO_API_KEY}. This demo API accepts no other key.` });
    }
    const route = path.slice(DEMO_API_PATH.length);
    if (route === "/notes" && request.method === "GET") return reply(200, { notes });
    if (route === "/notes" && request.method === "POST") {
      const text = await readText(request);
      if (text === null) return reply(400, { error: `Send a JSON body { "text": "..." } of 1 to ${MAX_NOTE_CHARS} characters.` });
      const note: Note = { id: `note_${next++}`, text, createdAt: new Date().toISOString() };
      notes.push(note);
      if (notes.length > MAX_NOTES) notes.shift();
      return reply(201, note);
    }
    const match = /^\/notes\/([^/]+)$/.exec(route);
    if (match && request.method === "GET") {
      const note = notes.find((n) => n.id === match[1]);
      return note ? reply(200, note) : reply(404, { error: `No note "${match[1]}".` });
    }
    return reply(404, { error: `No demo route ${request.method} ${route}; try GET or POST ${DEMO_API_PATH}/notes.` });
  };
}

/** The `text` field of a JSON body, or null when the body is not such an object. */
async function readText(request: Request): Promise<string | null> {
  try {
    const body = (await request.json()) as { text?: unknown } | null;
    const text = body?.text;
    return typeof text === "string" && text.length > 0 && text.length <= MAX_NOTE_CHARS ? text : null;
  } catch {
    return null;
  }
}

function reply(status: number, body: unknown): Response {
  return Response.json(body, { status });
}
