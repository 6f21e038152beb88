import type { HandlerContext } from "../context/context.js";
import { canSee, type Principal } from "../core/principal.js";
import type { ConnectionAccess } from "../execution/access.js";
import type { ConnectionRecord } from "../store/types.js";
import type { Toolkit } from "../toolkits/define.js";
import { RemoteSession, type SessionLimits } from "./session.js";

/** Sessions kept per handler at most; past it, the least recently used is closed. */
export const MAX_SESSIONS = 500;
/** A session unused this long is closed, in milliseconds. */
export const SESSION_IDLE_MS = 10 * 60_000;
/** How long a connection's tool list is kept, in milliseconds. */
export const TOOL_LIST_TTL_MS = 5 * 60_000;
/** Tools kept of one connection's list at most, and pages of `tools/list` read at most. */
export const MAX_REMOTE_TOOLS = 2000;
export const MAX_LIST_PAGES = 50;

type RemoteToolkit = Toolkit & { remote: NonNullable<Toolkit["remote"]> };

/**
 * The remote MCP sessions of one handler, one per connection (a toolkit without auth has one for
 * every caller): least recently used first, at most `MAX_SESSIONS`, each closed when evicted or
 * idle for `SESSION_IDLE_MS`. A session is never handed to another connection.
 */
export class SessionPool {
  private readonly sessions = new Map<string, RemoteSession>();
  private readonly owners = new Map<RemoteSession, { toolkit: Toolkit; connection: ConnectionRecord | null }>();
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly idleMs = SESSION_IDLE_MS) {}

  /** The session of `connection` to `toolkit`, made if there is none, sending with `access` from now on. */
  session(ctx: HandlerContext, toolkit: RemoteToolkit, connection: ConnectionRecord | null, access: ConnectionAccess): RemoteSession {
    const key = keyOf(toolkit, connection);
    let session = this.sessions.get(key);
    // A registry that hands out a new toolkit object (another URL, other limits) gets a new session.
    if (session && (session.closed || this.owners.get(session)?.toolkit !== toolkit)) {
      this.remove(key, session);
      session = undefined;
    }
    if (session) {
      session.use(connection, access);
      this.sessions.delete(key);
    } else {
      // The session outlives this request: it keeps the handler's store, not the request's.
      session = new RemoteSession({ ...ctx, store: ctx.sharedStore }, toolkit, connection, access, limitsOf(ctx, toolkit));
      this.owners.set(session, { toolkit, connection });
      this.evictPast(MAX_SESSIONS - 1);
    }
    this.owners.get(session)!.connection = connection;
    this.sessions.set(key, session);
    this.startSweeping();
    return session;
  }

  /** The session of `connection` to `toolkit` if one is open, without making one or changing its credential. */
  existing(toolkit: Toolkit, connection: ConnectionRecord | null): RemoteSession | undefined {
    const session = this.sessions.get(keyOf(toolkit, connection));
    return session && !session.closed && this.owners.get(session)?.toolkit === toolkit ? session : undefined;
  }

  /**
   * The tool lists kept for `principal`'s connections to `toolkit`, without asking any server (a
   * search's tool counts): the lists of the sessions whose connection the caller may see.
   */
  knownLists(toolkit: Toolkit, principal: Principal) {
    const lists = [];
    for (const [session, owner] of this.owners) {
      if (owner.toolkit.slug !== toolkit.slug) continue;
      if (owner.connection && !canSee(principal, owner.connection)) continue;
      const list = session.knownTools();
      if (list) lists.push(list);
    }
    return lists;
  }

  /**
   * Closes the session of a connection that was deleted: its upstream session (and the stream it
   * keeps open with the connection's credential) ends now rather than when it goes idle, and its
   * kept tool list is no longer counted.
   */
  closeConnection(connectionId: string): void {
    for (const [key, session] of this.sessions) if (this.owners.get(session)?.connection?.id === connectionId) this.remove(key, session);
  }

  /** Closes every session. */
  closeAll(): void {
    for (const [key, session] of this.sessions) this.remove(key, session);
  }

  private evictPast(max: number): void {
    for (const [key, session] of this.sessions) {
      if (this.sessions.size <= max) break;
      this.remove(key, session);
    }
  }

  private remove(key: string, session: RemoteSession): void {
    if (this.sessions.get(key) === session) this.sessions.delete(key);
    this.owners.delete(session);
    session.close();
  }

  /** Closes idle sessions now and then while any is open; the timer never keeps a process alive. */
  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(
      () => {
        const now = Date.now();
        for (const [key, session] of this.sessions) if (now - session.lastUsed >= this.idleMs) this.remove(key, session);
        if (this.sessions.size === 0) {
          clearInterval(this.sweeper);
          this.sweeper = undefined;
        }
      },
      Math.max(1000, this.idleMs / 2),
    );
    (this.sweeper as { unref?: () => void }).unref?.();
  }
}

function keyOf(toolkit: Toolkit, connection: ConnectionRecord | null): string {
  return `${toolkit.slug}\u0000${connection?.id ?? ""}`;
}

function limitsOf(ctx: HandlerContext, toolkit: Toolkit): SessionLimits {
  return {
    requestMs: toolkit.timeoutMs ?? ctx.timeouts.toolMs,
    listTtlMs: TOOL_LIST_TTL_MS,
    maxTools: MAX_REMOTE_TOOLS,
    maxPages: MAX_LIST_PAGES,
  };
}

// Keyed by the handler's map of refreshes in flight: one object per handler, shared by the
// per-request copies of its context, so that every request of a handler finds its sessions.
const pools = new WeakMap<object, SessionPool>();

/** The session pool of the handler `ctx` belongs to. */
export function sessionPool(ctx: Pick<HandlerContext, "refreshes">): SessionPool {
  let pool = pools.get(ctx.refreshes);
  if (!pool) {
    pool = new SessionPool();
    pools.set(ctx.refreshes, pool);
  }
  return pool;
}
