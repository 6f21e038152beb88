// Every provider data file, in slug order. Written by scripts/catalog-index.mjs (npm run catalog:index);
// test/catalog/providers.test.ts checks this list against the directory.
import activecampaign from "./activecampaign.json" with { type: "json" };
import airtable from "./airtable.json" with { type: "json" };
import apaleo from "./apaleo.json" with { type: "json" };
import asana from "./asana.json" with { type: "json" };
import assemblyai from "./assemblyai.json" with { type: "json" };
import attio from "./attio.json" with { type: "json" };
import auth0 from "./auth0.json" with { type: "json" };
import bamboohr from "./bamboohr.json" with { type: "json" };
import basecamp from "./basecamp.json" with { type: "json" };
import bigcommerce from "./bigcommerce.json" with { type: "json" };
import bitbucket from "./bitbucket.json" with { type: "json" };
import bitly from "./bitly.json" with { type: "json" };
import box from "./box.json" with { type: "json" };
import braveSearch from "./brave-search.json" with { type: "json" };
import calendly from "./calendly.json" with { type: "json" };
import canva from "./canva.json" with { type: "json" };
import chargebee from "./chargebee.json" with { type: "json" };
import clickup from "./clickup.json" with { type: "json" };
import coda from "./coda.json" with { type: "json" };
import confluence from "./confluence.json" with { type: "json" };
import datadog from "./datadog.json" with { type: "json" };
import deel from "./deel.json" with { type: "json" };
import deepgram from "./deepgram.json" with { type: "json" };
import discord from "./discord.json" with { type: "json" };
import docusign from "./docusign.json" with { type: "json" };
import dropbox from "./dropbox.json" with { type: "json" };
import figma from "./figma.json" with { type: "json" };
import freshbooks from "./freshbooks.json" with { type: "json" };
import freshdesk from "./freshdesk.json" with { type: "json" };
import front from "./front.json" with { type: "json" };
import ghost from "./ghost.json" with { type: "json" };
import github from "./github.json" with { type: "json" };
import gitlab from "./gitlab.json" with { type: "json" };
import gitlabSelfManaged from "./gitlab-self-managed.json" with { type: "json" };
import gmail from "./gmail.json" with { type: "json" };
import googleCalendar from "./google-calendar.json" with { type: "json" };
import googleDocs from "./google-docs.json" with { type: "json" };
import googleDrive from "./google-drive.json" with { type: "json" };
import googleSheets from "./google-sheets.json" with { type: "json" };
import granola from "./granola.json" with { type: "json" };
import groq from "./groq.json" with { type: "json" };
import hackerrankForWork from "./hackerrank-for-work.json" with { type: "json" };
import harvest from "./harvest.json" with { type: "json" };
import helpScout from "./help-scout.json" with { type: "json" };
import hubspot from "./hubspot.json" with { type: "json" };
import huggingFace from "./hugging-face.json" with { type: "json" };
import ibmCloud from "./ibm-cloud.json" with { type: "json" };
import intercom from "./intercom.json" with { type: "json" };
import jira from "./jira.json" with { type: "json" };
import klipfolio from "./klipfolio.json" with { type: "json" };
import linear from "./linear.json" with { type: "json" };
import linkedin from "./linkedin.json" with { type: "json" };
import linkhut from "./linkhut.json" with { type: "json" };
import mailchimp from "./mailchimp.json" with { type: "json" };
import mailgun from "./mailgun.json" with { type: "json" };
import mattermost from "./mattermost.json" with { type: "json" };
import microsoftGraph from "./microsoft-graph.json" with { type: "json" };
import microsoftTeams from "./microsoft-teams.json" with { type: "json" };
import miro from "./miro.json" with { type: "json" };
import monday from "./monday.json" with { type: "json" };
import notion from "./notion.json" with { type: "json" };
import onedrive from "./onedrive.json" with { type: "json" };
import openai from "./openai.json" with { type: "json" };
import openrouter from "./openrouter.json" with { type: "json" };
import outlook from "./outlook.json" with { type: "json" };
import pagerduty from "./pagerduty.json" with { type: "json" };
import paypal from "./paypal.json" with { type: "json" };
import paypalSandbox from "./paypal-sandbox.json" with { type: "json" };
import pipedrive from "./pipedrive.json" with { type: "json" };
import postmark from "./postmark.json" with { type: "json" };
import productboard from "./productboard.json" with { type: "json" };
import pylon from "./pylon.json" with { type: "json" };
import quickbooks from "./quickbooks.json" with { type: "json" };
import reddit from "./reddit.json" with { type: "json" };
import replicate from "./replicate.json" with { type: "json" };
import resend from "./resend.json" with { type: "json" };
import rocketlane from "./rocketlane.json" with { type: "json" };
import salesforce from "./salesforce.json" with { type: "json" };
import sanity from "./sanity.json" with { type: "json" };
import segment from "./segment.json" with { type: "json" };
import sendgrid from "./sendgrid.json" with { type: "json" };
import shopify from "./shopify.json" with { type: "json" };
import slack from "./slack.json" with { type: "json" };
import smartsheet from "./smartsheet.json" with { type: "json" };
import stripe from "./stripe.json" with { type: "json" };
import surveymonkey from "./surveymonkey.json" with { type: "json" };
import tableau from "./tableau.json" with { type: "json" };
import telegram from "./telegram.json" with { type: "json" };
import ticktick from "./ticktick.json" with { type: "json" };
import timely from "./timely.json" with { type: "json" };
import todoist from "./todoist.json" with { type: "json" };
import togglTrack from "./toggl-track.json" with { type: "json" };
import trello from "./trello.json" with { type: "json" };
import twilio from "./twilio.json" with { type: "json" };
import typeform from "./typeform.json" with { type: "json" };
import typefully from "./typefully.json" with { type: "json" };
import webflow from "./webflow.json" with { type: "json" };
import woocommerce from "./woocommerce.json" with { type: "json" };
import wrike from "./wrike.json" with { type: "json" };
import x from "./x.json" with { type: "json" };
import xero from "./xero.json" with { type: "json" };
import zendesk from "./zendesk.json" with { type: "json" };
import zohoCrm from "./zoho-crm.json" with { type: "json" };
import zoom from "./zoom.json" with { type: "json" };

export const providerFiles: unknown[] = [
  activecampaign,
  airtable,
  apaleo,
  asana,
  assemblyai,
  attio,
  auth0,
  bamboohr,
  basecamp,
  bigcommerce,
  bitbucket,
  bitly,
  box,
  braveSearch,
  calendly,
  canva,
  chargebee,
  clickup,
  coda,
  confluence,
  datadog,
  deel,
  deepgram,
  discord,
  docusign,
  dropbox,
  figma,
  freshbooks,
  freshdesk,
  front,
  ghost,
  github,
  gitlab,
  gitlabSelfManaged,
  gmail,
  googleCalendar,
  googleDocs,
  googleDrive,
  googleSheets,
  granola,
  groq,
  hackerrankForWork,
  harvest,
  helpScout,
  hubspot,
  huggingFace,
  ibmCloud,
  intercom,
  jira,
  klipfolio,
  linear,
  linkedin,
  linkhut,
  mailchimp,
  mailgun,
  mattermost,
  microsoftGraph,
  microsoftTeams,
  miro,
  monday,
  notion,
  onedrive,
  openai,
  openrouter,
  outlook,
  pagerduty,
  paypal,
  paypalSandbox,
  pipedrive,
  postmark,
  productboard,
  pylon,
  quickbooks,
  reddit,
  replicate,
  resend,
  rocketlane,
  salesforce,
  sanity,
  segment,
  sendgrid,
  shopify,
  slack,
  smartsheet,
  stripe,
  surveymonkey,
  tableau,
  telegram,
  ticktick,
  timely,
  todoist,
  togglTrack,
  trello,
  twilio,
  typeform,
  typefully,
  webflow,
  woocommerce,
  wrike,
  x,
  xero,
  zendesk,
  zohoCrm,
  zoom,
];
