/**
 * The curated X tools through POST /execute, against an emulation of https://api.x.com/2 answering as X's API v2
 * documentation shows: `{ data, includes: { users }, meta: { result_count, next_token } }` for lists, `{ data }`
 * for one object, a 200 with only `errors` for a post that does not exist, 201 `{ data: { id, text } }` for a new
 * post, `{ data: { id, media_key } }` for an upload, and problem details (`title`, `detail`, `errors`) for failures.
 */
import { describe, expect, it } from "vitest";
import { xTools } from "../../../src/catalog/tools/x.js";
import { json, type Received, type Route, setupToolkit } from "./support-b.js";

const POST = {
  id: "1460323737035677698",
  text: "Introducing a new era for the Twitter Developer Platform!",
  author_id: "2244994945",
  created_at: "2021-11-15T19:00:00.000Z",
  conversation_id: "1460323737035677698",
  public_metrics: { retweet_count: 10, reply_count: 2, like_count: 40, quote_count: 1 },
  edit_history_tweet_ids: ["1460323737035677698"],
};
const OUT = {
  id: "1460323737035677698",
  text: POST.text,
  authorId: "2244994945",
  authorUsername: "XDevelopers",
  createdAt: "2021-11-15T19:00:00.000Z",
  conversationId: "1460323737035677698",
  metrics: POST.public_metrics,
  url: "https://x.com/i/web/status/1460323737035677698",
};
const INCLUDES = { users: [{ id: "2244994945", name: "Developers", username: "XDevelopers" }] };
const USER = {
  id: "2244994945",
  name: "Developers",
  username: "XDevelopers",
  description: "The voice of the X Dev team",
  created_at: "2013-12-14T04:35:55.000Z",
  verified: true,
  public_metrics: { followers_count: 500000, following_count: 2000, tweet_count: 4000, listed_count: 100 },
};

const routes: Route[] = [
  { method: "GET", path: /^\/2\/users\/me$/, answer: () => json({ data: USER }) },
  {
    method: "GET",
    path: /^\/2\/users\/by\/username\/(?<name>\w+)$/,
    answer: (_request, { name }) =>
      name === "XDevelopers"
        ? json({ data: USER })
        : json({
            errors: [
              {
                value: name,
                detail: `Could not find user with username: [${name}].`,
                title: "Not Found Error",
                resource_type: "user",
                parameter: "username",
                type: "https://api.twitter.com/2/problems/resource-not-found",
              },
            ],
          }),
  },
  {
    method: "GET",
    path: /^\/2\/tweets\/search\/recent$/,
    answer: (request) =>
      request.query.get("query") === "("
        ? json(
            {
              errors: [{ parameters: { query: ["("] }, message: "There were errors processing your request: Unmatched parenthesis" }],
              title: "Invalid Request",
              detail: "One or more parameters to your request was invalid.",
              type: "https://api.twitter.com/2/problems/invalid-request",
            },
            400,
          )
        : json({
            data: [POST],
            includes: INCLUDES,
            meta: { newest_id: POST.id, oldest_id: POST.id, result_count: 1, next_token: "b26v89c19zqg8o3fpzbkk" },
          }),
  },
  {
    method: "GET",
    path: /^\/2\/users\/2244994945\/tweets$/,
    answer: () => json({ data: [POST], includes: INCLUDES, meta: { result_count: 1, newest_id: POST.id, oldest_id: POST.id } }),
  },
  {
    method: "GET",
    path: /^\/2\/tweets\/(?<id>\d+)$/,
    answer: (_request, { id }) =>
      id === POST.id
        ? json({ data: POST, includes: INCLUDES })
        : json({
            errors: [{ value: id, detail: `Could not find tweet with id: [${id}].`, title: "Not Found Error", resource_type: "tweet" }],
          }),
  },
  {
    method: "POST",
    path: /^\/2\/tweets$/,
    answer: (request) =>
      json(
        { data: { id: "1445880548472328192", text: (request.body as any).text ?? "", edit_history_tweet_ids: ["1445880548472328192"] } },
        201,
      ),
  },
  {
    method: "DELETE",
    path: /^\/2\/tweets\/\d+$/,
    answer: () => json({ title: "Forbidden", type: "about:blank", status: 403, detail: "You are not allowed to delete this Tweet." }, 403),
  },
  {
    method: "POST",
    path: /^\/2\/media\/upload$/,
    answer: () => json({ data: { id: "1880028106020515840", media_key: "3_1880028106020515840", size: 3, expires_after_secs: 86400 } }),
  },
];

const setup = () => setupToolkit({ slug: "x", baseUrl: "https://api.x.com/2", tools: xTools, routes });

describe("X tools", () => {
  it("X_GET_ME and X_GET_USER read accounts with user.fields", async () => {
    const x = await setup();
    const me = await x.ok("X_GET_ME");
    expect(me).toEqual({
      id: "2244994945",
      username: "XDevelopers",
      name: "Developers",
      description: "The voice of the X Dev team",
      createdAt: "2013-12-14T04:35:55.000Z",
      verified: true,
      metrics: USER.public_metrics,
    });
    expect(x.last().query.get("user.fields")).toContain("public_metrics");
    expect(await x.ok("X_GET_USER", { username: "@XDevelopers" })).toEqual(me);
    expect(x.last().path).toBe("/2/users/by/username/XDevelopers");
  });

  it("a 200 with only errors is a not_found failure quoting X", async () => {
    const x = await setup();
    const result = await x.execute("X_GET_USER", { username: "nobody_here" });
    expect(result).toMatchObject({ successful: false, code: "not_found" });
    expect(result.error).toBe("X found no user @nobody_here: Could not find user with username: [nobody_here]. Check it and call again.");
  });

  it("X_SEARCH_POSTS sends the query with fields and expansions, and returns next_token as the cursor", async () => {
    const x = await setup();
    expect(await x.ok("X_SEARCH_POSTS", { query: "from:XDevelopers -is:retweet", limit: 25, cursor: "abc" })).toEqual({
      results: [OUT],
      nextCursor: "b26v89c19zqg8o3fpzbkk",
    });
    const query = Object.fromEntries(x.last().query);
    expect(query).toMatchObject({
      query: "from:XDevelopers -is:retweet",
      max_results: "25",
      next_token: "abc",
      expansions: "author_id",
      "user.fields": "username",
    });
    expect(query["tweet.fields"]).toContain("public_metrics");
  });

  it("a 400 problem is a failed result with its title, detail and messages", async () => {
    const x = await setup();
    const result = await x.execute("X_SEARCH_POSTS", { query: "(" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 400 });
    expect(result.error).toContain(
      "X answered 400: Invalid Request: One or more parameters to your request was invalid (There were errors processing your request: Unmatched parenthesis). Correct the arguments",
    );
  });

  it("X_LIST_USER_POSTS leaves out replies and reposts by default; the last page has no cursor", async () => {
    const x = await setup();
    expect(await x.ok("X_LIST_USER_POSTS", { userId: "2244994945", cursor: "t1" })).toEqual({ results: [OUT], nextCursor: null });
    expect(Object.fromEntries(x.last().query)).toMatchObject({ exclude: "replies,retweets", pagination_token: "t1", max_results: "20" });
    await x.ok("X_LIST_USER_POSTS", { userId: "2244994945", includeReplies: true, includeReposts: true });
    expect(x.last().query.has("exclude")).toBe(false);
  });

  it("X_GET_POST reads a post; a missing one is not_found", async () => {
    const x = await setup();
    expect(await x.ok("X_GET_POST", { postId: POST.id })).toEqual(OUT);
    expect(await x.execute("X_GET_POST", { postId: "1" })).toMatchObject({ successful: false, code: "not_found" });
  });

  it("X_UPLOAD_MEDIA sends the staged image as multipart, and X_CREATE_POST attaches it in a reply", async () => {
    const x = await setup();
    const key = await x.upload(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), "image/png", "chart.png");
    expect(await x.ok("X_UPLOAD_MEDIA", { file: key })).toEqual({ mediaId: "1880028106020515840", mediaKey: "3_1880028106020515840" });
    const upload: Received = x.last();
    expect(upload.headers.get("content-type")).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload.body as string).toContain('name="media_category"\r\n\r\ntweet_image');
    expect(upload.body as string).toContain('name="media"; filename="chart.png"');
    expect(await x.ok("X_CREATE_POST", { text: "Our chart", replyTo: POST.id, mediaIds: ["1880028106020515840"] })).toEqual({
      id: "1445880548472328192",
      text: "Our chart",
      url: "https://x.com/i/web/status/1445880548472328192",
    });
    expect(x.last().body).toEqual({
      text: "Our chart",
      reply: { in_reply_to_tweet_id: POST.id },
      media: { media_ids: ["1880028106020515840"] },
    });
  });

  it("X_UPLOAD_MEDIA refuses a file that is not an image, before sending", async () => {
    const x = await setup();
    const key = await x.upload("text", "text/plain", "a.txt");
    expect(await x.execute("X_UPLOAD_MEDIA", { file: key })).toMatchObject({ successful: false, code: "invalid_arguments" });
    expect(x.received).toEqual([]);
  });

  it("X_DELETE_POST: a 403 carries X's detail and the advice about access", async () => {
    const x = await setup();
    const result = await x.execute("X_DELETE_POST", { postId: POST.id });
    expect(result).toMatchObject({ successful: false, upstreamStatus: 403 });
    expect(result.error).toMatch(/^X answered 403: Forbidden: You are not allowed to delete this Tweet\. X refused this/);
    expect(x.last().method).toBe("DELETE");
  });
});
