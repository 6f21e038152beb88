/**
 * Which toolkits the catalog made (`catalogToolkit`, so also a file's `{ "provider": ... }`
 * entry), so that `serve --catalog` can tell a file's configuration of a catalog provider from
 * another toolkit that only has its slug.
 */
const made = new WeakSet<object>();

/** Notes that the catalog made `toolkit`; returns it. */
export function markCatalogMade<T extends object>(toolkit: T): T {
  made.add(toolkit);
  return toolkit;
}

/** Whether the catalog made `toolkit`. */
export function isCatalogMade(toolkit: object): boolean {
  return made.has(toolkit);
}
