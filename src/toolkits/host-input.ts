/**
 * Connection inputs of type `host`: a whole host name chosen from a fixed list, where a `*` label
 * stands for exactly one DNS label (`*.my.salesforce.com`). Such an input may fill only an OAuth
 * endpoint whose host is the placeholder itself (`https://{loginHost}/services/oauth2/token`), so
 * a connection picks one of the hosts its toolkit names and never another server.
 */

const LABEL = /^[A-Za-z0-9-]{1,63}$/;

/** The placeholder name when a URL's whole host is one placeholder (`https://{loginHost}/...`), else undefined. */
export function wholeHostPlaceholder(url: string): string | undefined {
  return /^https?:\/\/\{([A-Za-z0-9_]+)\}(?::\d+)?(?:[/?#]|$)/i.exec(url)?.[1];
}

/**
 * What is wrong with a host pattern, as the end of a sentence, or undefined. Each label is a DNS
 * label or `*`, and the last two labels are fixed, so that a `*` never picks the domain itself.
 */
export function hostPatternProblem(pattern: string): string | undefined {
  const labels = pattern.split(".");
  if (labels.length < 2 || !labels.every((label) => label === "*" || LABEL.test(label))) {
    return "must be a host name whose labels are letters, digits and -, or *";
  }
  if (labels.slice(-2).includes("*")) return "must end with two fixed labels (a * may not pick the domain)";
  return undefined;
}

/** Whether `host` (already lower-cased) is one of `patterns`, a `*` matching exactly one DNS label. */
export function matchesHostPattern(host: string, patterns: readonly string[]): boolean {
  const labels = host.split(".");
  if (!labels.every((label) => LABEL.test(label))) return false;
  return patterns.some((pattern) => {
    const expected = pattern.toLowerCase().split(".");
    return expected.length === labels.length && expected.every((label, index) => label === "*" || label === labels[index]);
  });
}
