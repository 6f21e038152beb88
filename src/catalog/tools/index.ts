import type { Tool } from "../../toolkits/define.js";
import { githubTools } from "./github.js";
import { gmailTools } from "./gmail.js";
import { googleCalendarTools } from "./google-calendar.js";
import { googleDriveTools } from "./google-drive.js";
import { slackTools } from "./slack.js";

/** Curated tools, by provider slug. */
export const curatedTools: Record<string, Tool[]> = {
  github: githubTools,
  gmail: gmailTools,
  "google-calendar": googleCalendarTools,
  "google-drive": googleDriveTools,
  slack: slackTools,
};
