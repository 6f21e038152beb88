/**
 * The input kinds (`src/toolkits/inputs.ts`): each kind's rule for a value, in words; what a
 * toolkit may declare (refused with a TypeError naming the input); where each kind may go (text
 * never in a URL, an enum's values fit every URL they fill); inputs the provider fills; defaults.
 */
import { describe, expect, it } from "vitest";
import { type AuthScheme, apiKey, bearer, oauth2 } from "../../src/credentials/auth-schemes.js";
import { defineToolkit } from "../../src/toolkits/define.js";
import {
  assertInput,
  assertInputPlaces,
  type ConnectionInput,
  describeRule,
  filledNames,
  inputType,
  inputValueFits,
  inputValueProblem,
  isFilled,
  isOptional,
  placeholdersOf,
  withInputDefaults,
} from "../../src/toolkits/inputs.js";

const region: ConnectionInput = { name: "region", label: "Region", type: "enum", values: ["us", "eu"], default: "us" };
const note: ConnectionInput = { name: "note", label: "Note", type: "text", maxLength: 10 };
const refusal = (run: () => void) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error("expected a TypeError");
};

describe("a value's rule, by kind", () => {
  it("label: one DNS label, then the pattern", () => {
    const shop: ConnectionInput = { name: "shop", label: "Shop", pattern: "^[a-z]+$" };
    expect(inputValueProblem(shop, "acme")).toBeNull();
    expect(inputValueProblem(shop, "a".repeat(63))).toBeNull();
    expect(inputValueProblem({ name: "s", label: "S" }, "Ab-9")).toBeNull();
    for (const bad of ["a.b", "a b", "", "a".repeat(64), "a/b"])
      expect(inputValueProblem({ name: "s", label: "S" }, bad), bad).toBe(
        "must be one DNS label: letters, digits and -, at most 63 characters",
      );
    expect(inputValueProblem(shop, "ACME")).toBe("must be one DNS label: letters, digits and -, at most 63 characters, matching ^[a-z]+$");
  });

  it("enum: exactly one of its values, listed when refused", () => {
    expect(inputValueProblem(region, "eu")).toBeNull();
    expect(inputValueProblem(region, "EU")).toBe("must be one of: us, eu (default us)");
    expect(inputValueProblem(region, "")).toBe("must be one of: us, eu (default us)");
    expect(inputValueProblem({ name: "e", label: "E", type: "enum" }, "x")).toBe("must be one of: ");
  });

  it("text: 1 to maxLength characters on one line, no surrounding whitespace, a header value where it fills a header", () => {
    expect(inputValueProblem(note, "ten chars!")).toBeNull();
    expect(inputValueProblem(note, "Grüße 東京")).toBeNull();
    expect(inputValueProblem(note, "eleven char")).toBe("must be text on one line, 1 to 10 characters");
    expect(inputValueProblem(note, "")).toBe("must be text on one line, 1 to 10 characters");
    // Counted in characters, not UTF-16 units: ten emoji fit.
    expect(inputValueProblem(note, "😀".repeat(10))).toBeNull();
    for (const control of ["a\nb", "a\rb", "a\u0000", "a\u007f", "a\u0085b", "a\u2028b", "a\u2029b", "\tab", "a\u009f"])
      expect(inputValueProblem(note, control), JSON.stringify(control)).toBe(
        "must be text on one line: it contains a line break or a control character",
      );
    expect(inputValueProblem(note, " a")).toBe("must be text on one line: it starts or ends with whitespace");
    expect(inputValueProblem(note, "a ")).toBe("must be text on one line: it starts or ends with whitespace");
    expect(inputValueProblem(note, "Grüße", { inHeader: true })).toBeNull();
    expect(inputValueProblem(note, "東京", { inHeader: true })).toBe(
      "must be text on one line: it goes in an HTTP header, which cannot carry a character beyond Latin-1",
    );
    expect(inputValueProblem({ name: "t", label: "T", type: "text" }, "x".repeat(256))).toBeNull();
    expect(inputValueProblem({ name: "t", label: "T", type: "text" }, "x".repeat(257))).toBe(
      "must be text on one line, 1 to 256 characters",
    );
    expect(inputValueProblem({ name: "t", label: "T", type: "text", pattern: "^[A-Z]" }, "abc")).toBe(
      "must be text on one line, matching ^[A-Z]",
    );
  });

  it("host: one of its hosts, letter case aside", () => {
    const host: ConnectionInput = { name: "h", label: "H", type: "host", hosts: ["login.example.com", "*.my.example.com"] };
    expect(inputValueProblem(host, "LOGIN.example.com")).toBeNull();
    expect(inputValueProblem(host, "acme.my.example.com")).toBeNull();
    expect(inputValueProblem(host, "evil.test")).toBe(
      "must be one of these hosts, * being one DNS label: login.example.com, *.my.example.com",
    );
  });

  it("origin: https://host[:port] and nothing more", () => {
    const origin: ConnectionInput = { name: "o", label: "O", type: "origin" };
    expect(inputValueProblem(origin, "https://gitlab.example.com")).toBeNull();
    expect(inputValueProblem(origin, "https://gitlab.example.com:8443/")).toBeNull();
    // The origin policy's own sentence says what is wrong (src/outbound/origin-policy.ts).
    const form = "must be an origin https://host[:port], e.g. https://git.example.com";
    for (const [bad, why] of [
      ["http://gitlab.example.com", " (https only)"],
      ["https://gitlab.example.com/x", ", with no path, query or fragment"],
      ["https://u:p@gitlab.example.com", ", with no user name or password"],
      ["gitlab", ", beginning with https://"],
      ["https://a.test?x", ", with no path, query or fragment"],
    ])
      expect(inputValueProblem(origin, bad!), bad).toBe(`${form}${why}`);
    // Under allowPrivateNetworks, http is allowed.
    expect(inputValueProblem(origin, "http://gitlab.example.com", { allowPrivateNetworks: true })).toBeNull();
  });

  it("inputValueFits says the same as inputValueProblem", () => {
    expect(inputValueFits(region, "us")).toBe(true);
    expect(inputValueFits(region, "mars")).toBe(false);
  });
});

describe("words and small rules", () => {
  it("describeRule names each kind's rule, its example and its default", () => {
    expect(describeRule(undefined)).toBe("one DNS label: letters, digits and -, at most 63 characters");
    expect(describeRule({ name: "s", label: "S", pattern: "^a", example: "ab", default: "ab" })).toBe(
      'one DNS label: letters, digits and -, at most 63 characters, matching ^a, e.g. "ab" (default ab)',
    );
    expect(describeRule({ ...note, example: "hi" })).toBe('text on one line, e.g. "hi"');
    expect(describeRule({ name: "o", label: "O", type: "origin", example: "https://x.test" })).toBe(
      'the server\'s origin, https://host[:port] with no path, e.g. "https://x.test"',
    );
    expect(describeRule({ name: "h", label: "H", type: "host", hosts: ["a.b.c"], default: "a.b.c" })).toBe(
      "one of these hosts, * being one DNS label: a.b.c (default a.b.c)",
    );
  });

  it("inputType defaults to label; isOptional is optional or a default", () => {
    expect(inputType({})).toBe("label");
    expect(inputType({ type: "text" })).toBe("text");
    expect(isOptional({})).toBe(false);
    expect(isOptional({ optional: false })).toBe(false);
    expect(isOptional({ optional: true })).toBe(true);
    expect(isOptional({ default: "" })).toBe(true);
  });

  it("placeholdersOf lists a template's names", () => {
    expect(placeholdersOf("https://{a}.x.test/{b_2}/c")).toEqual(["a", "b_2"]);
    expect(placeholdersOf("https://x.test/{}")).toEqual([]);
  });

  it("withInputDefaults adds each missing default, never over a value, and keeps the same object when nothing is missing", () => {
    const config = { region: "eu" };
    expect(withInputDefaults([region], config)).toBe(config);
    expect(withInputDefaults([region, note], {})).toStrictEqual({ region: "us" });
    expect(withInputDefaults([region], { other: "x" })).toStrictEqual({ region: "us", other: "x" });
  });
});

describe("inputs the provider fills", () => {
  const oauth = oauth2({
    authorizationUrl: "https://a.test/authorize",
    tokenUrl: "https://a.test/token",
    clientId: "c",
    tokenConfig: { team: "team.id" },
    callbackConfig: { realm: "realmId" },
    identify: [
      { url: "/me", config: { account: "id" } },
      { url: "/org", config: { team: "x" } },
    ],
  });
  const key = apiKey({ in: "header", name: "k", identify: { url: "/me", config: { account: "id" } } });

  it("filledNames says where each value comes from, the token answer first", () => {
    expect([...filledNames(oauth)]).toEqual([
      ["team", "token"],
      ["realm", "token"],
      ["account", "lookup"],
    ]);
    expect([...filledNames(key)]).toEqual([["account", "lookup"]]);
    expect([...filledNames(bearer())]).toEqual([]);
    expect([...filledNames(bearer({ identify: { url: "/me" } }))]).toEqual([]);
  });

  it("isFilled: only when every way fills it", () => {
    expect(isFilled({ name: "account" }, [oauth, key])).toBe(true);
    expect(isFilled({ name: "team" }, [oauth, key])).toBe(false);
    expect(isFilled({ name: "team" }, [oauth])).toBe(true);
    expect(isFilled({ name: "team" }, [])).toBe(false);
  });
});

describe("what a toolkit may declare", () => {
  const slug = "decl";
  it("refuses a bad name, an unknown type, and fields of another kind", () => {
    expect(refusal(() => assertInput(slug, { name: "1x", label: "X" }))).toBe(
      'Toolkit "decl": input name "1x" is invalid: use letters, digits and "_" (at most 64).',
    );
    expect(refusal(() => assertInput(slug, { name: "ab-c", label: "X" }))).toContain('input name "ab-c" is invalid');
    assertInput(slug, { name: `a${"b".repeat(63)}`, label: "X" });
    expect(refusal(() => assertInput(slug, { name: `a${"b".repeat(64)}`, label: "X" }))).toContain("is invalid");
    for (const type of ["label", "host", "origin", "enum", "text"] as const) {
      const input = {
        name: "x",
        label: "X",
        type,
        hosts: type === "host" ? ["a.b.c"] : undefined,
        values: type === "enum" ? ["a"] : undefined,
      };
      assertInput(slug, input);
    }
    expect(refusal(() => assertInput(slug, { name: "x", label: "X", type: "color" as never }))).toBe(
      'Toolkit "decl": input "x" has type "color": use label, host, origin, enum or text.',
    );
    expect(refusal(() => assertInput(slug, { name: "x", label: "X", values: ["a"] }))).toBe(
      'Toolkit "decl": input "x" has values but is not of type "enum"; remove values or set type "enum".',
    );
    expect(refusal(() => assertInput(slug, { name: "x", label: "X", maxLength: 5 }))).toBe(
      'Toolkit "decl": input "x" has maxLength but is not of type "text".',
    );
    expect(refusal(() => assertInput(slug, { name: "x", label: "X", hosts: ["a.b.c"] }))).toBe(
      'Toolkit "decl": input "x" has hosts but is not of type "host"; remove hosts or set type "host".',
    );
  });

  it("refuses an enum without values, with a repeated or blank value, or with a pattern", () => {
    expect(refusal(() => assertInput(slug, { name: "r", label: "R", type: "enum" }))).toBe(
      'Toolkit "decl": input "r" is an enum input: list the values it may take in values.',
    );
    expect(refusal(() => assertInput(slug, { name: "r", label: "R", type: "enum", values: [] }))).toContain("list the values");
    expect(refusal(() => assertInput(slug, { name: "r", label: "R", type: "enum", values: ["a", "a"] }))).toBe(
      'Toolkit "decl": input "r" lists a value twice in values.',
    );
    for (const bad of ["", " a", "a\n", "x".repeat(254)])
      expect(refusal(() => assertInput(slug, { name: "r", label: "R", type: "enum", values: [bad] }))).toBe(
        `Toolkit "decl": input "r": value ${JSON.stringify(bad)} must be 1 to 253 characters on one line, without surrounding spaces.`,
      );
    assertInput(slug, { name: "r", label: "R", type: "enum", values: ["x".repeat(253)] });
    expect(refusal(() => assertInput(slug, { ...region, pattern: "^u" }))).toBe(
      'Toolkit "decl": input "region" is of type "enum", which takes no pattern; remove it.',
    );
    expect(refusal(() => assertInput(slug, { name: "o", label: "O", type: "origin", pattern: "^h" }))).toBe(
      'Toolkit "decl": input "o" is of type "origin", which takes no pattern; remove it.',
    );
  });

  it("refuses a text maxLength outside 1 to 1024, and takes both ends", () => {
    for (const maxLength of [0, 1025, 2.5])
      expect(refusal(() => assertInput(slug, { ...note, maxLength }))).toBe(
        'Toolkit "decl": input "note": maxLength must be a whole number from 1 to 1024.',
      );
    assertInput(slug, { ...note, maxLength: 1 });
    assertInput(slug, { ...note, maxLength: 1024 });
  });

  it("refuses a default that breaks the input's rule, a filled input with a default, and an unknown source", () => {
    expect(refusal(() => assertInput(slug, { ...region, default: "mars" }))).toBe(
      'Toolkit "decl": input "region": its default "mars" does not follow the input\'s own rule.',
    );
    expect(refusal(() => assertInput(slug, { name: "t", label: "T", from: "token", default: "x" }))).toBe(
      'Toolkit "decl": input "t" is filled by the provider (from "token"), so it has no default.',
    );
    expect(refusal(() => assertInput(slug, { name: "t", label: "T", from: "header" as never }))).toBe(
      'Toolkit "decl": input "t": from must be "token" or "lookup".',
    );
    expect(refusal(() => assertInput(slug, { name: "t", label: "T", pattern: "(a)\\1" }))).toMatch(/^Toolkit "decl": input "t": /);
  });
});

describe("where inputs may go", () => {
  const place = (inputs: ConnectionInput[], baseUrls: string[], modes: AuthScheme[] = [bearer()]) =>
    refusal(() => assertInputPlaces("places", inputs, baseUrls, modes));

  it("text never fills a URL, not even its path", () => {
    expect(place([note], ["https://api.test/{note}"])).toBe(
      'Toolkit "places": input "note" is free text, which never fills a URL ("https://api.test/{note}"); use a label or enum input there.',
    );
    const endpoint = oauth2({ authorizationUrl: "https://a.test/{note}/authorize", tokenUrl: "https://a.test/token", clientId: "c" });
    expect(place([note], ["https://api.test"], [endpoint])).toContain("never fills a URL");
    // In a header template, or nowhere, it is fine.
    assertInputPlaces("places", [note], ["https://api.test/v1"], [bearer()]);
  });

  it("an optional input without a default fills no URL", () => {
    expect(place([{ name: "team", label: "Team", optional: true }], ["https://api.test/{team}"])).toBe(
      'Toolkit "places": input "team" is optional without a default, but "https://api.test/{team}" needs it; give it a default.',
    );
    assertInputPlaces(
      "places",
      [{ name: "team", label: "Team", optional: true, default: "main" }],
      ["https://api.test/{team}"],
      [bearer()],
    );
  });

  it("each enum value fits every URL it fills: labels in a path, several labels only where they lead the host", () => {
    assertInputPlaces("places", [{ ...region, values: ["api", "api.eu"] }], ["https://{region}.intercom.test"], [bearer()]);
    expect(place([{ ...region, values: ["us", "e.u"] }], ["https://api.test/{region}/v1"])).toBe(
      'Toolkit "places": input "region": value "e.u" cannot fill "https://api.test/{region}/v1"; there a value is one DNS label (or leads the host).',
    );
    expect(place([{ ...region, values: ["us", "a/b"] }], ["https://{region}.api.test"])).toContain('value "a/b" cannot fill');
  });

  it("an input filled from the provider is filled so by every way", () => {
    const token = oauth2({
      authorizationUrl: "https://a.test/authorize",
      tokenUrl: "https://a.test/token",
      clientId: "c",
      tokenConfig: { team: "team.id" },
    });
    const looked = bearer({ identify: { url: "/me", config: { team: "team.id" } } });
    assertInputPlaces("places", [{ name: "team", label: "Team", from: "token" }], [], [token]);
    assertInputPlaces("places", [{ name: "team", label: "Team", from: "lookup" }], ["https://api.test/{team}"], [looked]);
    expect(place([{ name: "team", label: "Team", from: "token" }], [], [token, looked])).toBe(
      'Toolkit "places": input "team" is filled from "token", but mode "bearer" does not fill it in its tokenConfig or callbackConfig.',
    );
    expect(place([{ name: "team", label: "Team", from: "lookup" }], [], [token])).toBe(
      'Toolkit "places": input "team" is filled from "lookup", but mode "oauth2" does not fill it in its identify\'s config.',
    );
  });
});

describe("defineToolkit checks inputs", () => {
  it("refuses an input declared twice", () => {
    expect(
      refusal(() =>
        defineToolkit({ slug: "twice", name: "T", description: "d", auth: bearer(), inputs: [region, { ...region }], tools: [] }),
      ),
    ).toBe('Toolkit "twice" declares input "region" twice.');
  });

  it("refuses a text input in its base URL", () => {
    expect(
      refusal(() =>
        defineToolkit({
          slug: "t",
          name: "T",
          description: "d",
          baseUrl: "https://a.test/{note}",
          auth: bearer(),
          inputs: [note],
          tools: [],
        }),
      ),
    ).toContain("never fills a URL");
  });
});
