import { createSocket } from "node:dgram";
import { Resolver } from "node:dns/promises";
import { isIP } from "node:net";

/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP, port 0) that answers A and AAAA questions
 * from a table the test changes at will (RFC 1035 §4.1 message format; AAAA is RFC 3596). A name
 * not in the table is NXDOMAIN; a name with no record of the asked type is an empty NOERROR.
 * `lookup` resolves through it with node's own resolver (`dns.Resolver#setServers`), in the shape
 * of the handler's `lookup` option. `questions` counts the questions asked per name.
 */
export interface TestDnsServer {
  /** name (lowercase, no trailing dot) → its addresses, IPv4 and IPv6 mixed. */
  records: Map<string, string[]>;
  questions: Map<string, number>;
  lookup(hostname: string): Promise<Array<{ address: string; family: number }>>;
  close(): Promise<void>;
}

const A = 1;
const AAAA = 28;

export async function startDnsServer(records: Record<string, string[]> = {}): Promise<TestDnsServer> {
  const socket = createSocket("udp4");
  const table = new Map(Object.entries(records));
  const questions = new Map<string, number>();
  socket.on("message", (message, peer) => {
    const answer = answerOf(message, table, questions);
    if (answer) socket.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const resolver = new Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([`127.0.0.1:${socket.address().port}`]);
  const quiet = (promise: Promise<string[]>) => promise.catch(() => [] as string[]);
  return {
    records: table,
    questions,
    async lookup(hostname) {
      const [v4, v6] = await Promise.all([quiet(resolver.resolve4(hostname)), quiet(resolver.resolve6(hostname))]);
      return [...v4.map((address) => ({ address, family: 4 })), ...v6.map((address) => ({ address, family: 6 }))];
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The response to one query, or null for a message that is not one. */
function answerOf(query: Buffer, table: Map<string, string[]>, questions: Map<string, number>): Buffer | null {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let at = 12;
  while (at < query.length && query[at] !== 0) {
    const length = query[at]!;
    labels.push(query.subarray(at + 1, at + 1 + length).toString("latin1"));
    at += length + 1;
  }
  const questionEnd = at + 5;
  if (questionEnd > query.length) return null;
  const type = query.readUInt16BE(at + 1);
  const name = labels.join(".").toLowerCase();
  questions.set(name, (questions.get(name) ?? 0) + 1);
  const known = table.get(name);
  const wanted = (known ?? []).filter((address) => isIP(address) === (type === AAAA ? 6 : type === A ? 4 : -1));
  const answers = wanted.map((address) => {
    const data = type === A ? Buffer.from(address.split(".").map(Number)) : ipv6Bytes(address);
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(0, 6); // TTL 0: never cached
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the id
  header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100) | (known ? 0 : 3), 2); // QR, AA, RD copied, NXDOMAIN if unknown
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

function ipv6Bytes(address: string): Buffer {
  const [head = "", tail] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of groups.entries()) bytes.writeUInt16BE(parseInt(group, 16), index * 2);
  return bytes;
}
