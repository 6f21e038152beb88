import type { Tool } from "../../toolkits/define.js";
import { airtableTools } from "./airtable.js";
import { asanaTools } from "./asana.js";
import { braveSearchTools } from "./brave-search.js";
import { discordTools } from "./discord.js";
import { exaTools } from "./exa.js";
import { firecrawlTools } from "./firecrawl.js";
import { githubTools } from "./github.js";
import { gmailTools } from "./gmail.js";
import { googleCalendarTools } from "./google-calendar.js";
import { googleDocsTools } from "./google-docs.js";
import { googleDriveTools } from "./google-drive.js";
import { googleSheetsTools } from "./google-sheets.js";
import { hubspotTools } from "./hubspot.js";
import { jiraTools } from "./jira.js";
import { linearTools } from "./linear.js";
import { notionTools } from "./notion.js";
import { outlookTools } from "./outlook.js";
import { perplexityTools } from "./perplexity.js";
import { salesforceTools } from "./salesforce.js";
import { serpapiTools } from "./serpapi.js";
import { slackTools } from "./slack.js";
import { supabaseTools } from "./supabase.js";
import { tavilyTools } from "./tavily.js";
import { xTools } from "./x.js";
import { youtubeTools } from "./youtube.js";
import { zendeskTools } from "./zendesk.js";

/** Curated tools, by provider slug. */
export const curatedTools: Record<string, Tool[]> = {
  airtable: airtableTools,
  asana: asanaTools,
  "brave-search": braveSearchTools,
  discord: discordTools,
  exa: exaTools,
  firecrawl: firecrawlTools,
  github: githubTools,
  gmail: gmailTools,
  "google-calendar": googleCalendarTools,
  "google-docs": googleDocsTools,
  "google-drive": googleDriveTools,
  "google-sheets": googleSheetsTools,
  hubspot: hubspotTools,
  jira: jiraTools,
  linear: linearTools,
  notion: notionTools,
  outlook: outlookTools,
  perplexity: perplexityTools,
  salesforce: salesforceTools,
  serpapi: serpapiTools,
  slack: slackTools,
  supabase: supabaseTools,
  tavily: tavilyTools,
  x: xTools,
  youtube: youtubeTools,
  zendesk: zendeskTools,
};
