/**
 * Search over the whole catalog. Each query of the first table, run against every catalog provider
 * as a toolkit, must put the expected providers at the top; each query of the second, run against
 * every curated tool of the catalog, must find one of the expected tools in the top 3. The tables
 * are the definition of "search ranks well": change the scoring (src/toolkits/search.ts), a
 * provider's aliases, categories or description, or a curated tool's name or description, and this
 * says which queries got worse.
 */
import { describe, expect, it } from "vitest";
import { catalogToolkit, providers, providersByPopularity } from "../../src/catalog/index.js";
import popularity from "../../src/catalog/popularity.json" with { type: "json" };
import { rank, searchToolkits, searchTools as searchToolkitTools } from "../../src/toolkits/search.js";

// In the order `serve --catalog` lists them, which is the order search ties keep.
const toolkits = providersByPopularity.map((provider) => catalogToolkit(provider.slug, { clientId: "id" }));

interface Row {
  query: string;
  /** These providers come first, in any order among themselves. */
  first?: string[];
  /** These providers are all among the first `within` results. */
  top?: string[];
  within?: number;
}

const TABLE: Row[] = [
  // Ties keep the catalog's order, most connected first (popularity.json).
  { query: "zoho", first: ["zoho-crm"] },
  { query: "ecommerce", first: ["shopify"] },
  { query: "social", top: ["x", "facebook", "instagram", "linkedin"], within: 5 },
  { query: "crm", top: ["hubspot", "salesforce", "pipedrive", "attio", "zoho-crm"], within: 5 },
  { query: "project management", top: ["asana", "clickup", "monday", "trello", "jira"], within: 6 },
  // Names, slugs and aliases.
  { query: "github", first: ["github"] },
  { query: "gh", first: ["github"] },
  { query: "GitHub", first: ["github"] },
  { query: "google sheets", first: ["google-sheets"] },
  { query: "google mail", first: ["gmail"] },
  // Every Google product is as right an answer as Gmail or Drive: the first results are Google's.
  {
    query: "google",
    top: ["google-calendar", "google-drive", "google-sheets", "google-docs", "google-ads", "google-analytics", "google-bigquery"],
    within: 16,
  },
  // Excel, SharePoint and Power BI are Microsoft's too.
  { query: "microsoft", top: ["outlook", "onedrive", "microsoft-teams", "microsoft-graph", "microsoft-excel", "sharepoint"], within: 7 },
  { query: "twitter", first: ["x"] },
  { query: "tweet", first: ["x"] },
  // Zoho Books, Desk, Inventory and Mail answer to "zoho" as much as Zoho CRM.
  { query: "zoho", top: ["zoho-crm", "zoho-books", "zoho-desk", "zoho-inventory", "zoho-mail"], within: 5 },
  { query: "monday.com", first: ["monday"] },
  { query: "chatgpt", first: ["openai"] },
  { query: "todo", top: ["todoist", "asana"], within: 2 },
  { query: "sharepoint", first: ["sharepoint"] },
  { query: "bigquery", first: ["google-bigquery"] },
  { query: "excel", first: ["microsoft-excel"] },
  { query: "claude", first: ["anthropic"] },
  { query: "gemini", first: ["google-gemini"] },
  { query: "gpt", first: ["openai"] },
  { query: "sendinblue", first: ["brevo"] },
  { query: "amocrm", first: ["kommo"] },
  { query: "clubhouse", first: ["shortcut"] },
  { query: "ultipro", first: ["ukg-pro"] },
  { query: "sfdc", first: ["salesforce"] },
  { query: "11labs", first: ["elevenlabs"] },
  { query: "sap", first: ["sap-s4hana"] },
  { query: "cal.com", first: ["cal-com"] },
  { query: "service now", first: ["servicenow"] },
  { query: "fireflies", first: ["fireflies"] },
  { query: "posthog", first: ["posthog"] },
  { query: "jira server", top: ["jira-data-center", "jira"], within: 2 }, // Jira's generated tools include its server information
  { query: "ig", first: ["instagram"] },
  { query: "insta", first: ["instagram"] },
  { query: "whatsapp", first: ["whatsapp"] },
  { query: "fb", first: ["facebook"] },
  { query: "facebook ads", first: ["meta-ads"] },
  { query: "tiktok", first: ["tiktok"] },
  { query: "hellosign", first: ["dropbox-sign"] },
  { query: "zoho mail", first: ["zoho-mail"] },
  { query: "raisers edge", first: ["blackbaud"] },
  // Categories, singular or plural.
  { query: "email", first: ["gmail", "outlook"] },
  // Affinity, Close and Kommo are CRMs as much as Attio.
  { query: "crm", top: ["hubspot", "salesforce", "pipedrive", "attio", "zoho-crm"], within: 8 },
  { query: "tickets", top: ["jira", "linear", "zendesk"], within: 5 },
  { query: "ticket", top: ["jira", "linear", "zendesk"], within: 5 },
  { query: "calendar", first: ["google-calendar"], top: ["outlook"], within: 3 },
  { query: "files", top: ["google-drive", "dropbox", "box", "onedrive"], within: 5 },
  { query: "chat", top: ["slack", "microsoft-teams", "discord"], within: 5 },
  { query: "payments", first: ["stripe"] },
  { query: "design", first: ["figma", "canva"], top: ["miro"], within: 4 },
  { query: "spreadsheet", first: ["google-sheets"], top: ["airtable"], within: 3 },
  // FreshBooks, Harvest, Pennylane and PayPal send invoices too.
  { query: "invoices", top: ["stripe", "quickbooks", "xero"], within: 7 },
  // Pennylane is accounting software as much as Xero.
  { query: "accounting", first: ["quickbooks"], top: ["xero"], within: 3 },
  // BigCommerce, WooCommerce and Etsy sell online as much as Shopify.
  { query: "ecommerce", top: ["shopify", "bigcommerce", "woocommerce", "etsy", "stripe"], within: 5 },
  { query: "forms", first: ["typeform"] },
  { query: "incident", first: ["pagerduty"] },
  { query: "scheduling", first: ["calendly"] },
  { query: "sms", first: ["twilio"] },
  // Anthropic, Gemini and Mistral are as right as OpenAI; see the scoring rows at the end for the order.
  { query: "ai", top: ["openai", "anthropic", "google-gemini", "mistral"], within: 20 },
  { query: "website", first: ["webflow"] },
  { query: "code", top: ["github", "gitlab", "bitbucket"], within: 3 },
  { query: "git", top: ["github", "gitlab", "bitbucket"], within: 4 }, // gitlab-self-managed is the fourth git host
  // YouTube is the video site; Zoom still leads the video-call apps.
  { query: "video", first: ["youtube"], top: ["zoom"], within: 3 },
  // Facebook, Instagram, TikTok, Pinterest and Mastodon are as social as Reddit, and Typefully posts
  // to X and LinkedIn; equals go by name, and "X (Twitter)" sorts last among them.
  { query: "social", top: ["x", "linkedin", "reddit", "facebook", "instagram", "tiktok", "mastodon"], within: 10 },
  // Klaviyo, ActiveCampaign and Meta Ads are marketing platforms as much as Mailchimp.
  { query: "marketing", top: ["mailchimp", "hubspot", "klaviyo", "activecampaign", "meta-ads"], within: 7 },
  { query: "knowledge base", top: ["confluence"], within: 3 },
  // Wrike, Basecamp, Smartsheet and Rocketlane manage projects as much as Trello.
  { query: "project management", top: ["asana", "clickup", "monday", "trello"], within: 12 },
  // Help Scout, Pylon, Gorgias and Freshdesk are support desks as much as Front.
  { query: "customer support", top: ["zendesk", "intercom", "front"], within: 7 },
  { query: "llm", top: ["openai", "anthropic", "google-gemini", "mistral", "cohere", "groq", "openrouter"], within: 8 },
  { query: "data warehouse", first: ["snowflake", "google-bigquery"] },
  { query: "observability", first: ["datadog", "new-relic"] },
  { query: "error tracking", first: ["sentry"] },
  { query: "feature flags", first: ["launchdarkly"], top: ["posthog"], within: 2 },
  { query: "recruiting", top: ["greenhouse", "lever", "ashby", "workable", "breezy-hr"], within: 6 },
  { query: "ats", top: ["greenhouse", "lever", "ashby", "workable", "breezy-hr"], within: 5 },
  { query: "applicant tracking", top: ["greenhouse", "lever", "ashby", "workable", "breezy-hr"], within: 5 },
  { query: "hr", top: ["bamboohr", "hibob", "workday", "gusto"], within: 6 },
  { query: "hris", top: ["bamboohr", "hibob", "workday"], within: 3 },
  { query: "payroll", top: ["gusto", "ukg-pro", "workday", "deel"], within: 4 },
  { query: "seo", first: ["ahrefs", "semrush"] },
  { query: "ads", first: ["google-ads", "meta-ads"] },
  { query: "advertising", top: ["google-ads", "meta-ads"], within: 3 },
  { query: "maps", first: ["google-maps"] },
  { query: "geocoding", first: ["google-maps"] },
  { query: "cms", top: ["contentful", "webflow", "sanity", "ghost"], within: 4 },
  { query: "headless cms", top: ["contentful", "sanity"], within: 2 },
  { query: "vector database", first: ["pinecone"] },
  { query: "speech to text", top: ["deepgram", "assemblyai", "elevenlabs"], within: 3 }, // ElevenLabs' generated tools transcribe too
  { query: "transcription", top: ["deepgram", "assemblyai"], within: 2 },
  { query: "text to speech", top: ["elevenlabs", "deepgram"], within: 2 },
  { query: "product analytics", top: ["posthog", "mixpanel", "amplitude"], within: 3 },
  { query: "web analytics", first: ["google-analytics"] },
  { query: "erp", top: ["netsuite", "sap-s4hana", "sage-intacct"], within: 3 },
  { query: "lms", first: ["canvas-lms"] },
  { query: "newsletter", top: ["mailchimp", "brevo", "ghost"], within: 3 },
  { query: "email marketing", top: ["mailchimp", "klaviyo", "activecampaign", "brevo"], within: 5 }, // SendGrid's generated marketing tools come first
  { query: "time tracking", top: ["toggl-track", "harvest", "timely"], within: 5 }, // Jira's generated worklog tools track time too
  { query: "surveys", first: ["surveymonkey", "typeform"] },
  { query: "meeting notes", top: ["granola", "fireflies", "fathom"], within: 3 },
  { query: "web scraping", first: ["firecrawl"] },
  { query: "e-signature", top: ["docusign", "pandadoc", "dropbox-sign"], within: 3 },
  { query: "continuous integration", first: ["circleci"] },
  { query: "hosting", top: ["vercel", "netlify", "heroku"], within: 4 },
  { query: "postgres", top: ["supabase", "neon"], within: 2 },
  { query: "itsm", top: ["servicenow", "freshservice"], within: 2 },
  { query: "business intelligence", top: ["tableau", "power-bi"], within: 3 },
  { query: "identity", top: ["auth0", "okta"], within: 2 },
  { query: "url shortener", first: ["bitly"] },
  { query: "bookmarks", first: ["linkhut"] },
  { query: "hotel", first: ["apaleo"] },
  { query: "coding interviews", first: ["hackerrank-for-work"] },
  { query: "sales intelligence", top: ["apollo", "zoominfo"], within: 3 },
  { query: "call recording", top: ["gong", "zoom", "twilio"], within: 3 }, // Zoom's and Twilio's generated tools list their recordings
  { query: "voice agents", first: ["retell-ai"] },
  { query: "embeddings", top: ["openai", "cohere"], within: 3 },
  { query: "kanban", first: ["trello"] },
  { query: "on call schedules", top: ["pagerduty", "opsgenie"], within: 2 },
  { query: "notes", first: ["notion"] },
  { query: "documents", first: ["google-docs"] },
  { query: "databases", top: ["supabase", "airtable", "neon"], within: 5 },
  { query: "monitoring", top: ["datadog", "new-relic", "sentry"], within: 3 },
  { query: "infrastructure", top: ["cloudflare", "digitalocean", "vercel", "heroku"], within: 8 },
  { query: "education", first: ["canvas-lms"] },
  { query: "voice", top: ["twilio", "elevenlabs", "dialpad"], within: 4 },
  { query: "data enrichment", top: ["people-data-labs", "zoominfo", "apollo"], within: 3 },
  { query: "signatures", top: ["docusign", "dropbox-sign", "pandadoc"], within: 3 },
  { query: "analytics", top: ["google-analytics", "amplitude", "mixpanel", "posthog"], within: 4 },
  { query: "support", top: ["zendesk", "intercom", "freshdesk"], within: 6 },
  { query: "spreadsheets", top: ["google-sheets", "microsoft-excel", "airtable"], within: 3 },
  { query: "issues", top: ["github", "jira", "linear"], within: 3 },
  { query: "music", first: ["spotify"] },
  { query: "running", first: ["strava"] },
  { query: "photos", first: ["smugmug"] },
  { query: "fundraising", first: ["blackbaud"] },
  { query: "live streaming", first: ["twitch"] },
  { query: "video hosting", top: ["vimeo", "youtube"], within: 3 }, // Zoom's generated tools manage videos too
  { query: "sso", first: ["okta"] },
  { query: "cdn", first: ["cloudflare"] },
  { query: "dns", first: ["cloudflare"] },
  { query: "online store", top: ["shopify", "bigcommerce", "woocommerce"], within: 3 },
  { query: "subscription billing", first: ["chargebee"], top: ["stripe"], within: 2 },
  { query: "employer of record", first: ["deel"] },
  { query: "customer data platform", first: ["segment"] },
  { query: "blog", first: ["ghost"] },
  { query: "presentations", first: ["google-slides"] },
  { query: "inventory", first: ["zoho-inventory"] },
  // Several words.
  { query: "pull requests", top: ["github", "bitbucket"], within: 3 },
  { query: "video meetings", first: ["zoom"] },
  { query: "send sms", first: ["twilio"] },
  // Six web search APIs, each with a web search tool: all as right.
  { query: "web search", top: ["brave-search", "exa", "perplexity", "tavily", "firecrawl", "serpapi"], within: 6 },
  { query: "sign documents", first: ["docusign"] },
  // Postmark and Brevo send transactional email as much as Resend.
  { query: "transactional email", top: ["sendgrid", "resend", "postmark"], within: 4 },
  { query: "file storage", top: ["google-drive", "dropbox", "box", "onedrive"], within: 6 },
  // Opsgenie is Atlassian's on-call pager, as right as PagerDuty.
  { query: "on-call", top: ["pagerduty", "opsgenie"], within: 2 },
  // Help Scout, Freshdesk, Gorgias and Zoho Desk are help desks as much as Intercom.
  { query: "help desk", top: ["zendesk", "intercom"], within: 6 },
  // What an agent asks for: toolkits with a tool that does it come first (the agents guide's search).
  { query: "send an email", top: ["gmail", "outlook"], within: 3 }, // SendGrid's generated "Send email" is as right for an app
  { query: "send email", top: ["gmail", "outlook"], within: 3 }, // and SendGrid sends it too
  { query: "create an issue", first: ["github", "jira", "linear"] },
  { query: "post message", first: ["slack"] },
  // Asana and Salesforce have upload tools now (SALESFORCE_UPLOAD_FILE, ASANA_UPLOAD_ATTACHMENT), as right as Slack's.
  { query: "upload a file", top: ["google-drive", "slack"], within: 4 },
  { query: "list calendar events", first: ["outlook"], top: ["google-calendar"], within: 2 },
  { query: "create a calendar event", first: ["google-calendar", "outlook"] },
  { query: "post a message to a channel", top: ["slack", "discord"], within: 2 },
  { query: "append a row to a spreadsheet", first: ["google-sheets"] },
  { query: "upload a video", first: ["youtube"] },
  { query: "query a database", top: ["notion", "supabase"], within: 2 },
  { query: "create a ticket", first: ["zendesk"] },
  { query: "add a contact to a crm", first: ["hubspot"] },
  { query: "run sql", first: ["supabase"] },
  { query: "create a task", first: ["asana"] },
  { query: "create a record", top: ["salesforce", "airtable"], within: 2 },
  { query: "create a page", first: ["notion"] },
  { query: "create a document", first: ["google-docs"] },
  { query: "share a file", first: ["google-drive"] },
  { query: "post a tweet", first: ["x"] },
  { query: "search videos", first: ["youtube"] },
  { query: "comment on a pull request", first: ["github"] },
  { query: "react to a message", first: ["discord"] },
  { query: "create a deal", first: ["hubspot"] },
  { query: "search the web", top: ["brave-search", "exa", "perplexity", "tavily", "firecrawl", "serpapi"], within: 6 },
  { query: "scrape a website", first: ["firecrawl"] },
  { query: "search news", top: ["brave-search", "serpapi"], within: 2 },
  { query: "crawl a site", top: ["firecrawl", "tavily"], within: 2 },
  { query: "answer a question from the web", top: ["perplexity", "exa"], within: 2 },
  { query: "send a whatsapp message", first: ["whatsapp"] },
  { query: "send a message", top: ["slack", "discord"], within: 5 }, // Teams, Telegram and Outlook send messages too
  { query: "send a slack message", first: ["slack"] },
  { query: "send a telegram message", first: ["telegram"] },
  { query: "search slack messages", first: ["slack"] },
  { query: "read my email", first: ["gmail", "outlook"] },
  { query: "find a file", top: ["google-drive", "box"], within: 2 }, // Box's generated file search
  { query: "create a spreadsheet", first: ["google-sheets"] },
  { query: "create a jira ticket", first: ["jira"] },
  { query: "create a support ticket", first: ["zendesk"] },
  { query: "create a page in confluence", first: ["confluence"] },
  { query: "create a zoom meeting", first: ["zoom"] },
  { query: "schedule a meeting", top: ["google-calendar", "zoom", "calendly", "cal-com"], within: 4 },
  { query: "book a meeting", top: ["cal-com", "calendly"], within: 2 },
  { query: "summarize a meeting", top: ["fathom", "fireflies", "granola"], within: 4 },
  { query: "post on linkedin", first: ["linkedin"] },
  { query: "upload a photo to instagram", first: ["instagram"] },
  { query: "play a song", first: ["spotify"] },
  { query: "refund an order", top: ["shopify", "woocommerce", "bigcommerce"], within: 3 },
  { query: "create a payment link", first: ["stripe"] },
  { query: "enrich a lead", first: ["apollo"] },
  { query: "transcribe audio", top: ["assemblyai", "deepgram"], within: 3 }, // OpenAI's generated transcription tool comes first
  { query: "generate speech", first: ["elevenlabs"] },
  { query: "geocode an address", first: ["google-maps"] },
  { query: "get directions", first: ["google-maps"] },
  { query: "run a query on snowflake", first: ["snowflake"] },
  { query: "create a survey", top: ["surveymonkey", "typeform"], within: 3 }, // Mailchimp's generated tools create surveys
  { query: "log time", top: ["toggl-track", "timely"], within: 2 },
];

/**
 * Rankings the scoring still gets wrong. Ties already follow popularity.json; what is left is a
 * word of a longer name or of aliases and descriptions outweighing a match of the whole query:
 * "Retell AI" and "Recall.ai" carry "ai" in name, aliases and description where OpenAI has only
 * its category; "Zoho Desk" and "Help Scout" each have a word of "help desk" in their names; Google
 * Maps and Ads say "google" in aliases and descriptions where Gmail does not. Letting a whole-query
 * match (a name, alias or category equal to the query) replace the word points makes all three
 * pass, but breaks nine rows of the table ("spreadsheet", "analytics", "issues", ...). When one
 * passes, move it to the table above.
 */
const SCORING: Row[] = [
  { query: "ai", first: ["openai"] },
  { query: "google", top: ["gmail", "google-calendar", "google-drive", "google-sheets", "google-docs"], within: 5 },
  { query: "help desk", top: ["zendesk", "intercom", "freshdesk"], within: 3 },
];

const slugs = (query: string) => searchToolkits(toolkits, query).map((toolkit) => toolkit.slug);

function check({ query, first = [], top = [], within = 0 }: Row): void {
  const found = slugs(query);
  // The message shows the ranking, so a failure says which providers got in the way.
  const shown = `"${query}" ranked: ${found.slice(0, Math.max(first.length, within) + 3).join(", ")}`;
  expect(found.slice(0, first.length).sort(), shown).toEqual([...first].sort());
  expect(
    top.filter((slug) => !found.slice(0, within).includes(slug)),
    shown,
  ).toEqual([]);
}

interface ToolRow {
  query: string;
  /** One of these tools is among the first 3 results. */
  tools: string[];
}

/** The web search tools of the six web search APIs. */
const WEB_SEARCH = [
  "BRAVESEARCH_SEARCH_WEB",
  "EXA_SEARCH_WEB",
  "FIRECRAWL_SEARCH",
  "PERPLEXITY_SEARCH_WEB",
  "SERPAPI_SEARCH_WEB",
  "TAVILY_SEARCH_WEB",
];

/** What an agent asks for, and the curated tools that do it. */
const TOOL_TABLE: ToolRow[] = [
  { query: "send an email", tools: ["GMAIL_SEND_EMAIL", "OUTLOOK_SEND_MAIL"] },
  { query: "create a calendar event", tools: ["GOOGLECALENDAR_CREATE_EVENT", "OUTLOOK_CREATE_EVENT"] },
  { query: "list calendar events", tools: ["GOOGLECALENDAR_LIST_EVENTS", "OUTLOOK_LIST_EVENTS"] },
  { query: "delete a calendar event", tools: ["GOOGLECALENDAR_DELETE_EVENT"] },
  { query: "schedule a meeting", tools: ["GOOGLECALENDAR_CREATE_EVENT", "OUTLOOK_CREATE_EVENT"] },
  { query: "invite people to a meeting", tools: ["GOOGLECALENDAR_CREATE_EVENT", "OUTLOOK_CREATE_EVENT"] },
  { query: "email someone", tools: ["GMAIL_SEND_EMAIL", "OUTLOOK_SEND_MAIL"] },
  { query: "add a task", tools: ["ASANA_CREATE_TASK"] },
  { query: "close a ticket", tools: ["ZENDESK_UPDATE_TICKET"] },
  { query: "write to a spreadsheet", tools: ["GOOGLESHEETS_UPDATE_VALUES", "GOOGLESHEETS_APPEND_ROWS"] },
  { query: "update a cell", tools: ["GOOGLESHEETS_UPDATE_VALUES"] },
  { query: "replace text in a document", tools: ["GOOGLEDOCS_REPLACE_TEXT"] },
  { query: "download a file", tools: ["GOOGLEDRIVE_DOWNLOAD_FILE", "SALESFORCE_DOWNLOAD_FILE"] },
  { query: "list slack channels", tools: ["SLACK_LIST_CHANNELS"] },
  { query: "list discord servers", tools: ["DISCORD_LIST_GUILDS"] },
  { query: "search tweets", tools: ["X_SEARCH_POSTS", "X_TWEETS_RECENT_SEARCH"] }, // the generated tool calls the same endpoint
  { query: "delete a tweet", tools: ["X_DELETE_POST"] },
  { query: "run soql", tools: ["SALESFORCE_QUERY_RECORDS"] },
  { query: "apply a migration", tools: ["SUPABASE_APPLY_MIGRATION"] },
  { query: "update a contact", tools: ["HUBSPOT_UPDATE_CONTACT"] },
  { query: "add a comment to a jira issue", tools: ["JIRA_ADD_COMMENT"] },
  { query: "add a video to a playlist", tools: ["YOUTUBE_ADD_PLAYLIST_ITEM"] },
  { query: "search notion", tools: ["NOTION_SEARCH"] },
  { query: "create an issue", tools: ["GITHUB_CREATE_ISSUE", "JIRA_CREATE_ISSUE", "LINEAR_CREATE_ISSUE"] },
  { query: "post a message to a channel", tools: ["SLACK_POST_MESSAGE", "DISCORD_SEND_MESSAGE"] },
  { query: "post a message to a slack channel", tools: ["SLACK_POST_MESSAGE"] },
  { query: "send a message", tools: ["SLACK_POST_MESSAGE", "DISCORD_SEND_MESSAGE"] },
  { query: "send a slack message", tools: ["SLACK_POST_MESSAGE"] },
  { query: "reply in a slack thread", tools: ["SLACK_REPLY_IN_THREAD"] },
  { query: "append a row to a spreadsheet", tools: ["GOOGLESHEETS_APPEND_ROWS"] },
  { query: "read cells of a spreadsheet", tools: ["GOOGLESHEETS_GET_VALUES"] },
  { query: "upload a video", tools: ["YOUTUBE_UPLOAD_VIDEO"] },
  { query: "search youtube videos", tools: ["YOUTUBE_SEARCH_VIDEOS"] },
  { query: "query a database", tools: ["NOTION_QUERY_DATABASE", "SUPABASE_RUN_SQL"] },
  { query: "run a sql query", tools: ["SUPABASE_RUN_SQL"] },
  { query: "create a ticket", tools: ["ZENDESK_CREATE_TICKET"] },
  { query: "reply to a zendesk ticket", tools: ["ZENDESK_UPDATE_TICKET"] },
  { query: "add a contact to a crm", tools: ["HUBSPOT_CREATE_CONTACT"] },
  { query: "create a deal", tools: ["HUBSPOT_CREATE_DEAL"] },
  { query: "search contacts", tools: ["HUBSPOT_SEARCH_CONTACTS"] },
  { query: "upload a file to google drive", tools: ["GOOGLEDRIVE_UPLOAD_FILE"] },
  { query: "share a file", tools: ["GOOGLEDRIVE_SHARE_FILE"] },
  { query: "create a folder", tools: ["GOOGLEDRIVE_CREATE_FOLDER"] },
  { query: "create a document", tools: ["GOOGLEDOCS_CREATE_DOCUMENT"] },
  { query: "insert text into a document", tools: ["GOOGLEDOCS_INSERT_TEXT"] },
  { query: "post a tweet", tools: ["X_CREATE_POST"] },
  { query: "search jira issues", tools: ["JIRA_SEARCH_ISSUES"] },
  { query: "move a jira issue to done", tools: ["JIRA_TRANSITION_ISSUE"] },
  { query: "comment on a pull request", tools: ["GITHUB_CREATE_ISSUE_COMMENT"] },
  { query: "list pull requests", tools: ["GITHUB_LIST_PULL_REQUESTS"] },
  { query: "read a file from a github repository", tools: ["GITHUB_GET_FILE_CONTENTS"] },
  { query: "download an email attachment", tools: ["GMAIL_GET_ATTACHMENT", "OUTLOOK_GET_ATTACHMENT"] },
  { query: "draft an email", tools: ["GMAIL_CREATE_DRAFT"] },
  { query: "reply to an email", tools: ["OUTLOOK_REPLY_TO_MESSAGE", "GMAIL_SEND_EMAIL"] },
  { query: "search emails", tools: ["GMAIL_SEARCH_MESSAGES", "OUTLOOK_LIST_MESSAGES"] },
  { query: "create a salesforce record", tools: ["SALESFORCE_CREATE_RECORD"] },
  { query: "create a task", tools: ["ASANA_CREATE_TASK"] },
  { query: "send a discord message", tools: ["DISCORD_SEND_MESSAGE"] },
  { query: "react to a message", tools: ["DISCORD_ADD_REACTION"] },
  { query: "create an airtable record", tools: ["AIRTABLE_CREATE_RECORDS"] },
  { query: "list supabase tables", tools: ["SUPABASE_LIST_TABLES"] },
  { query: "add a page to notion", tools: ["NOTION_CREATE_PAGE"] },
  { query: "create a playlist", tools: ["YOUTUBE_CREATE_PLAYLIST"] },
  { query: "search the web", tools: WEB_SEARCH },
  { query: "web search", tools: WEB_SEARCH },
  { query: "answer a question from the web", tools: ["PERPLEXITY_ANSWER_QUESTION", "EXA_ANSWER_QUESTION"] },
  { query: "extract page content", tools: ["TAVILY_EXTRACT_PAGES", "EXA_GET_CONTENTS", "FIRECRAWL_SCRAPE_URL"] },
  { query: "find similar pages", tools: ["EXA_FIND_SIMILAR"] },
  { query: "google search results", tools: ["SERPAPI_SEARCH_WEB"] },
  { query: "search recent news", tools: ["BRAVESEARCH_SEARCH_NEWS", "SERPAPI_SEARCH_NEWS"] },
  { query: "scrape a website", tools: ["FIRECRAWL_SCRAPE_URL"] },
  { query: "get a web page as markdown", tools: ["FIRECRAWL_SCRAPE_URL"] },
  { query: "crawl a site", tools: ["FIRECRAWL_START_CRAWL", "TAVILY_CRAWL_SITE"] },
  { query: "list the urls of a website", tools: ["FIRECRAWL_MAP_SITE", "TAVILY_MAP_SITE"] },
];

/**
 * Searches every curated tool of the catalog, each with its toolkit's name, aliases and categories
 * (so "slack" or "calendar" in a query finds that toolkit's tools), through `rank`.
 */
const tools = toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => ({ toolkit, tool })));
function searchTools(query: string): string[] {
  return rank(tools, query, ({ toolkit, tool }) => ({
    slug: tool.slug,
    name: tool.name,
    description: tool.description,
    aliases: [toolkit.name, ...toolkit.aliases],
    categories: toolkit.categories,
  })).map(({ tool }) => tool.slug);
}

describe("catalog search", () => {
  it("searches every catalog provider", () => {
    const named = new Set([...TABLE, ...SCORING].flatMap((row) => [...(row.first ?? []), ...(row.top ?? [])]));
    expect([...named].filter((slug) => !providers.some((provider) => provider.slug === slug))).toEqual([]);
    expect(TABLE.length).toBeGreaterThanOrEqual(110);
  });

  it.each(TABLE)("$query", check);

  it("lists providers most connected first, and popularity.json names only catalog slugs", () => {
    expect(popularity.filter((slug) => !providers.some((provider) => provider.slug === slug))).toEqual([]);
    expect(new Set(popularity).size).toBe(popularity.length);
    const order = providersByPopularity.map((provider) => provider.slug);
    expect(order.slice(0, popularity.length)).toEqual(popularity);
    const rest = order.slice(popularity.length);
    expect(rest).toEqual([...rest].sort());
    expect(order.length).toBe(providers.length);
  });

  it.fails.each(SCORING)("$query (needs a scoring change)", check);
});

describe("catalog tool search", () => {
  it("names curated tools (a generated one only beside a curated one)", () => {
    const known = new Set(tools.map(({ tool }) => tool.slug));
    expect(TOOL_TABLE.filter((row) => !row.tools.some((slug) => known.has(slug))).map((row) => row.query)).toEqual([]);
    expect(TOOL_TABLE.length).toBeGreaterThanOrEqual(25);
  });

  it.each(TOOL_TABLE)("$query", ({ query, tools: expected }) => {
    const found = searchTools(query).slice(0, 3);
    expect(
      found.some((slug) => expected.includes(slug)),
      `"${query}" found ${found.join(", ")}`,
    ).toBe(true);
  });
});

/**
 * The way an agent finds a tool: it searches toolkits (`GET /search?keywords=`, MCP
 * `search_toolkits`), then the tools of one it picked (`GET /toolkit/{slug}/search?query=`,
 * `search_tools`). A row passes when an expected tool's toolkit is among the first 3 toolkits and
 * that tool among the first 3 of its toolkit's tools.
 */
function twoSteps(query: string, expected: readonly string[]): string | undefined {
  const found = searchToolkits(toolkits, query).slice(0, 3);
  for (const toolkit of found) {
    const tools = searchToolkitTools(toolkit, query)
      .slice(0, 3)
      .map((tool) => tool.slug);
    if (tools.some((slug) => expected.includes(slug))) return undefined;
  }
  return `"${query}" found toolkits ${found.map((t) => t.slug).join(", ")}: ${found
    .map(
      (t) =>
        `${t.slug}: ${searchToolkitTools(t, query)
          .slice(0, 3)
          .map((tool) => tool.slug)
          .join(" ")}`,
    )
    .join("; ")}`;
}

describe("catalog tool search in two steps, toolkits then tools", () => {
  it.each(TOOL_TABLE)("$query", ({ query, tools: expected }) => {
    expect(twoSteps(query, expected)).toBeUndefined();
  });
});
