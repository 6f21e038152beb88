import { describe, expect, it } from "vitest";
import { checkConfig, missingInputs } from "../../src/connections/config.js";
import { ToolsError } from "../../src/core/errors.js";
import { type ConnectionInput, defineToolkit, type Toolkit } from "../../src/toolkits/define.js";
import { hostPatternProblem, matchesHostPattern } from "../../src/toolkits/host-input.js";

const loginHost: ConnectionInput = {
  name: "loginHost",
  label: "Login host",
  type: "host",
  hosts: ["login.example.com", "*.my.example.com"],
  default: "login.example.com",
};

function toolkit(inputs: ConnectionInput[], endpoint = "https://{loginHost}/oauth/token", baseUrl = "https://api.example.com"): Toolkit {
  return defineToolkit({
    slug: "hosted",
    name: "Hosted",
    description: "A provider whose login host a connection chooses.",
    baseUrl,
    inputs,
    auth: { type: "oauth2", clientId: "cid", authorizationUrl: endpoint.replace("token", "authorize"), tokenUrl: endpoint, scopes: [] },
    tools: [],
  });
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("host inputs", () => {
  it("match a * label with exactly one DNS label, and nothing else", () => {
    const patterns = ["login.example.com", "*.my.example.com"];
    expect(matchesHostPattern("login.example.com", patterns)).toBe(true);
    expect(matchesHostPattern("acme.my.example.com", patterns)).toBe(true);
    for (const host of [
      "a.b.my.example.com",
      "my.example.com",
      "login.example.com.evil.test",
      "x_y.my.example.com",
      ".my.example.com",
      "",
    ]) {
      expect(matchesHostPattern(host, patterns), host).toBe(false);
    }
  });

  it.each(["*.com", "example.*", "*", "a..b.com", "a/b.example.com", "ex ample.com"])("refuse the host pattern %j", (pattern) => {
    expect(hostPatternProblem(pattern)).toBeDefined();
  });

  it("are refused at definition without hosts, with a default outside them, or filling anything but an endpoint's whole host", () => {
    expect(refusal(() => toolkit([{ ...loginHost, hosts: [] }]))).toBe(
      'Toolkit "hosted": input "loginHost" is a host input: list the hosts it may name in hosts.',
    );
    expect(refusal(() => toolkit([{ ...loginHost, default: "evil.test" }]))).toBe(
      'Toolkit "hosted": input "loginHost": its default "evil.test" does not follow the input\'s own rule.',
    );
    expect(refusal(() => toolkit([{ ...loginHost, hosts: ["*.com"] }]))).toBe(
      'Toolkit "hosted": input "loginHost": host "*.com" must end with two fixed labels (a * may not pick the domain).',
    );
    expect(refusal(() => toolkit([{ name: "loginHost", label: "Login", hosts: ["a.example.com"] }]))).toMatch(/is not of type "host"/);
    expect(refusal(() => toolkit([{ name: "loginHost", label: "Login" }]))).toBe(
      'Toolkit "hosted": OAuth endpoint "https://{loginHost}/oauth/authorize" lets {loginHost} choose its whole host; declare loginHost as an input of type "host" with its hosts.',
    );
    expect(refusal(() => toolkit([loginHost], "https://{loginHost}.example.com/oauth/token"))).toMatch(
      /host input "loginHost" may only be the whole host of an OAuth endpoint/,
    );
    // A base URL's whole host may be a host input (Datadog's site, Wrike's host), checked against its hosts on every call.
    expect(toolkit([loginHost], "https://login.example.com/oauth/token", "https://{loginHost}/api").baseUrls).toEqual([
      "https://{loginHost}/api",
    ]);
    expect(refusal(() => toolkit([loginHost], "https://login.example.com/oauth/token", "https://api.example.com/{loginHost}"))).toMatch(
      /host input "loginHost" may only be the whole host of an OAuth endpoint/,
    );
  });

  it("take their default when left out, a host lower-cased, and a wrong one is a 400 naming the input", () => {
    const hosted = toolkit([loginHost]);
    expect(checkConfig(hosted, hosted.auth, {})).toEqual({ loginHost: "login.example.com" });
    expect(checkConfig(hosted, hosted.auth, {}, { partial: true })).toEqual({ loginHost: "login.example.com" });
    expect(checkConfig(hosted, hosted.auth, { loginHost: "ACME.my.example.com" })).toEqual({ loginHost: "acme.my.example.com" });
    expect(missingInputs(hosted, hosted.auth, {})).toBe(false);
    let error: unknown;
    try {
      checkConfig(hosted, hosted.auth, { loginHost: "evil.test" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ToolsError);
    expect((error as ToolsError).message).toMatch(/^config\.loginHost is not valid: it must be one of these hosts/);
  });

  it("a label input with a default is optional too; one without stays needed", () => {
    const base = "https://{region}.api.example.com";
    const regional = defineToolkit({
      slug: "regional",
      name: "Regional",
      description: "A provider with regions.",
      baseUrl: base,
      inputs: [{ name: "region", label: "Region", default: "us" }],
      auth: { type: "bearer" },
      tools: [],
    });
    expect(checkConfig(regional, regional.auth, {})).toEqual({ region: "us" });
    expect(checkConfig(regional, regional.auth, { region: "eu" })).toEqual({ region: "eu" });
    expect(refusal(() => checkConfig(regional, regional.auth, { region: "a.b" }))).toMatch(/^config\.region is not valid/);
    const plain = defineToolkit({ ...regional, slug: "plain", inputs: [{ name: "region", label: "Region" }], auth: { type: "bearer" } });
    expect(missingInputs(plain, plain.auth, {})).toBe(true);
  });
});
