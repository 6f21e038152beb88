// Every provider data file, in slug order. Written by scripts/catalog-index.mjs (npm run catalog:index);
// test/catalog/providers.test.ts checks this list against the directory.
import airtable from "./airtable.json" with { type: "json" };
import asana from "./asana.json" with { type: "json" };
import attio from "./attio.json" with { type: "json" };
import auth0 from "./auth0.json" with { type: "json" };
import bamboohr from "./bamboohr.json" with { type: "json" };
import bitbucket from "./bitbucket.json" with { type: "json" };
import box from "./box.json" with { type: "json" };
import braveSearch from "./brave-search.json" with { type: "json" };
import calendly from "./calendly.json" with { type: "json" };
import canva from "./canva.json" with { type: "json" };
import clickup from "./clickup.json" with { type: "json" };
import confluence from "./confluence.json" with { type: "json" };
import datadog from "./datadog.json" with { type: "json" };
import discord from "./discord.json" with { type: "json" };
import docusign from "./docusign.json" with { type: "json" };
import dropbox from "./dropbox.json" with { type: "json" };
import exa from "./exa.json" with { type: "json" };
import figma from "./figma.json" with { type: "json" };
import freshdesk from "./freshdesk.json" with { type: "json" };
import front from "./front.json" with { type: "json" };
import github from "./github.json" with { type: "json" };
import gitlab from "./gitlab.json" with { type: "json" };
import gitlabSelfManaged from "./gitlab-self-managed.json" with { type: "json" };
import gmail from "./gmail.json" with { type: "json" };
import googleCalendar from "./google-calendar.json" with { type: "json" };
import googleDocs from "./google-docs.json" with { type: "json" };
import googleDrive from "./google-drive.json" with { type: "json" };
import googleSheets from "./google-sheets.json" with { type: "json" };
import hubspot from "./hubspot.json" with { type: "json" };
import ibmCloud from "./ibm-cloud.json" with { type: "json" };
import intercom from "./intercom.json" with { type: "json" };
import jira from "./jira.json" with { type: "json" };
import linear from "./linear.json" with { type: "json" };
import linkedin from "./linkedin.json" with { type: "json" };
import mailchimp from "./mailchimp.json" with { type: "json" };
import mattermost from "./mattermost.json" with { type: "json" };
import microsoftGraph from "./microsoft-graph.json" with { type: "json" };
import microsoftTeams from "./microsoft-teams.json" with { type: "json" };
import miro from "./miro.json" with { type: "json" };
import monday from "./monday.json" with { type: "json" };
import notion from "./notion.json" with { type: "json" };
import onedrive from "./onedrive.json" with { type: "json" };
import openai from "./openai.json" with { type: "json" };
import outlook from "./outlook.json" with { type: "json" };
import pagerduty from "./pagerduty.json" with { type: "json" };
import paypal from "./paypal.json" with { type: "json" };
import paypalSandbox from "./paypal-sandbox.json" with { type: "json" };
import perplexity from "./perplexity.json" with { type: "json" };
import pipedrive from "./pipedrive.json" with { type: "json" };
import quickbooks from "./quickbooks.json" with { type: "json" };
import reddit from "./reddit.json" with { type: "json" };
import resend from "./resend.json" with { type: "json" };
import salesforce from "./salesforce.json" with { type: "json" };
import sendgrid from "./sendgrid.json" with { type: "json" };
import shopify from "./shopify.json" with { type: "json" };
import slack from "./slack.json" with { type: "json" };
import stripe from "./stripe.json" with { type: "json" };
import tableau from "./tableau.json" with { type: "json" };
import tavily from "./tavily.json" with { type: "json" };
import telegram from "./telegram.json" with { type: "json" };
import todoist from "./todoist.json" with { type: "json" };
import trello from "./trello.json" with { type: "json" };
import twilio from "./twilio.json" with { type: "json" };
import typeform from "./typeform.json" with { type: "json" };
import webflow from "./webflow.json" with { type: "json" };
import wrike from "./wrike.json" with { type: "json" };
import x from "./x.json" with { type: "json" };
import xero from "./xero.json" with { type: "json" };
import youtube from "./youtube.json" with { type: "json" };
import zendesk from "./zendesk.json" with { type: "json" };
import zohoCrm from "./zoho-crm.json" with { type: "json" };
import zoom from "./zoom.json" with { type: "json" };

export const providerFiles: unknown[] = [
  airtable,
  asana,
  attio,
  auth0,
  bamboohr,
  bitbucket,
  box,
  braveSearch,
  calendly,
  canva,
  clickup,
  confluence,
  datadog,
  discord,
  docusign,
  dropbox,
  exa,
  figma,
  freshdesk,
  front,
  github,
  gitlab,
  gitlabSelfManaged,
  gmail,
  googleCalendar,
  googleDocs,
  googleDrive,
  googleSheets,
  hubspot,
  ibmCloud,
  intercom,
  jira,
  linear,
  linkedin,
  mailchimp,
  mattermost,
  microsoftGraph,
  microsoftTeams,
  miro,
  monday,
  notion,
  onedrive,
  openai,
  outlook,
  pagerduty,
  paypal,
  paypalSandbox,
  perplexity,
  pipedrive,
  quickbooks,
  reddit,
  resend,
  salesforce,
  sendgrid,
  shopify,
  slack,
  stripe,
  tableau,
  tavily,
  telegram,
  todoist,
  trello,
  twilio,
  typeform,
  webflow,
  wrike,
  x,
  xero,
  youtube,
  zendesk,
  zohoCrm,
  zoom,
];
