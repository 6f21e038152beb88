// X's curated tools, over the X API v2 at https://api.x.com/2. Facts from X's developer documentation:
// https://docs.x.com/x-api/users/user-lookup-me (GET /users/me, user.fields)
// https://docs.x.com/x-api/users/user-lookup-by-username (GET /users/by/username/{username})
// https://docs.x.com/x-api/posts/recent-search (GET /tweets/search/recent: query, max_results 10 to 100, next_token, meta.next_token)
// https://docs.x.com/x-api/posts/user-posts-timeline-by-user-id (GET /users/{id}/tweets: max_results 5 to 100, pagination_token)
// https://docs.x.com/x-api/posts/post-lookup-by-post-id (GET /tweets/{id}; a missing post is a 200 with `errors` and no `data`)
// https://docs.x.com/x-api/posts/creation-of-a-post (POST /tweets: text, reply.in_reply_to_tweet_id, quote_tweet_id, media.media_ids; 201 { data: { id, text } })
// https://docs.x.com/x-api/posts/post-delete-by-post-id (DELETE /tweets/{id}: { data: { deleted } })
// https://docs.x.com/x-api/media/image-or-subtitle-media-upload (POST /media/upload, multipart media and media_category; { data: { id, media_key } })
// https://docs.x.com/x-api/fundamentals/response-codes-and-errors (problem details: title, detail, type, errors[])
// https://docs.x.com/x-api/fundamentals/fields and /expansions (tweet.fields, user.fields, expansions=author_id, includes.users)
import { z } from "zod";
import { invalidArguments, ToolRunError } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool, type ToolContext } from "../../toolkits/define.js";
import { type ProviderErrors, type QueryValues, requestJson, segment } from "../../toolkits/provider-requests.js";
import { field } from "./content.js";

type Json = Record<string, unknown>;

/** X's problem details: `{ title, detail, errors: [{ message }] }`. */
function xReason(body: unknown): string | undefined {
  const title = field(body, "title");
  const detail = field(body, "detail");
  const errors = field(body, "errors");
  const messages = (Array.isArray(errors) ? errors : [])
    .map((e) => field(e, "message") ?? field(e, "detail"))
    .filter((m): m is string => typeof m === "string")
    .map((m) => m.replace(/\.$/, ""));
  const head = [title, detail]
    .filter((part): part is string => typeof part === "string" && part !== "")
    .map((part) => part.replace(/\.$/, ""))
    .join(": ");
  if (!head && messages.length === 0) return undefined;
  if (!head) return messages.join("; ");
  return messages.length ? `${head} (${messages.join("; ")})` : head;
}

const X: ProviderErrors = {
  name: "X",
  reason: xReason,
  hints: {
    403: "X refused this for the connection: the app's access level or the token's scopes (tweet.write, media.write...) do not allow it, or the post is protected.",
  },
};

const TWEET_FIELDS = "created_at,author_id,conversation_id,in_reply_to_user_id,public_metrics,lang,referenced_tweets";
const USER_FIELDS = "created_at,description,location,public_metrics,verified,profile_image_url,url";

interface Page {
  data?: Json[];
  includes?: { users?: Json[] };
  meta?: { next_token?: string; result_count?: number };
}

/** Posts with their authors' usernames (from `includes.users`), metrics flattened. */
function posts(answer: Page) {
  const users = new Map((answer.includes?.users ?? []).map((user) => [user.id, user.username]));
  return (answer.data ?? []).map((post) => ({
    id: post.id,
    text: post.text,
    authorId: post.author_id ?? null,
    authorUsername: users.get(post.author_id) ?? null,
    createdAt: post.created_at ?? null,
    conversationId: post.conversation_id ?? null,
    metrics: post.public_metrics ?? null,
    url: `https://x.com/i/web/status/${String(post.id)}`,
  }));
}

/** `data` of an answer; a 200 with only `errors` (X's way of saying not found) is a not_found failure. */
function dataOf(answer: unknown, what: string): Json {
  const data = field(answer, "data");
  if (data && typeof data === "object") return data as Json;
  throw new ToolRunError(`X found no ${what}: ${xReason(answer) ?? "no data"}. Check it and call again.`, { code: "not_found" });
}

const getJson = (ctx: ToolContext, path: string, query: QueryValues = {}) => requestJson<Json>(ctx, X, path, { query });

const userId = z
  .string()
  .regex(/^\d{1,20}$/, "must be a numeric X user id")
  .describe("The user's numeric id (X_GET_ME or X_GET_USER).");
const postId = z
  .string()
  .regex(/^\d{1,20}$/, "must be a numeric post id")
  .describe("The post's numeric id (the number at the end of its URL).");
const nextToken = z.string().min(1).max(200).optional().describe("The nextCursor of a previous result, for the next page.");

function user(data: Json) {
  return {
    id: data.id,
    username: data.username,
    name: data.name,
    description: data.description ?? null,
    createdAt: data.created_at ?? null,
    verified: data.verified ?? false,
    metrics: data.public_metrics ?? null,
  };
}

const getMe = defineTool({
  slug: "X_GET_ME",
  name: "Get the connected X account",
  description:
    "Reads the connected account: { id, username, name, description, metrics }. Its id lists its own posts with X_LIST_USER_POSTS.",
  input: z.object({}),
  annotations: { readOnly: true, idempotent: true },
  async run(_args, ctx) {
    return user(dataOf(await getJson(ctx, "/users/me", { "user.fields": USER_FIELDS }), "connected user"));
  },
});

const getUser = defineTool({
  slug: "X_GET_USER",
  name: "Get an X user by username",
  description: "Looks up an account by its @username: { id, username, name, description, createdAt, verified, metrics (followers...) }.",
  input: z.object({
    username: z
      .string()
      .regex(/^@?[A-Za-z0-9_]{1,15}$/, "must be an X username")
      .describe("The username, with or without @."),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const name = args.username.replace(/^@/, "");
    return user(dataOf(await getJson(ctx, `/users/by/username/${segment(name)}`, { "user.fields": USER_FIELDS }), `user @${name}`));
  },
});

const searchPosts = defineTool({
  slug: "X_SEARCH_POSTS",
  name: "Search recent X posts",
  description:
    "Searches posts of the last 7 days with X's query syntax, e.g. `openai -is:retweet lang:en`, `from:nasa has:media`, " +
    "`#launch`. Returns { results: [{ id, text, authorUsername, createdAt, metrics, url }], nextCursor }, newest first.",
  input: z.object({
    query: z.string().min(1).max(512).describe("The search query (at most 512 characters)."),
    cursor: nextToken,
    limit: z.number().int().min(10).max(100).default(10).describe("Posts per page (10 to 100, default 10)."),
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  async run(args, ctx) {
    const answer = (await getJson(ctx, "/tweets/search/recent", {
      query: args.query,
      max_results: args.limit,
      next_token: args.cursor,
      "tweet.fields": TWEET_FIELDS,
      expansions: "author_id",
      "user.fields": "username",
    })) as Page;
    return { results: posts(answer), nextCursor: answer.meta?.next_token ?? null };
  },
});

const listUserPosts = defineTool({
  slug: "X_LIST_USER_POSTS",
  name: "List an X user's posts",
  description:
    "Lists a user's posts, newest first: { results: [{ id, text, createdAt, metrics, url }], nextCursor }. Replies and reposts are " +
    "left out unless asked for.",
  input: z.object({
    userId,
    includeReplies: z.boolean().default(false).describe("Include the user's replies."),
    includeReposts: z.boolean().default(false).describe("Include the user's reposts."),
    cursor: nextToken,
    limit: z.number().int().min(5).max(100).default(20).describe("Posts per page (5 to 100, default 20)."),
  }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const exclude = [args.includeReplies ? null : "replies", args.includeReposts ? null : "retweets"].filter(Boolean).join(",");
    const answer = (await getJson(ctx, `/users/${segment(args.userId)}/tweets`, {
      max_results: args.limit,
      pagination_token: args.cursor,
      exclude: exclude || undefined,
      "tweet.fields": TWEET_FIELDS,
      expansions: "author_id",
      "user.fields": "username",
    })) as Page;
    return { results: posts(answer), nextCursor: answer.meta?.next_token ?? null };
  },
});

const getPost = defineTool({
  slug: "X_GET_POST",
  name: "Get an X post",
  description: "Reads one post by id: text, author, time, conversation id and metrics (likes, reposts, replies, quotes).",
  input: z.object({ postId }),
  annotations: { readOnly: true, idempotent: true },
  async run(args, ctx) {
    const answer = await getJson(ctx, `/tweets/${segment(args.postId)}`, {
      "tweet.fields": TWEET_FIELDS,
      expansions: "author_id",
      "user.fields": "username",
    });
    const data = dataOf(answer, `post ${args.postId}`);
    return posts({ data: [data], includes: answer.includes as Page["includes"] })[0];
  },
});

const createPost = defineTool({
  slug: "X_CREATE_POST",
  name: "Post on X",
  description:
    "Publishes a post (a tweet) as the connected account, optionally as a reply or a quote, with up to 4 media ids from X_UPLOAD_MEDIA. " +
    "Returns { id, text, url }.",
  input: z.object({
    text: z.string().max(25_000).optional().describe("The post's text (280 characters for most accounts); optional with media."),
    replyTo: postId.optional().describe("Id of the post to reply to."),
    quote: postId.optional().describe("Id of the post to quote."),
    mediaIds: z
      .array(z.string().regex(/^\d{1,20}$/))
      .max(4)
      .optional()
      .describe("Media ids from X_UPLOAD_MEDIA (up to 4 images, or 1 video or GIF)."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  async run(args, ctx) {
    if (!args.text && !args.mediaIds?.length) throw invalidArguments("Give the post's text, media, or both.");
    const answer = await requestJson<Json>(ctx, X, "/tweets", {
      method: "POST",
      json: {
        text: args.text,
        reply: args.replyTo ? { in_reply_to_tweet_id: args.replyTo } : undefined,
        quote_tweet_id: args.quote,
        media: args.mediaIds?.length ? { media_ids: args.mediaIds } : undefined,
      },
    });
    const data = dataOf(answer, "created post");
    return { id: data.id, text: data.text, url: `https://x.com/i/web/status/${String(data.id)}` };
  },
});

const deletePost = defineTool({
  slug: "X_DELETE_POST",
  name: "Delete an X post",
  description: "Deletes one of the connected account's posts. Returns { postId, deleted }.",
  input: z.object({ postId }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  async run(args, ctx) {
    const answer = await requestJson<Json>(ctx, X, `/tweets/${segment(args.postId)}`, { method: "DELETE" });
    return { postId: args.postId, deleted: field(field(answer, "data"), "deleted") === true };
  },
});

/** Largest file this one-request upload sends: X's image limit; videos need the chunked upload this tool does not do. */
const SIMPLE_UPLOAD_MAX = 5 * 1024 * 1024;
const CATEGORIES = { image: "tweet_image", gif: "tweet_gif" } as const;

const uploadMedia = defineTool({
  slug: "X_UPLOAD_MEDIA",
  name: "Upload an image to X",
  description:
    "Uploads a staged image or GIF (POST /upload first, at most 5 MB) for a post. Returns { mediaId }, to pass in X_CREATE_POST's " +
    "mediaIds. Needs the media.write scope.",
  input: z.object({ file: stagedFile("Staging key of the image, from POST /upload.") }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  async run(args, ctx) {
    const file = await ctx.files.get(args.file);
    if (!file.contentType.startsWith("image/"))
      throw invalidArguments(`${file.name} is ${file.contentType}; only images and GIFs are uploaded here.`);
    if (file.size > SIMPLE_UPLOAD_MAX) throw invalidArguments(`${file.name} is larger than 5 MB, X's limit for an image.`);
    const form = new FormData();
    form.append("media", new Blob([(await file.bytes()) as BlobPart], { type: file.contentType }), file.name);
    form.append("media_category", file.contentType === "image/gif" ? CATEGORIES.gif : CATEGORIES.image);
    const data = dataOf(await requestJson<Json>(ctx, X, "/media/upload", { method: "POST", body: form }), "uploaded media");
    return { mediaId: data.id, mediaKey: data.media_key ?? null };
  },
});

/** X's curated tools: accounts, recent search, timelines, posts read, published and deleted, images uploaded. */
export const xTools: Tool[] = [getMe, getUser, searchPosts, listUserPosts, getPost, createPost, deletePost, uploadMedia];
