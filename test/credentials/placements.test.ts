import { describe, expect, it } from "vitest";
import {
  configureValues,
  fillPathPlacements,
  ownFieldNames,
  type Placed,
  placedHeaderNames,
  placedSecrets,
  placementProblem,
  placementsDefinitionProblem,
  renderPlacements,
  templateNames,
} from "../../src/credentials/placements.js";

const datadog: Placed = {
  type: "apiKey",
  fields: [{ name: "applicationKey", label: "Application key" }],
  placements: [
    { in: "header", name: "DD-API-KEY", value: "{apiKey}" },
    { in: "header", name: "DD-APPLICATION-KEY", value: "Key {applicationKey}" },
  ],
};
const trello: Placed = {
  type: "apiKey",
  values: [{ name: "appKey", env: "TOOLS_PROXY_TRELLO_KEY", value: "app-key-1" }],
  placements: [
    { in: "query", name: "key", value: "{appKey}" },
    { in: "query", name: "token", value: "{apiKey}" },
  ],
};
const freshdesk: Placed = { type: "apiKey", placements: [{ in: "basic", username: "{apiKey}", password: "X" }] };
const telegram: Placed = { type: "bearer", placements: [{ in: "path", name: "token", value: "{token}" }] };
const basicPair: Placed = { type: "basic", placements: [{ in: "basic", username: "{username}", password: "{password}" }] };

describe("placements", () => {
  it("name the credential's own fields by type", () => {
    expect(ownFieldNames("apiKey")).toEqual(["apiKey"]);
    expect(ownFieldNames("bearer")).toEqual(["token"]);
    expect(ownFieldNames("basic")).toEqual(["username", "password"]);
    expect(ownFieldNames("oauth2")).toEqual([]);
    expect(templateNames("{a} and {b_2} but not {} or {1x}")).toEqual(["a", "b_2"]);
  });

  it("render each value where it goes, a header name lower-cased, Basic as its header", () => {
    expect(renderPlacements(datadog, { type: "apiKey", apiKey: "k1", fields: { applicationKey: "a1" } })).toEqual([
      { in: "header", name: "dd-api-key", value: "k1" },
      { in: "header", name: "dd-application-key", value: "Key a1" },
    ]);
    expect(renderPlacements(trello, { type: "apiKey", apiKey: "t1" })).toEqual([
      { in: "query", name: "key", value: "app-key-1" },
      { in: "query", name: "token", value: "t1" },
    ]);
    expect(renderPlacements(freshdesk, { type: "apiKey", apiKey: "k:ey" })).toEqual([
      { in: "header", name: "authorization", value: `Basic ${btoa("k:ey:X")}` },
    ]);
    expect(renderPlacements(telegram, { type: "bearer", token: "1:AA" })).toEqual([{ in: "path", name: "token", value: "1:AA" }]);
    expect(renderPlacements(basicPair, { type: "basic", username: "u", password: "p" })[0]!.value).toBe(`Basic ${btoa("u:p")}`);
    expect(renderPlacements({ type: "apiKey" }, { type: "apiKey", apiKey: "k" })).toEqual([]);
    // A query parameter's name is sent as written: only header names are case-insensitive.
    const cased: Placed = { type: "apiKey", placements: [{ in: "query", name: "ApiKey", value: "{apiKey}" }] };
    expect(renderPlacements(cased, { type: "apiKey", apiKey: "k" })).toEqual([{ in: "query", name: "ApiKey", value: "k" }]);
  });

  it("list the headers they set", () => {
    expect(placedHeaderNames(datadog)).toEqual(["dd-api-key", "dd-application-key"]);
    expect(placedHeaderNames(freshdesk)).toEqual(["authorization"]);
    expect(placedHeaderNames(trello)).toEqual([]);
    expect(placedHeaderNames({ type: "apiKey" })).toEqual([]);
  });

  it("list every secret for redaction: further fields, deployer values, Basic's base64, not a field marked not secret", () => {
    expect(placedSecrets(datadog, { type: "apiKey", apiKey: "k1", fields: { applicationKey: "a1" } })).toEqual(["a1"]);
    expect(placedSecrets(trello, { type: "apiKey", apiKey: "t1" })).toEqual(["app-key-1"]);
    expect(placedSecrets(freshdesk, { type: "apiKey", apiKey: "k1" })).toEqual([btoa("k1:X")]);
    const shown: Placed = { ...datadog, fields: [{ name: "applicationKey", label: "App", secret: false }] };
    expect(placedSecrets(shown, { type: "apiKey", apiKey: "k1", fields: { applicationKey: "a1" } })).toEqual([]);
    expect(placedSecrets({ type: "apiKey", values: [{ name: "x", env: "X" }] }, { type: "apiKey", apiKey: "k" })).toEqual([]);
    expect(placedSecrets(datadog, { type: "apiKey", apiKey: "k1" })).toEqual([]);
  });
});

describe("placementProblem", () => {
  const ok = { type: "apiKey", apiKey: "k1", fields: { applicationKey: "a1" } };
  it("accepts values that fit where they go", () => {
    expect(placementProblem(datadog, ok)).toBeNull();
    expect(placementProblem(trello, { type: "apiKey", apiKey: "any thing\n/%?#" })).toBeNull();
    expect(placementProblem(telegram, { type: "bearer", token: "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11" })).toBeNull();
    expect(placementProblem(telegram, { type: "bearer", token: "a.b" })).toBeNull();
    expect(placementProblem({ type: "apiKey" }, { type: "apiKey", apiKey: "\n" })).toBeNull();
  });

  it("names a missing field, or a deployer value not configured", () => {
    expect(placementProblem(datadog, { type: "apiKey", apiKey: "k1" })).toEqual({ field: "applicationKey", reason: "is missing; send it" });
    expect(placementProblem(datadog, { type: "apiKey", apiKey: "k1", fields: { applicationKey: "" } })?.field).toBe("applicationKey");
    const unset: Placed = { ...trello, values: [{ name: "appKey", env: "TOOLS_PROXY_TRELLO_KEY" }] };
    expect(placementProblem(unset, { type: "apiKey", apiKey: "t" })).toEqual({
      field: "appKey",
      reason: "is not configured on this server",
    });
  });

  it("refuses what a header cannot carry, or carries changed", () => {
    for (const bad of ["a\r\nx: 1", "a\u0000", "\u20ac", "a\u007f"]) {
      expect(placementProblem(datadog, { ...ok, fields: { applicationKey: bad } })?.reason, JSON.stringify(bad)).toMatch(/line break/);
    }
    for (const bad of [" a", "a ", "\ta"]) {
      expect(placementProblem(datadog, { ...ok, apiKey: bad })).toEqual({
        field: "apiKey",
        reason: "starts or ends with whitespace; send it without",
      });
    }
    expect(placementProblem(freshdesk, { type: "apiKey", apiKey: "a\nb" })?.reason).toMatch(/line break/);
    expect(placementProblem(datadog, { ...ok, apiKey: "a\tb ~ \u00e9" })).toBeNull();
  });

  it("refuses a Basic username with a colon, naming its field", () => {
    expect(placementProblem(freshdesk, { type: "apiKey", apiKey: "a:b" })).toEqual({
      field: "apiKey",
      reason: 'contains ":", which HTTP basic authentication cannot carry in a username',
    });
    const fixed: Placed = { type: "apiKey", placements: [{ in: "basic", username: "a:b", password: "{apiKey}" }] };
    expect(placementProblem(fixed, { type: "apiKey", apiKey: "k" })?.field).toBe("username");
    expect(placementProblem(basicPair, { type: "basic", username: "u", password: "p:q" })).toBeNull();
  });

  it("refuses a path value that is not exactly one segment", () => {
    for (const bad of ["a/b", "..", ".", "...", "a%2fb", "a?b", "a#b", "a\\b", "a b", "a\nb", "\u00e9", "a{b}"]) {
      expect(placementProblem(telegram, { type: "bearer", token: bad })?.field, bad).toBe("token");
    }
    expect(placementProblem(telegram, { type: "bearer", token: "a/b" })?.reason).toMatch(/^must be one URL path segment/);
    expect(placementProblem(telegram, { type: "bearer", token: "-._~!$&'()*+,;=:@Az09" })).toBeNull();
    for (const dotted of [".a", "a.", "a..b"]) expect(placementProblem(telegram, { type: "bearer", token: dotted }), dotted).toBeNull();
  });
});

describe("placementsDefinitionProblem", () => {
  const bases = ["https://api.telegram.org/bot{token}"];
  it("accepts the catalog's shapes", () => {
    for (const scheme of [datadog, trello, freshdesk, basicPair]) expect(placementsDefinitionProblem(scheme, [])).toBeNull();
    expect(placementsDefinitionProblem(telegram, bases)).toBeNull();
    expect(placementsDefinitionProblem({ type: "apiKey" }, [])).toBeNull();
  });

  it("refuses names that are not names, or declared twice", () => {
    expect(placementsDefinitionProblem({ type: "apiKey", fields: [{ name: "a-b", label: "x" }] }, [])).toBe(
      'field or value name "a-b" must be letters, digits and _',
    );
    expect(placementsDefinitionProblem({ type: "apiKey", fields: [{ name: "apiKey", label: "x" }] }, [])).toBe(
      "\"apiKey\" is declared twice among the credential's fields and the deployer's values",
    );
    expect(
      placementsDefinitionProblem({ type: "bearer", fields: [{ name: "a", label: "x" }], values: [{ name: "a", env: "A" }] }, []),
    ).toMatch(/"a" is declared twice/);
  });

  it("beside a token, a typed clientId field is the {clientId} templates name; a deployer value of that name is still twice", () => {
    const exchange = { type: "tokenExchange", fields: [{ name: "clientId", label: "Client ID" }] };
    expect(
      placementsDefinitionProblem({ ...exchange, placements: [{ in: "header", name: "x-client", value: "{clientId}" }] }, []),
    ).toBeNull();
    expect(placementsDefinitionProblem({ type: "tokenExchange", values: [{ name: "clientId", env: "X" }] }, [])).toMatch(
      /"clientId" is declared twice/,
    );
  });

  it("refuses a template naming what is not there, or holding what a request cannot carry", () => {
    expect(placementsDefinitionProblem({ type: "bearer", placements: [{ in: "header", name: "x", value: "{apiKey}" }] }, [])).toBe(
      'placement template "{apiKey}" names {apiKey}, which is neither a field of the credential nor a deployer value',
    );
    expect(
      placementsDefinitionProblem({ type: "apiKey", placements: [{ in: "basic", username: "{apiKey}", password: "{nope}" }] }, []),
    ).toMatch(/names \{nope\}/);
    expect(placementsDefinitionProblem({ type: "apiKey", placements: [{ in: "header", name: "x", value: "a\n{apiKey}" }] }, [])).toMatch(
      /holds a character a request cannot carry/,
    );
    expect(placementsDefinitionProblem({ type: "apiKey", placements: [{ in: "header", name: "x y", value: "{apiKey}" }] }, [])).toBe(
      'placement header "x y" is not an HTTP header name',
    );
  });

  it("refuses a path placement that is not a placeholder of a base URL's path", () => {
    expect(placementsDefinitionProblem(telegram, ["https://api.telegram.org/bot"])).toBe(
      "path placement {token} is not a placeholder in the path of a base URL",
    );
    expect(placementsDefinitionProblem(telegram, ["https://{token}.example.com/x"])).toMatch(/not a placeholder in the path/);
    expect(placementsDefinitionProblem(telegram, ["https://x{token}.example.com/y"])).toMatch(/not a placeholder in the path/);
    expect(placementsDefinitionProblem(telegram, ["https://{token}.example.com", "https://a.example.com/x/{token}"])).toBeNull();
    expect(placementsDefinitionProblem(telegram, ["http://localhost:8081/bot{token}"])).toBeNull();
    expect(placementsDefinitionProblem(telegram, ["{instance}/bot{token}"])).toMatch(/not a placeholder in the path/);
    // A query parameter's name is any text (URLSearchParams encodes it); a header's must be a token.
    const bracketed: Placed = { type: "apiKey", placements: [{ in: "query", name: "auth[key]", value: "{apiKey}" }] };
    expect(placementsDefinitionProblem(bracketed, [])).toBeNull();
    expect(placementsDefinitionProblem({ type: "apiKey", placements: [{ in: "header", name: "auth[key]", value: "{apiKey}" }] }, [])).toBe(
      'placement header "auth[key]" is not an HTTP header name',
    );
  });
});

describe("fillPathPlacements", () => {
  it("fills the path's placeholders only, leaving the host's and the others", () => {
    const path = [{ in: "path" as const, name: "token", value: "1:AA" }];
    expect(fillPathPlacements("https://api.telegram.org/bot{token}", path)).toBe("https://api.telegram.org/bot1:AA");
    expect(fillPathPlacements("https://{token}.x.com/a/{token}/{sub}", path)).toBe("https://{token}.x.com/a/1:AA/{sub}");
    expect(fillPathPlacements("https://x.com", path)).toBe("https://x.com");
    expect(fillPathPlacements("https://x.com/{token}", [{ in: "query", name: "token", value: "q" }])).toBe("https://x.com/{token}");
  });
});

describe("configureValues", () => {
  type Configurable = Placed & { unconfigured?: string };
  const scheme: Configurable = { type: "apiKey", values: [{ name: "appKey", label: "App key", env: "TOOLS_PROXY_TRELLO_KEY" }] };
  it("reads each value from the entry, else as written, else from its variable", () => {
    expect(configureValues(scheme, { TOOLS_PROXY_TRELLO_KEY: "env" }, { appKey: "entry" }, "Trello").values).toEqual([
      { name: "appKey", label: "App key", env: "TOOLS_PROXY_TRELLO_KEY", value: "entry" },
    ]);
    expect(configureValues(scheme, { TOOLS_PROXY_TRELLO_KEY: "env" }, {}, "Trello").values![0]!.value).toBe("env");
    const written: Configurable = { type: "apiKey", values: [{ name: "k", value: "inline", env: "K" }] };
    expect(configureValues(written, { K: "env" }, {}, "T").values![0]!.value).toBe("inline");
    expect(configureValues(scheme, { TOOLS_PROXY_TRELLO_KEY: "env" }, {}, "Trello").unconfigured).toBeUndefined();
    const none: Configurable = { type: "apiKey" };
    expect(configureValues(none, {}, {}, "T")).toBe(none);
  });

  it("leaves the mode not configured, naming every variable to set, when one is missing or empty", () => {
    expect(configureValues(scheme, {}, {}, "Trello").unconfigured).toBe(
      "Trello is not configured on this server: its operator must set TOOLS_PROXY_TRELLO_KEY " +
        "(the value its deployer gives for every connection), then restart it.",
    );
    expect(configureValues(scheme, { TOOLS_PROXY_TRELLO_KEY: "" }, { appKey: "" }, "Trello").unconfigured).toMatch(
      /TOOLS_PROXY_TRELLO_KEY/,
    );
    const two: Configurable = { type: "apiKey", values: [{ name: "a", env: "A" }, { name: "b", env: "B" }, { name: "c" }] };
    expect(configureValues(two, {}, {}, "T").unconfigured).toMatch(/must set A, B and "c" \(/);
    expect(configureValues(two, {}, {}, "T").values!.map((v) => v.value)).toEqual([undefined, undefined, undefined]);
    expect(configureValues(two, {}, {}, "T").values).toStrictEqual([{ name: "a", env: "A" }, { name: "b", env: "B" }, { name: "c" }]);
    expect(configureValues(two, {}, {}, "T").unconfigured).toBe(
      'T is not configured on this server: its operator must set A, B and "c" (the values its deployer gives for every connection), then restart it.',
    );
  });
});

describe("placements beside a token (OAuth 2, token grants)", () => {
  const twitch: Placed = { type: "oauth2", clientId: "cid-1", placements: [{ in: "header", name: "Client-Id", value: "{clientId}" }] };
  const ads: Placed = {
    type: "oauth2",
    clientId: "cid-1",
    values: [{ name: "developerToken", env: "TOOLS_PROXY_GOOGLE_ADS_DEVELOPER_TOKEN", value: "dev-1" }],
    placements: [{ in: "header", name: "developer-token", value: "{developerToken}" }],
  };
  const oauth = { type: "oauth2", accessToken: "at" };

  it("fill {clientId} and the deployer's values; the client id is no secret, a deployer value is", () => {
    expect(renderPlacements(twitch, oauth)).toEqual([{ in: "header", name: "client-id", value: "cid-1" }]);
    expect(renderPlacements(ads, oauth)).toEqual([{ in: "header", name: "developer-token", value: "dev-1" }]);
    expect(placedSecrets(twitch, oauth)).toEqual([]);
    expect(placedSecrets(ads, oauth)).toEqual(["dev-1"]);
  });

  it("name a client id or a deployer value that is not configured", () => {
    expect(placementProblem({ ...twitch, clientId: "" }, oauth)).toEqual({ field: "clientId", reason: "is not configured on this server" });
    const unset: Placed = { ...ads, values: [{ name: "developerToken", env: "X" }] };
    expect(placementProblem(unset, oauth)).toEqual({ field: "developerToken", reason: "is not configured on this server" });
    expect(placementProblem(ads, oauth)).toBeNull();
  });

  it("are headers and query parameters naming {clientId} or a value, never the token's header", () => {
    expect(placementsDefinitionProblem(twitch, [], "authorization")).toBeNull();
    expect(placementsDefinitionProblem({ ...twitch, type: "jwtBearer" }, [], "authorization")).toBeNull();
    const path: Placed = { type: "oauth2", placements: [{ in: "path", name: "k", value: "{clientId}" }] };
    expect(placementsDefinitionProblem(path, ["https://x.test/{k}"], "authorization")).toMatch(/only headers and query parameters/);
    const basic: Placed = { type: "oauth2", placements: [{ in: "basic", username: "{clientId}", password: "" }] };
    expect(placementsDefinitionProblem(basic, [], "authorization")).toMatch(/only headers and query parameters/);
    const over: Placed = { type: "oauth2", placements: [{ in: "header", name: "Authorization", value: "{clientId}" }] };
    expect(placementsDefinitionProblem(over, [], "authorization")).toMatch(/is where the token goes/);
    const token: Placed = { type: "oauth2", placements: [{ in: "header", name: "X", value: "{accessToken}" }] };
    expect(placementsDefinitionProblem(token, [], "authorization")).toMatch(/neither \{clientId\} nor a deployer value/);
    expect(placementsDefinitionProblem({ type: "apiKey", placements: [{ in: "header", name: "X", value: "{clientId}" }] }, [])).toMatch(
      /neither a field of the credential nor a deployer value/,
    );
  });

  it("accept query parameters beside a token, one named as the token's header too, and typed fields beside {clientId}", () => {
    const query: Placed = { type: "oauth2", clientId: "cid-1", placements: [{ in: "query", name: "client_id", value: "{clientId}" }] };
    expect(placementsDefinitionProblem(query, [], "authorization")).toBeNull();
    const named: Placed = { type: "oauth2", placements: [{ in: "query", name: "Authorization", value: "{clientId}" }] };
    expect(placementsDefinitionProblem(named, [], "authorization")).toBeNull();
    const tenant: Placed = {
      type: "clientCredentials",
      fields: [{ name: "tenant", label: "Tenant" }],
      placements: [
        { in: "header", name: "Client-Id", value: "{clientId}" },
        { in: "query", name: "tenant", value: "{tenant}" },
      ],
    };
    expect(placementsDefinitionProblem(tenant, [], "authorization")).toBeNull();
  });

  it("replace the credential in a mode without a token: its header may be the one a token would use", () => {
    const own: Placed = { type: "apiKey", placements: [{ in: "header", name: "Authorization", value: "Key {apiKey}" }] };
    expect(placementsDefinitionProblem(own, [], "authorization")).toBeNull();
  });

  it("fill {clientId} only beside a token: elsewhere it is a field the person must send", () => {
    const keyed: Placed = { type: "apiKey", placements: [{ in: "header", name: "X-Client", value: "{clientId}" }] };
    const credential = { type: "apiKey", apiKey: "k-1", secrets: { clientId: "typed-id" } };
    expect(placementProblem(keyed, credential)).toEqual({ field: "clientId", reason: "is missing; send it" });
    expect(renderPlacements(keyed, credential)).toEqual([{ in: "header", name: "x-client", value: "" }]);
  });

  it("name every missing variable in one sentence when the client is not configured either", () => {
    const both = { ...ads, values: [{ name: "developerToken", env: "DEV" }], unconfigured: "Ads is not configured: set ID." };
    expect(configureValues(both, {}, {}, "Ads").unconfigured).toBe(
      "Ads is not configured: set ID. It also needs DEV (the value its deployer gives for every connection).",
    );
  });
});

describe("{clientId} of a client the person types", () => {
  it("is the typed client's id, for a client-credentials mode without the deployer's", () => {
    const typed: Placed = { type: "clientCredentials", placements: [{ in: "header", name: "Client-Id", value: "{clientId}" }] };
    const credential = { type: "clientCredentials", secrets: { clientId: "typed-id", clientSecret: "s" } };
    expect(renderPlacements(typed, credential)).toEqual([{ in: "header", name: "client-id", value: "typed-id" }]);
    expect(placementProblem(typed, credential)).toBeNull();
  });
});
