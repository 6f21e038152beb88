/**
 * YouTube's curated tools over an emulation of the YouTube Data API v3. Answer shapes follow Google's reference:
 * https://developers.google.com/youtube/v3/docs/search/list
 * https://developers.google.com/youtube/v3/docs/videos/list
 * https://developers.google.com/youtube/v3/docs/channels/list
 * https://developers.google.com/youtube/v3/docs/playlistItems/list and /insert
 * https://developers.google.com/youtube/v3/docs/playlists/insert
 * https://developers.google.com/youtube/v3/docs/commentThreads/list and /insert
 * https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol
 * https://developers.google.com/youtube/v3/docs/errors
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { youtubeTools } from "../../../src/catalog/tools/youtube.js";
import { expectAuthorized, reply, toolkitHarness } from "./support.js";

const API = "https://www.googleapis.com/youtube/v3";
const UPLOAD = "https://www.googleapis.com/upload/youtube/v3";
let t: Awaited<ReturnType<typeof toolkitHarness>>;

beforeAll(async () => {
  t = await toolkitHarness({ slug: "youtube", name: "YouTube", baseUrl: [API, UPLOAD], tools: youtubeTools });
});
afterAll(() => t.close());

const video = (id: string) => ({
  kind: "youtube#video",
  etag: "e",
  id,
  snippet: {
    title: `Video ${id}`,
    description: "About it",
    channelId: "UC1",
    channelTitle: "Chan",
    publishedAt: "2024-01-01T00:00:00Z",
    tags: ["a"],
  },
  contentDetails: { duration: "PT4M13S", definition: "hd", caption: "false" },
  statistics: { viewCount: "1000", likeCount: "50", favoriteCount: "0", commentCount: "7" },
  status: { uploadStatus: "processed", privacyStatus: "public" },
});

describe("reading", () => {
  it("YOUTUBE_SEARCH_VIDEOS sends the search and returns the next page token", async () => {
    t.api.answer(() =>
      reply({
        kind: "youtube#searchListResponse",
        nextPageToken: "CAUQAA",
        regionCode: "US",
        pageInfo: { totalResults: 1000000, resultsPerPage: 2 },
        items: [
          {
            kind: "youtube#searchResult",
            id: { kind: "youtube#video", videoId: "dQw4w9WgXcQ" },
            snippet: { title: "Song", channelId: "UC1", channelTitle: "Chan", publishedAt: "2009-10-25T06:57:33Z", description: "d" },
          },
          { kind: "youtube#searchResult", id: { kind: "youtube#channel", channelId: "UC2" }, snippet: { title: "A channel" } },
        ],
      }),
    );
    const result = await t.execute("YOUTUBE_SEARCH_VIDEOS", { query: "never gonna", maxResults: 2, pageToken: "CAIQAA" });
    expect(result.successful, result.error ?? "").toBe(true);
    const [request] = t.api.sent;
    expect(request!.method).toBe("GET");
    expect(request!.url.origin + request!.url.pathname).toBe(`${API}/search`);
    expect(Object.fromEntries(request!.url.searchParams)).toEqual({
      part: "snippet",
      q: "never gonna",
      type: "video",
      order: "relevance",
      maxResults: "2",
      pageToken: "CAIQAA",
    });
    expectAuthorized(t.api.sent);
    expect(result.data.nextPageToken).toBe("CAUQAA");
    expect(result.data.totalResults).toBe(1000000);
    expect(result.data.items[0]).toEqual({
      kind: "video",
      id: "dQw4w9WgXcQ",
      title: "Song",
      description: "d",
      channelId: "UC1",
      channelTitle: "Chan",
      publishedAt: "2009-10-25T06:57:33Z",
      url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    });
    expect(result.data.items[1]).toMatchObject({ kind: "channel", id: "UC2", url: "https://www.youtube.com/channel/UC2" });
  });

  it("YOUTUBE_SEARCH_VIDEOS on the last page has no token", async () => {
    t.api.answer(() => reply({ kind: "youtube#searchListResponse", pageInfo: { totalResults: 0, resultsPerPage: 10 }, items: [] }));
    const result = await t.execute("YOUTUBE_SEARCH_VIDEOS", { query: "zzzz" });
    expect(result.data).toEqual({ items: [], totalResults: 0, nextPageToken: null });
  });

  it("YOUTUBE_GET_VIDEOS asks for the parts it returns, by comma-separated ids", async () => {
    t.api.answer(() =>
      reply({ kind: "youtube#videoListResponse", items: [video("abcdefghijk")], pageInfo: { totalResults: 1, resultsPerPage: 1 } }),
    );
    const result = await t.execute("YOUTUBE_GET_VIDEOS", { videoIds: ["abcdefghijk", "missingvid1"] });
    const url = t.api.sent[0]!.url;
    expect(url.pathname).toBe("/youtube/v3/videos");
    expect(url.searchParams.get("part")).toBe("snippet,contentDetails,statistics,status");
    expect(url.searchParams.get("id")).toBe("abcdefghijk,missingvid1");
    expect(result.data.videos).toEqual([
      {
        id: "abcdefghijk",
        title: "Video abcdefghijk",
        description: "About it",
        channelId: "UC1",
        channelTitle: "Chan",
        publishedAt: "2024-01-01T00:00:00Z",
        tags: ["a"],
        duration: "PT4M13S",
        hasCaptions: false,
        viewCount: 1000,
        likeCount: 50,
        commentCount: 7,
        privacyStatus: "public",
        uploadStatus: "processed",
        url: "https://www.youtube.com/watch?v=abcdefghijk",
      },
    ]);
  });

  it("YOUTUBE_GET_MY_CHANNEL returns the uploads playlist, and says what to do without a channel", async () => {
    t.api.answer(() =>
      reply({
        items: [
          {
            id: "UC1",
            snippet: { title: "Chan", description: "", customUrl: "@chan" },
            statistics: { viewCount: "10", subscriberCount: "3", hiddenSubscriberCount: false, videoCount: "2" },
            contentDetails: { relatedPlaylists: { likes: "LL", uploads: "UU1" } },
          },
        ],
      }),
    );
    const result = await t.execute("YOUTUBE_GET_MY_CHANNEL", {});
    expect(Object.fromEntries(t.api.sent[0]!.url.searchParams)).toEqual({ part: "snippet,statistics,contentDetails", mine: "true" });
    expect(result.data).toMatchObject({ id: "UC1", handle: "@chan", subscriberCount: 3, videoCount: 2, uploadsPlaylistId: "UU1" });

    t.api.answer(() => reply({ kind: "youtube#channelListResponse", pageInfo: { totalResults: 0, resultsPerPage: 5 } }));
    const none = await t.execute("YOUTUBE_GET_MY_CHANNEL", {});
    expect(none).toMatchObject({ successful: false, code: "not_found" });
    expect(none.error).toMatch(/has no YouTube channel/);
  });

  it("YOUTUBE_LIST_PLAYLIST_ITEMS pages a playlist", async () => {
    t.api.answer(() =>
      reply({
        nextPageToken: "EAAaBlBUOkNBVQ",
        pageInfo: { totalResults: 30, resultsPerPage: 1 },
        items: [
          {
            id: "UExp",
            snippet: {
              title: "First",
              position: 0,
              resourceId: { kind: "youtube#video", videoId: "abcdefghijk" },
              videoOwnerChannelTitle: "Chan",
            },
            contentDetails: { videoId: "abcdefghijk", videoPublishedAt: "2024-01-01T00:00:00Z" },
          },
        ],
      }),
    );
    const result = await t.execute("YOUTUBE_LIST_PLAYLIST_ITEMS", { playlistId: "UU1", maxResults: 1 });
    expect(t.api.sent[0]!.url.pathname).toBe("/youtube/v3/playlistItems");
    expect(Object.fromEntries(t.api.sent[0]!.url.searchParams)).toEqual({
      part: "snippet,contentDetails",
      playlistId: "UU1",
      maxResults: "1",
    });
    expect(result.data).toEqual({
      items: [
        { id: "UExp", position: 0, videoId: "abcdefghijk", title: "First", videoPublishedAt: "2024-01-01T00:00:00Z", channelTitle: "Chan" },
      ],
      totalResults: 30,
      nextPageToken: "EAAaBlBUOkNBVQ",
    });
  });

  it("YOUTUBE_LIST_COMMENTS reads plain-text comment threads", async () => {
    t.api.answer(() =>
      reply({
        nextPageToken: "QURTSl",
        items: [
          {
            id: "Ugx1",
            snippet: {
              videoId: "abcdefghijk",
              totalReplyCount: 2,
              topLevelComment: {
                id: "Ugx1",
                snippet: {
                  authorDisplayName: "@viewer",
                  textDisplay: "Great video",
                  textOriginal: "Great video",
                  likeCount: 4,
                  publishedAt: "2024-02-01T00:00:00Z",
                },
              },
            },
          },
        ],
      }),
    );
    const result = await t.execute("YOUTUBE_LIST_COMMENTS", { videoId: "abcdefghijk", maxResults: 1 });
    expect(t.api.sent[0]!.url.searchParams.get("textFormat")).toBe("plainText");
    expect(t.api.sent[0]!.url.searchParams.get("order")).toBe("time");
    expect(result.data).toEqual({
      items: [
        {
          threadId: "Ugx1",
          commentId: "Ugx1",
          videoId: "abcdefghijk",
          author: "@viewer",
          text: "Great video",
          likeCount: 4,
          replyCount: 2,
          publishedAt: "2024-02-01T00:00:00Z",
        },
      ],
      nextPageToken: "QURTSl",
    });
  });

  it("reports the quota error with its reason and when to retry", async () => {
    t.api.answer(() =>
      reply(
        {
          error: {
            code: 403,
            message: "The request cannot be completed because you have exceeded your quota.",
            errors: [
              {
                message: "The request cannot be completed because you have exceeded your quota.",
                domain: "youtube.quota",
                reason: "quotaExceeded",
              },
            ],
          },
        },
        403,
      ),
    );
    const result = await t.execute("YOUTUBE_SEARCH_VIDEOS", { query: "x" });
    expect(result).toMatchObject({ successful: false, code: "upstream_error", upstreamStatus: 403 });
    expect(result.error).toMatch(
      /^YouTube answered 403: The request cannot be completed because you have exceeded your quota \(quotaExceeded\)\. .*quota is spent/,
    );
  });
});

describe("writing", () => {
  it("YOUTUBE_CREATE_COMMENT posts a comment thread", async () => {
    t.api.answer(() =>
      reply({
        id: "Ugz9",
        snippet: {
          videoId: "abcdefghijk",
          totalReplyCount: 0,
          topLevelComment: {
            id: "Ugz9",
            snippet: { authorDisplayName: "@me", textDisplay: "Thanks!", likeCount: 0, publishedAt: "2024-03-01T00:00:00Z" },
          },
        },
      }),
    );
    const result = await t.execute("YOUTUBE_CREATE_COMMENT", { videoId: "abcdefghijk", text: "Thanks!" });
    expect(t.api.sent[0]!.method).toBe("POST");
    expect(t.api.sent[0]!.url.pathname + t.api.sent[0]!.url.search).toBe("/youtube/v3/commentThreads?part=snippet");
    expect(t.api.sent[0]!.json()).toEqual({
      snippet: { videoId: "abcdefghijk", topLevelComment: { snippet: { textOriginal: "Thanks!" } } },
    });
    expect(result.data).toMatchObject({ threadId: "Ugz9", text: "Thanks!", author: "@me" });
  });

  it("YOUTUBE_CREATE_COMMENT reports comments turned off", async () => {
    t.api.answer(() =>
      reply(
        {
          error: {
            code: 403,
            message: "The video identified by the videoId parameter has disabled comments.",
            errors: [{ reason: "commentsDisabled", domain: "youtube.commentThread" }],
          },
        },
        403,
      ),
    );
    const result = await t.execute("YOUTUBE_CREATE_COMMENT", { videoId: "abcdefghijk", text: "Hi" });
    expect(result.error).toMatch(/has disabled comments \(commentsDisabled\)/);
  });

  it("YOUTUBE_CREATE_PLAYLIST creates a private playlist by default", async () => {
    t.api.answer(() => reply({ id: "PL9", snippet: { title: "Mix" }, status: { privacyStatus: "private" } }));
    const result = await t.execute("YOUTUBE_CREATE_PLAYLIST", { title: "Mix" });
    expect(t.api.sent[0]!.url.searchParams.get("part")).toBe("snippet,status");
    expect(t.api.sent[0]!.json()).toEqual({ snippet: { title: "Mix" }, status: { privacyStatus: "private" } });
    expect(result.data).toEqual({ id: "PL9", title: "Mix", privacyStatus: "private", url: "https://www.youtube.com/playlist?list=PL9" });
  });

  it("YOUTUBE_ADD_PLAYLIST_ITEM adds a video by resourceId", async () => {
    t.api.answer(() => reply({ id: "UExQ", snippet: { playlistId: "PL9", position: 0, title: "Video" } }));
    const result = await t.execute("YOUTUBE_ADD_PLAYLIST_ITEM", { playlistId: "PL9", videoId: "abcdefghijk", position: 0 });
    expect(t.api.sent[0]!.json()).toEqual({
      snippet: { playlistId: "PL9", position: 0, resourceId: { kind: "youtube#video", videoId: "abcdefghijk" } },
    });
    expect(result.data).toEqual({ id: "UExQ", playlistId: "PL9", videoId: "abcdefghijk", position: 0, title: "Video" });
  });

  it("YOUTUBE_UPLOAD_VIDEO starts a resumable session and streams the staged file to its Location", async () => {
    // An MP4's first box is `ftyp`, which the upload route's type check looks for.
    const bytes = new Uint8Array(3000).map((_, i) => i % 251);
    bytes.set([0, 0, 0, 0x18, ...new TextEncoder().encode("ftypisom")]);
    const key = await t.upload(new Blob([bytes]), "video/mp4", "clip.mp4");
    const session = `${UPLOAD}/videos?uploadType=resumable&part=snippet,status&upload_id=xa298sd_f`;
    t.api.answer((request) =>
      request.method === "POST"
        ? new Response(null, { status: 200, headers: { location: session } })
        : reply({ ...video("newvideo123"), status: { uploadStatus: "uploaded", privacyStatus: "private" } }),
    );
    const result = await t.execute("YOUTUBE_UPLOAD_VIDEO", { file: key, title: "Clip", tags: ["demo"] });
    expect(result.successful, result.error ?? "").toBe(true);
    const [start, put] = t.api.sent;
    expect(start!.url.origin + start!.url.pathname).toBe(`${UPLOAD}/videos`);
    expect(Object.fromEntries(start!.url.searchParams)).toEqual({ uploadType: "resumable", part: "snippet,status" });
    expect(start!.headers.get("x-upload-content-length")).toBe("3000");
    expect(start!.headers.get("x-upload-content-type")).toBe("video/mp4");
    expect(start!.json()).toEqual({
      snippet: { title: "Clip", tags: ["demo"] },
      status: { privacyStatus: "private", selfDeclaredMadeForKids: false },
    });
    expect(put!.method).toBe("PUT");
    expect(put!.url.href).toBe(session);
    expect(put!.headers.get("content-type")).toBe("video/mp4");
    expect(put!.bytes).toEqual(bytes);
    expectAuthorized(t.api.sent);
    expect(result.data).toMatchObject({ id: "newvideo123", privacyStatus: "private", uploadStatus: "uploaded" });
  });
});
