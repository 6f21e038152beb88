/** The generator's text and placement rules (scripts/catalog-tools): descriptions, slugs, base URLs. */
import { describe, expect, it } from "vitest";
import { rebase } from "../../../scripts/catalog-tools/rebase.js";
import { shareDefs, trimSchema } from "../../../scripts/catalog-tools/schemas.js";
import { plainText, sentences, slugPrefix, summarise, toolDescription, upperSnake } from "../../../scripts/catalog-tools/text.js";

describe("descriptions", () => {
  it("drop markup: HTML, Markdown links and emphasis, notes and headings", () => {
    expect(
      plainText("<p>Lists <b>issues</b>. See [the guide](https://x.test/a_(b)).</p>\n> [!NOTE]\n> Old.\n## Heading\n**Bold** text"),
    ).toBe("Lists issues. See the guide.\n\nBold text");
  });

  it("drop a Markdown link the upstream left unclosed", () => {
    expect(plainText("See the [OAuth spec](https://tools.ietf.org/html/draft-31.")).toBe("See the OAuth spec");
  });

  it("split sentences at a period before a capital, not after e.g. or inside a version", () => {
    expect(sentences("Use e.g. the v1.2 API. Then stop! Done")).toEqual(["Use e.g. the v1.2 API.", "Then stop!", "Done"]);
  });

  it("keep the first sentences that fit, and cut a long first one at a word with an ellipsis", () => {
    expect(summarise("One two. Three four five. Six.", 20)).toBe("One two.");
    expect(summarise("Averyveryverylong sentence without an end in sight", 20)).toBe("Averyveryverylong…");
  });

  it("a tool's: the summary as a sentence, then what the description adds, without boilerplate about tokens", () => {
    const details =
      "List issues in a repository. Only open issues are listed by default.\n\nOAuth app tokens need the `repo` scope.\n\n- item";
    expect(toolDescription("List repository issues", details, 240)).toBe(
      "List repository issues. List issues in a repository. Only open issues are listed by default.",
    );
    expect(toolDescription("Get a thing", "Fine-grained access tokens for this endpoint work.", 240)).toBe("Get a thing.");
  });
});

describe("slugs", () => {
  it("upper snake case from an operationId, prefixed as curated tools are", () => {
    expect(upperSnake("issues/list-for-repo")).toBe("ISSUES_LIST_FOR_REPO");
    expect(upperSnake("gmail.users.messages.list")).toBe("GMAIL_USERS_MESSAGES_LIST");
    expect(upperSnake("getHTTPResponse")).toBe("GET_HTTP_RESPONSE");
    expect(slugPrefix("google-calendar")).toBe("GOOGLECALENDAR");
  });
});

describe("placing an operation under the provider's base URLs", () => {
  it("strips the part of the path the base URL holds", () => {
    expect(rebase("https://gmail.googleapis.com/", "/gmail/v1/users/{userId}/messages", ["https://gmail.googleapis.com"])).toEqual({
      base: 0,
      path: "/gmail/v1/users/{userId}/messages",
    });
    expect(rebase("https://api.stripe.com/", "/v1/customers", ["https://api.stripe.com/v1"])).toEqual({ base: 0, path: "/customers" });
  });

  it("matches placeholders whatever their names, and keeps the document's server path below a shorter base", () => {
    expect(
      rebase("https://{server}.docusign.net/restapi", "/v2.1/accounts/{accountId}/envelopes", [
        "https://{server}.docusign.net/restapi/v2.1/accounts/{accountId}",
      ]),
    ).toEqual({ base: 0, path: "/envelopes" });
    expect(rebase("https://API.example.com/v1", "/things", ["https://api.example.com"])).toEqual({ base: 0, path: "/v1/things" });
  });

  it("chooses the longest base URL that holds it, and refuses one under none", () => {
    const bases = ["https://www.googleapis.com/drive/v3", "https://www.googleapis.com/upload/drive/v3"];
    expect(rebase("https://www.googleapis.com", "/upload/drive/v3/files", bases)).toEqual({ base: 1, path: "/files" });
    expect(rebase("https://uploads.github.com", "/repos/{owner}/{repo}/releases/{id}/assets", ["https://api.github.com"])).toBeUndefined();
    expect(rebase("https://api.example.com/v2", "/x", ["https://api.example.com/v1"])).toBeUndefined();
  });
});

describe("schemas", () => {
  it("keep what agents read: descriptions summarised, examples and extensions dropped, property names kept", () => {
    expect(
      trimSchema(
        {
          type: "object",
          description: "A pet. More text here.",
          example: { a: 1 },
          "x-internal": true,
          properties: { example: { type: "string" } },
        },
        10,
      ),
    ).toEqual({ type: "object", description: "A pet.", properties: { example: { type: "string" } } });
  });

  it("share $defs once per provider, and keep a name two tools define differently in each tool", () => {
    const a = { inputParameters: { type: "object", $defs: { Pet: { type: "object" }, Id: { type: "string" } } } };
    const b = { inputParameters: { type: "object", $defs: { Pet: { type: "object" }, Id: { type: "integer" } } } };
    const shared = shareDefs([a, b]);
    expect(shared.defs).toEqual({ Pet: { type: "object" } });
    expect(shared.tools[0]).toEqual({ inputParameters: { type: "object", $defs: { Id: { type: "string" } } }, defs: ["Pet"] });
    expect(shared.tools[1]).toEqual({ inputParameters: { type: "object", $defs: { Id: { type: "integer" } } }, defs: ["Pet"] });
  });
});
