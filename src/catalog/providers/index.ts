// Every provider data file, in slug order. test/catalog/providers.test.ts checks this list
// against the directory, so a file cannot be added without being listed here.
import airtable from "./airtable.json" with { type: "json" };
import asana from "./asana.json" with { type: "json" };
import bitbucket from "./bitbucket.json" with { type: "json" };
import clickup from "./clickup.json" with { type: "json" };
import confluence from "./confluence.json" with { type: "json" };
import github from "./github.json" with { type: "json" };
import gitlab from "./gitlab.json" with { type: "json" };
import gmail from "./gmail.json" with { type: "json" };
import googleCalendar from "./google-calendar.json" with { type: "json" };
import googleDocs from "./google-docs.json" with { type: "json" };
import googleDrive from "./google-drive.json" with { type: "json" };
import googleSheets from "./google-sheets.json" with { type: "json" };
import hubspot from "./hubspot.json" with { type: "json" };
import jira from "./jira.json" with { type: "json" };
import linear from "./linear.json" with { type: "json" };
import microsoftTeams from "./microsoft-teams.json" with { type: "json" };
import monday from "./monday.json" with { type: "json" };
import notion from "./notion.json" with { type: "json" };
import onedrive from "./onedrive.json" with { type: "json" };
import outlook from "./outlook.json" with { type: "json" };
import pipedrive from "./pipedrive.json" with { type: "json" };
import salesforce from "./salesforce.json" with { type: "json" };
import slack from "./slack.json" with { type: "json" };
import trello from "./trello.json" with { type: "json" };

export const providerFiles: unknown[] = [
  airtable,
  asana,
  bitbucket,
  clickup,
  confluence,
  github,
  gitlab,
  gmail,
  googleCalendar,
  googleDocs,
  googleDrive,
  googleSheets,
  hubspot,
  jira,
  linear,
  microsoftTeams,
  monday,
  notion,
  onedrive,
  outlook,
  pipedrive,
  salesforce,
  slack,
  trello,
];
