// YouTube's curated tools. Facts from the YouTube Data API v3 reference and guides:
// https://developers.google.com/youtube/v3/docs/search/list (q, type, order, maxResults 0-50, pageToken, nextPageToken, pageInfo)
// https://developers.google.com/youtube/v3/docs/videos/list (id, part snippet,contentDetails,statistics,status)
// https://developers.google.com/youtube/v3/docs/channels/list (mine, contentDetails.relatedPlaylists.uploads)
// https://developers.google.com/youtube/v3/docs/playlistItems/list and /insert (snippet.resourceId, position)
// https://developers.google.com/youtube/v3/docs/playlists/insert (snippet, status.privacyStatus)
// https://developers.google.com/youtube/v3/docs/commentThreads/list and /insert (maxResults 1-100, textFormat, topLevelComment)
// https://developers.google.com/youtube/v3/docs/videos/insert (the upload endpoint, scopes, private until the project is audited)
// https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol (X-Upload-Content-Length/-Type, Location, PUT)
// https://developers.google.com/youtube/v3/docs/errors (error.errors[].reason, e.g. quotaExceeded, commentsDisabled)
import { z } from "zod";
import { ToolRunError } from "../../core/tool-error.js";
import { defineTool, stagedFile, type Tool } from "../../toolkits/define.js";
import { type ProviderErrors, request, requestJson, upstreamError } from "../../toolkits/provider-requests.js";
import { field } from "./content.js";

/** Google's message, with the reason of the first item of `error.errors` (e.g. quotaExceeded), which says more than the status. */
function youtubeReason(body: unknown): string | undefined {
  const error = field(body, "error");
  const message = field(error, "message");
  if (typeof message !== "string") return typeof error === "string" ? error : undefined;
  const errors = field(error, "errors");
  const reason = Array.isArray(errors) ? field(errors[0], "reason") : undefined;
  const text = message.trim().replace(/\.$/, "");
  return typeof reason === "string" && !message.includes(reason) ? `${text} (${reason})` : text;
}

const YOUTUBE: ProviderErrors = {
  name: "YouTube",
  reason: youtubeReason,
  hints: {
    403:
      "The reason in brackets says why: quotaExceeded means the project's daily quota is spent (it resets at midnight Pacific time); " +
      "insufficientPermissions means a missing scope (reconnect with the YouTube scopes); others are the video's or channel's settings.",
  },
};
const UPLOAD = "https://www.googleapis.com/upload/youtube/v3";
const READ = ["https://www.googleapis.com/auth/youtube.readonly"];
const WRITE = ["https://www.googleapis.com/auth/youtube.force-ssl"];

const videoId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{6,20}$/, "must be a video id such as dQw4w9WgXcQ")
  .meta({ description: "The video's id, e.g. `dQw4w9WgXcQ` (the `v` of its watch URL)." });
const playlistId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{2,64}$/, "must be a playlist id")
  .meta({ description: "The playlist's id, e.g. `PLxxxx`, or a channel's uploads playlist from YOUTUBE_GET_MY_CHANNEL." });
const pageToken = z.string().max(500).optional().meta({ description: "The `nextPageToken` of the previous result, for the next page." });
const maxResults = (max: number, fallback: number) =>
  z
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .meta({ description: `Items per page, 1 to ${max} (default ${fallback}).` });

interface Snippet {
  title?: string;
  description?: string;
  channelId?: string;
  channelTitle?: string;
  publishedAt?: string;
  tags?: string[];
  categoryId?: string;
}
interface ListAnswer<T> {
  items?: T[];
  nextPageToken?: string;
  pageInfo?: { totalResults?: number };
}

const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${id}`;
const count = (value: string | undefined) => (value === undefined ? null : Number(value));

const searchVideos = defineTool({
  slug: "YOUTUBE_SEARCH_VIDEOS",
  name: "Search videos",
  description:
    "Searches YouTube for videos (or channels or playlists with `type`) matching words, optionally within one channel or after a date. " +
    "Returns `items` (kind, id, title, description, channel, publishedAt, url), `totalResults` (an estimate) and `nextPageToken`. " +
    "Use YOUTUBE_GET_VIDEOS for durations and view counts. A search costs 100 units of the daily quota.",
  input: z.object({
    query: z.string().min(1).max(500).meta({ description: "Words to search for; `-word` excludes, `a|b` means either." }),
    type: z.enum(["video", "channel", "playlist"]).default("video").meta({ description: "What to find (default video)." }),
    order: z
      .enum(["relevance", "date", "viewCount", "rating", "title"])
      .default("relevance")
      .meta({ description: "Sort order (default relevance)." }),
    channelId: z.string().max(64).optional().meta({ description: "Only results from this channel id (UC...)." }),
    publishedAfter: z.iso.datetime().optional().meta({ description: "Only results published after this time, e.g. 2024-01-01T00:00:00Z." }),
    maxResults: maxResults(50, 10),
    pageToken,
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  scopes: READ,
  async run(args, ctx) {
    const answer = await requestJson<
      ListAnswer<{ id: { kind: string; videoId?: string; channelId?: string; playlistId?: string }; snippet?: Snippet }>
    >(ctx, YOUTUBE, "/search", {
      query: {
        part: "snippet",
        q: args.query,
        type: args.type,
        order: args.order,
        channelId: args.channelId,
        publishedAfter: args.publishedAfter,
        maxResults: args.maxResults,
        pageToken: args.pageToken,
      },
    });
    return {
      items: (answer.items ?? []).map((item) => {
        const kind = item.id.kind.replace(/^youtube#/, "");
        const id = item.id.videoId ?? item.id.channelId ?? item.id.playlistId ?? "";
        const url =
          kind === "video"
            ? watchUrl(id)
            : kind === "channel"
              ? `https://www.youtube.com/channel/${id}`
              : `https://www.youtube.com/playlist?list=${id}`;
        return {
          kind,
          id,
          title: item.snippet?.title ?? null,
          description: item.snippet?.description ?? null,
          channelId: item.snippet?.channelId ?? null,
          channelTitle: item.snippet?.channelTitle ?? null,
          publishedAt: item.snippet?.publishedAt ?? null,
          url,
        };
      }),
      totalResults: answer.pageInfo?.totalResults ?? null,
      nextPageToken: answer.nextPageToken ?? null,
    };
  },
});

interface Video {
  id: string;
  snippet?: Snippet;
  contentDetails?: { duration?: string; definition?: string; caption?: string };
  statistics?: { viewCount?: string; likeCount?: string; commentCount?: string };
  status?: { privacyStatus?: string; uploadStatus?: string; madeForKids?: boolean };
}

const videoSummary = (video: Video) => ({
  id: video.id,
  title: video.snippet?.title ?? null,
  description: video.snippet?.description ?? null,
  channelId: video.snippet?.channelId ?? null,
  channelTitle: video.snippet?.channelTitle ?? null,
  publishedAt: video.snippet?.publishedAt ?? null,
  tags: video.snippet?.tags ?? [],
  duration: video.contentDetails?.duration ?? null,
  hasCaptions: video.contentDetails?.caption === undefined ? null : video.contentDetails.caption === "true",
  viewCount: count(video.statistics?.viewCount),
  likeCount: count(video.statistics?.likeCount),
  commentCount: count(video.statistics?.commentCount),
  privacyStatus: video.status?.privacyStatus ?? null,
  uploadStatus: video.status?.uploadStatus ?? null,
  url: watchUrl(video.id),
});

const getVideos = defineTool({
  slug: "YOUTUBE_GET_VIDEOS",
  name: "Get videos",
  description:
    "Gets up to 50 videos by id: title, full description, channel, publish time, tags, duration (ISO 8601, e.g. PT4M13S), " +
    "view, like and comment counts, privacy and upload status. Ids that do not exist are left out of `videos`.",
  input: z.object({ videoIds: z.array(videoId).min(1).max(50).meta({ description: "Ids of the videos." }) }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  scopes: READ,
  async run(args, ctx) {
    const answer = await requestJson<ListAnswer<Video>>(ctx, YOUTUBE, "/videos", {
      query: { part: "snippet,contentDetails,statistics,status", id: args.videoIds.join(","), maxResults: 50 },
    });
    return { videos: (answer.items ?? []).map(videoSummary) };
  },
});

const getMyChannel = defineTool({
  slug: "YOUTUBE_GET_MY_CHANNEL",
  name: "Get my channel",
  description:
    "Gets the connected account's channel: id, title, description, handle, subscriber, video and view counts, and `uploadsPlaylistId`, " +
    "the playlist of its uploads (list it with YOUTUBE_LIST_PLAYLIST_ITEMS).",
  input: z.object({}),
  annotations: { readOnly: true, idempotent: true },
  scopes: READ,
  async run(_args, ctx) {
    const answer = await requestJson<
      ListAnswer<{
        id: string;
        snippet?: Snippet & { customUrl?: string };
        statistics?: { subscriberCount?: string; videoCount?: string; viewCount?: string; hiddenSubscriberCount?: boolean };
        contentDetails?: { relatedPlaylists?: { uploads?: string } };
      }>
    >(ctx, YOUTUBE, "/channels", { query: { part: "snippet,statistics,contentDetails", mine: true } });
    const channel = answer.items?.[0];
    if (!channel) {
      throw new ToolRunError("The connected Google account has no YouTube channel; create one on youtube.com, then call again.", {
        code: "not_found",
        retryable: false,
      });
    }
    return {
      id: channel.id,
      title: channel.snippet?.title ?? null,
      description: channel.snippet?.description ?? null,
      handle: channel.snippet?.customUrl ?? null,
      subscriberCount: channel.statistics?.hiddenSubscriberCount ? null : count(channel.statistics?.subscriberCount),
      videoCount: count(channel.statistics?.videoCount),
      viewCount: count(channel.statistics?.viewCount),
      uploadsPlaylistId: channel.contentDetails?.relatedPlaylists?.uploads ?? null,
      url: `https://www.youtube.com/channel/${channel.id}`,
    };
  },
});

const listPlaylistItems = defineTool({
  slug: "YOUTUBE_LIST_PLAYLIST_ITEMS",
  name: "List playlist items",
  description:
    "Lists the videos of a playlist in order (a channel's uploads included): item id, position, videoId, title, the video's " +
    "publish time and its channel. Returns `items`, `totalResults` and `nextPageToken`.",
  input: z.object({ playlistId, maxResults: maxResults(50, 25), pageToken }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  scopes: READ,
  async run(args, ctx) {
    const answer = await requestJson<
      ListAnswer<{
        id: string;
        snippet?: Snippet & { position?: number; resourceId?: { videoId?: string }; videoOwnerChannelTitle?: string };
        contentDetails?: { videoId?: string; videoPublishedAt?: string };
      }>
    >(ctx, YOUTUBE, "/playlistItems", {
      query: { part: "snippet,contentDetails", playlistId: args.playlistId, maxResults: args.maxResults, pageToken: args.pageToken },
    });
    return {
      items: (answer.items ?? []).map((item) => ({
        id: item.id,
        position: item.snippet?.position ?? null,
        videoId: item.contentDetails?.videoId ?? item.snippet?.resourceId?.videoId ?? null,
        title: item.snippet?.title ?? null,
        videoPublishedAt: item.contentDetails?.videoPublishedAt ?? null,
        channelTitle: item.snippet?.videoOwnerChannelTitle ?? null,
      })),
      totalResults: answer.pageInfo?.totalResults ?? null,
      nextPageToken: answer.nextPageToken ?? null,
    };
  },
});

interface CommentThread {
  id: string;
  snippet?: {
    videoId?: string;
    totalReplyCount?: number;
    topLevelComment?: {
      id: string;
      snippet?: { authorDisplayName?: string; textDisplay?: string; textOriginal?: string; likeCount?: number; publishedAt?: string };
    };
  };
}
const threadSummary = (thread: CommentThread) => {
  const comment = thread.snippet?.topLevelComment;
  return {
    threadId: thread.id,
    commentId: comment?.id ?? null,
    videoId: thread.snippet?.videoId ?? null,
    author: comment?.snippet?.authorDisplayName ?? null,
    text: comment?.snippet?.textDisplay ?? comment?.snippet?.textOriginal ?? null,
    likeCount: comment?.snippet?.likeCount ?? 0,
    replyCount: thread.snippet?.totalReplyCount ?? 0,
    publishedAt: comment?.snippet?.publishedAt ?? null,
  };
};

const listComments = defineTool({
  slug: "YOUTUBE_LIST_COMMENTS",
  name: "List video comments",
  description:
    "Lists the top-level comments of a video as plain text, newest first or by relevance, optionally only those containing words. " +
    "Returns `items` (threadId, commentId, author, text, likeCount, replyCount, publishedAt) and `nextPageToken`.",
  input: z.object({
    videoId,
    order: z.enum(["time", "relevance"]).default("time").meta({ description: "time (default, newest first) or relevance." }),
    searchTerms: z.string().max(200).optional().meta({ description: "Only comments containing these words." }),
    maxResults: maxResults(100, 20),
    pageToken,
  }),
  annotations: { readOnly: true, idempotent: true, openWorld: true },
  scopes: READ,
  async run(args, ctx) {
    const answer = await requestJson<ListAnswer<CommentThread>>(ctx, YOUTUBE, "/commentThreads", {
      query: {
        part: "snippet",
        videoId: args.videoId,
        order: args.order,
        searchTerms: args.searchTerms,
        textFormat: "plainText",
        maxResults: args.maxResults,
        pageToken: args.pageToken,
      },
    });
    return { items: (answer.items ?? []).map(threadSummary), nextPageToken: answer.nextPageToken ?? null };
  },
});

const createComment = defineTool({
  slug: "YOUTUBE_CREATE_COMMENT",
  name: "Comment on video",
  description: "Posts a top-level comment on a video as the connected channel. Returns the new thread's ids, text and time.",
  input: z.object({ videoId, text: z.string().min(1).max(10_000).meta({ description: "The comment's text." }) }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  scopes: WRITE,
  async run(args, ctx) {
    const thread = await requestJson<CommentThread>(ctx, YOUTUBE, "/commentThreads", {
      method: "POST",
      query: { part: "snippet" },
      json: { snippet: { videoId: args.videoId, topLevelComment: { snippet: { textOriginal: args.text } } } },
    });
    return threadSummary(thread);
  },
});

const privacyStatus = z.enum(["private", "unlisted", "public"]);

const createPlaylist = defineTool({
  slug: "YOUTUBE_CREATE_PLAYLIST",
  name: "Create playlist",
  description: "Creates a playlist on the connected channel, private unless asked otherwise. Returns its id, title, privacy and url.",
  input: z.object({
    title: z.string().min(1).max(150).meta({ description: "The playlist's title." }),
    description: z.string().max(5000).optional().meta({ description: "The playlist's description." }),
    privacyStatus: privacyStatus.default("private").meta({ description: "private (default), unlisted or public." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: WRITE,
  async run(args, ctx) {
    const playlist = await requestJson<{ id: string; snippet?: Snippet; status?: { privacyStatus?: string } }>(ctx, YOUTUBE, "/playlists", {
      method: "POST",
      query: { part: "snippet,status" },
      json: { snippet: { title: args.title, description: args.description }, status: { privacyStatus: args.privacyStatus } },
    });
    return {
      id: playlist.id,
      title: playlist.snippet?.title ?? args.title,
      privacyStatus: playlist.status?.privacyStatus ?? null,
      url: `https://www.youtube.com/playlist?list=${playlist.id}`,
    };
  },
});

const addPlaylistItem = defineTool({
  slug: "YOUTUBE_ADD_PLAYLIST_ITEM",
  name: "Add video to playlist",
  description: "Adds a video to one of the connected channel's playlists, at the end or at a position. Returns the item's id and position.",
  input: z.object({
    playlistId,
    videoId,
    position: z.number().int().min(0).optional().meta({ description: "Zero-based position; the end when left out." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false },
  scopes: WRITE,
  async run(args, ctx) {
    const item = await requestJson<{ id: string; snippet?: { position?: number; title?: string } }>(ctx, YOUTUBE, "/playlistItems", {
      method: "POST",
      query: { part: "snippet" },
      json: {
        snippet: { playlistId: args.playlistId, position: args.position, resourceId: { kind: "youtube#video", videoId: args.videoId } },
      },
    });
    return {
      id: item.id,
      playlistId: args.playlistId,
      videoId: args.videoId,
      position: item.snippet?.position ?? null,
      title: item.snippet?.title ?? null,
    };
  },
});

const uploadVideo = defineTool({
  slug: "YOUTUBE_UPLOAD_VIDEO",
  name: "Upload video",
  description:
    "Uploads a staged video file (POST /upload first) to the connected channel with a title, description, tags and privacy " +
    "(private by default). Returns the video's id, url, privacy and upload status; YouTube processes it afterwards. Videos uploaded " +
    "through a Google Cloud project that YouTube has not audited stay private. Costs 1,600 quota units.",
  input: z.object({
    file: stagedFile("Staging key of the video file, from POST /upload."),
    title: z.string().min(1).max(100).meta({ description: "The video's title (at most 100 characters, no < or >)." }),
    description: z.string().max(5000).optional().meta({ description: "The video's description." }),
    tags: z.array(z.string().min(1).max(100)).max(50).optional().meta({ description: "Keyword tags." }),
    categoryId: z
      .string()
      .regex(/^\d{1,3}$/)
      .optional()
      .meta({ description: "A video category id, e.g. 22 (People & Blogs), 27 (Education)." }),
    privacyStatus: privacyStatus.default("private").meta({ description: "private (default), unlisted or public." }),
    madeForKids: z.boolean().default(false).meta({ description: "Whether the video is made for children (default false)." }),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  scopes: WRITE,
  async run(args, ctx) {
    const file = await ctx.files.get(args.file);
    const contentType = file.contentType.startsWith("video/") ? file.contentType : "application/octet-stream";
    const session = await request(ctx, YOUTUBE, `${UPLOAD}/videos`, {
      method: "POST",
      query: { uploadType: "resumable", part: "snippet,status" },
      headers: { "x-upload-content-length": String(file.size), "x-upload-content-type": contentType },
      json: {
        snippet: { title: args.title, description: args.description, tags: args.tags, categoryId: args.categoryId },
        status: { privacyStatus: args.privacyStatus, selfDeclaredMadeForKids: args.madeForKids },
      },
    });
    const location = session.headers.get("location");
    if (!location) {
      throw new ToolRunError("YouTube started no upload session (its answer had no Location); try again.", {
        code: "upstream_error",
        retryable: true,
        upstreamStatus: session.status,
      });
    }
    // Streamed, not read into memory: a video can be gigabytes.
    const response = await ctx.fetch(location, {
      method: "PUT",
      headers: { "content-type": contentType, accept: "application/json" },
      body: await file.stream(),
      contentLength: file.size,
      signal: ctx.signal,
    });
    if (!response.ok) throw await upstreamError(response, YOUTUBE, ctx.rateLimit);
    return videoSummary((await response.json()) as Video);
  },
});

/** YouTube's curated tools: search, videos, the connected channel, playlists, comments and video upload. */
export const youtubeTools: Tool[] = [
  searchVideos,
  getVideos,
  getMyChannel,
  listPlaylistItems,
  listComments,
  createComment,
  createPlaylist,
  addPlaylistItem,
  uploadVideo,
];
