/** The part of autocannon 9's programmatic API the benchmark uses (it ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeout?: number;
  }
  interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    /** Seconds. */
    duration: number;
    requests: { total: number; average: number };
  }
  interface Instance extends EventEmitter {
    stop(): void;
  }
  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
