import type { Tool } from "../../toolkits/define.js";
import { githubTools } from "./github.js";
import { gmailTools } from "./gmail.js";
import { slackTools } from "./slack.js";

/** Curated tools, by provider slug. */
export const curatedTools: Record<string, Tool[]> = {
  github: githubTools,
  gmail: gmailTools,
  slack: slackTools,
};
