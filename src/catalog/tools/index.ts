import type { Tool } from "../../toolkits/define.js";
import { hubspotTools } from "./hubspot.js";
import { jiraTools } from "./jira.js";
import { linearTools } from "./linear.js";
import { notionTools } from "./notion.js";
import { outlookTools } from "./outlook.js";

/** Curated tools, by provider slug. */
export const curatedTools: Record<string, Tool[]> = {
  hubspot: hubspotTools,
  jira: jiraTools,
  linear: linearTools,
  notion: notionTools,
  outlook: outlookTools,
};
