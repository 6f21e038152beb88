// Every provider data file, in slug order. Written by scripts/catalog-index.mjs (npm run catalog:index);
// test/catalog/providers.test.ts checks this list against the directory.
import activecampaign from "./activecampaign.json" with { type: "json" };
import adyntel from "./adyntel.json" with { type: "json" };
import affinity from "./affinity.json" with { type: "json" };
import agencyzoom from "./agencyzoom.json" with { type: "json" };
import ahrefs from "./ahrefs.json" with { type: "json" };
import airtable from "./airtable.json" with { type: "json" };
import algolia from "./algolia.json" with { type: "json" };
import amplitude from "./amplitude.json" with { type: "json" };
import anthropic from "./anthropic.json" with { type: "json" };
import apaleo from "./apaleo.json" with { type: "json" };
import apollo from "./apollo.json" with { type: "json" };
import asana from "./asana.json" with { type: "json" };
import ashby from "./ashby.json" with { type: "json" };
import assemblyai from "./assemblyai.json" with { type: "json" };
import attio from "./attio.json" with { type: "json" };
import auth0 from "./auth0.json" with { type: "json" };
import bamboohr from "./bamboohr.json" with { type: "json" };
import basecamp from "./basecamp.json" with { type: "json" };
import bigcommerce from "./bigcommerce.json" with { type: "json" };
import bitbucket from "./bitbucket.json" with { type: "json" };
import bitly from "./bitly.json" with { type: "json" };
import blackbaud from "./blackbaud.json" with { type: "json" };
import box from "./box.json" with { type: "json" };
import braveSearch from "./brave-search.json" with { type: "json" };
import breezyHr from "./breezy-hr.json" with { type: "json" };
import brevo from "./brevo.json" with { type: "json" };
import calCom from "./cal-com.json" with { type: "json" };
import calendly from "./calendly.json" with { type: "json" };
import canva from "./canva.json" with { type: "json" };
import canvasLms from "./canvas-lms.json" with { type: "json" };
import chargebee from "./chargebee.json" with { type: "json" };
import circleci from "./circleci.json" with { type: "json" };
import clickhouse from "./clickhouse.json" with { type: "json" };
import clickup from "./clickup.json" with { type: "json" };
import close from "./close.json" with { type: "json" };
import cloudflare from "./cloudflare.json" with { type: "json" };
import coda from "./coda.json" with { type: "json" };
import cohere from "./cohere.json" with { type: "json" };
import confluence from "./confluence.json" with { type: "json" };
import contentful from "./contentful.json" with { type: "json" };
import customerIo from "./customer-io.json" with { type: "json" };
import datadog from "./datadog.json" with { type: "json" };
import deel from "./deel.json" with { type: "json" };
import deepgram from "./deepgram.json" with { type: "json" };
import dialpad from "./dialpad.json" with { type: "json" };
import digitalocean from "./digitalocean.json" with { type: "json" };
import discord from "./discord.json" with { type: "json" };
import discourse from "./discourse.json" with { type: "json" };
import docusign from "./docusign.json" with { type: "json" };
import dropbox from "./dropbox.json" with { type: "json" };
import dropboxSign from "./dropbox-sign.json" with { type: "json" };
import elevenlabs from "./elevenlabs.json" with { type: "json" };
import etsy from "./etsy.json" with { type: "json" };
import exa from "./exa.json" with { type: "json" };
import facebook from "./facebook.json" with { type: "json" };
import fathom from "./fathom.json" with { type: "json" };
import figma from "./figma.json" with { type: "json" };
import firecrawl from "./firecrawl.json" with { type: "json" };
import fireflies from "./fireflies.json" with { type: "json" };
import freshbooks from "./freshbooks.json" with { type: "json" };
import freshdesk from "./freshdesk.json" with { type: "json" };
import freshservice from "./freshservice.json" with { type: "json" };
import front from "./front.json" with { type: "json" };
import ghost from "./ghost.json" with { type: "json" };
import github from "./github.json" with { type: "json" };
import gitlab from "./gitlab.json" with { type: "json" };
import gitlabSelfManaged from "./gitlab-self-managed.json" with { type: "json" };
import gmail from "./gmail.json" with { type: "json" };
import gong from "./gong.json" with { type: "json" };
import googleAds from "./google-ads.json" with { type: "json" };
import googleAnalytics from "./google-analytics.json" with { type: "json" };
import googleBigquery from "./google-bigquery.json" with { type: "json" };
import googleCalendar from "./google-calendar.json" with { type: "json" };
import googleContacts from "./google-contacts.json" with { type: "json" };
import googleDocs from "./google-docs.json" with { type: "json" };
import googleDrive from "./google-drive.json" with { type: "json" };
import googleGemini from "./google-gemini.json" with { type: "json" };
import googleMaps from "./google-maps.json" with { type: "json" };
import googleMeet from "./google-meet.json" with { type: "json" };
import googleSheets from "./google-sheets.json" with { type: "json" };
import googleSlides from "./google-slides.json" with { type: "json" };
import googleTasks from "./google-tasks.json" with { type: "json" };
import googleWorkspaceAdmin from "./google-workspace-admin.json" with { type: "json" };
import gorgias from "./gorgias.json" with { type: "json" };
import granola from "./granola.json" with { type: "json" };
import greenhouse from "./greenhouse.json" with { type: "json" };
import groq from "./groq.json" with { type: "json" };
import gusto from "./gusto.json" with { type: "json" };
import hackerrankForWork from "./hackerrank-for-work.json" with { type: "json" };
import harvest from "./harvest.json" with { type: "json" };
import helpScout from "./help-scout.json" with { type: "json" };
import heroku from "./heroku.json" with { type: "json" };
import heygen from "./heygen.json" with { type: "json" };
import hibob from "./hibob.json" with { type: "json" };
import hubspot from "./hubspot.json" with { type: "json" };
import huggingFace from "./hugging-face.json" with { type: "json" };
import ibmCloud from "./ibm-cloud.json" with { type: "json" };
import instagram from "./instagram.json" with { type: "json" };
import instantly from "./instantly.json" with { type: "json" };
import intercom from "./intercom.json" with { type: "json" };
import jira from "./jira.json" with { type: "json" };
import jiraDataCenter from "./jira-data-center.json" with { type: "json" };
import klaviyo from "./klaviyo.json" with { type: "json" };
import klipfolio from "./klipfolio.json" with { type: "json" };
import kommo from "./kommo.json" with { type: "json" };
import launchdarkly from "./launchdarkly.json" with { type: "json" };
import lever from "./lever.json" with { type: "json" };
import linear from "./linear.json" with { type: "json" };
import linkedin from "./linkedin.json" with { type: "json" };
import linkhut from "./linkhut.json" with { type: "json" };
import mailchimp from "./mailchimp.json" with { type: "json" };
import mailgun from "./mailgun.json" with { type: "json" };
import mastodon from "./mastodon.json" with { type: "json" };
import mattermost from "./mattermost.json" with { type: "json" };
import metaAds from "./meta-ads.json" with { type: "json" };
import microsoftExcel from "./microsoft-excel.json" with { type: "json" };
import microsoftGraph from "./microsoft-graph.json" with { type: "json" };
import microsoftTeams from "./microsoft-teams.json" with { type: "json" };
import miro from "./miro.json" with { type: "json" };
import mistral from "./mistral.json" with { type: "json" };
import mixpanel from "./mixpanel.json" with { type: "json" };
import monday from "./monday.json" with { type: "json" };
import neon from "./neon.json" with { type: "json" };
import netlify from "./netlify.json" with { type: "json" };
import netsuite from "./netsuite.json" with { type: "json" };
import newRelic from "./new-relic.json" with { type: "json" };
import notion from "./notion.json" with { type: "json" };
import okta from "./okta.json" with { type: "json" };
import onedrive from "./onedrive.json" with { type: "json" };
import openai from "./openai.json" with { type: "json" };
import openrouter from "./openrouter.json" with { type: "json" };
import opsgenie from "./opsgenie.json" with { type: "json" };
import outlook from "./outlook.json" with { type: "json" };
import outreach from "./outreach.json" with { type: "json" };
import pagerduty from "./pagerduty.json" with { type: "json" };
import pandadoc from "./pandadoc.json" with { type: "json" };
import paypal from "./paypal.json" with { type: "json" };
import paypalSandbox from "./paypal-sandbox.json" with { type: "json" };
import pennylane from "./pennylane.json" with { type: "json" };
import peopleDataLabs from "./people-data-labs.json" with { type: "json" };
import perplexity from "./perplexity.json" with { type: "json" };
import pinecone from "./pinecone.json" with { type: "json" };
import pinterest from "./pinterest.json" with { type: "json" };
import pipedrive from "./pipedrive.json" with { type: "json" };
import posthog from "./posthog.json" with { type: "json" };
import postmark from "./postmark.json" with { type: "json" };
import powerBi from "./power-bi.json" with { type: "json" };
import productboard from "./productboard.json" with { type: "json" };
import pylon from "./pylon.json" with { type: "json" };
import quickbooks from "./quickbooks.json" with { type: "json" };
import recallAi from "./recall-ai.json" with { type: "json" };
import reddit from "./reddit.json" with { type: "json" };
import replicate from "./replicate.json" with { type: "json" };
import resend from "./resend.json" with { type: "json" };
import retellAi from "./retell-ai.json" with { type: "json" };
import rocketlane from "./rocketlane.json" with { type: "json" };
import sageIntacct from "./sage-intacct.json" with { type: "json" };
import salesforce from "./salesforce.json" with { type: "json" };
import sanity from "./sanity.json" with { type: "json" };
import sapS4hana from "./sap-s4hana.json" with { type: "json" };
import segment from "./segment.json" with { type: "json" };
import semrush from "./semrush.json" with { type: "json" };
import sendgrid from "./sendgrid.json" with { type: "json" };
import sentry from "./sentry.json" with { type: "json" };
import serpapi from "./serpapi.json" with { type: "json" };
import servicenow from "./servicenow.json" with { type: "json" };
import sharepoint from "./sharepoint.json" with { type: "json" };
import shopify from "./shopify.json" with { type: "json" };
import shortcut from "./shortcut.json" with { type: "json" };
import slack from "./slack.json" with { type: "json" };
import smartsheet from "./smartsheet.json" with { type: "json" };
import smugmug from "./smugmug.json" with { type: "json" };
import snowflake from "./snowflake.json" with { type: "json" };
import spotify from "./spotify.json" with { type: "json" };
import square from "./square.json" with { type: "json" };
import strava from "./strava.json" with { type: "json" };
import stripe from "./stripe.json" with { type: "json" };
import supabase from "./supabase.json" with { type: "json" };
import surveymonkey from "./surveymonkey.json" with { type: "json" };
import tableau from "./tableau.json" with { type: "json" };
import tavily from "./tavily.json" with { type: "json" };
import telegram from "./telegram.json" with { type: "json" };
import ticktick from "./ticktick.json" with { type: "json" };
import tiktok from "./tiktok.json" with { type: "json" };
import timely from "./timely.json" with { type: "json" };
import todoist from "./todoist.json" with { type: "json" };
import togglTrack from "./toggl-track.json" with { type: "json" };
import trello from "./trello.json" with { type: "json" };
import twilio from "./twilio.json" with { type: "json" };
import twitch from "./twitch.json" with { type: "json" };
import typeform from "./typeform.json" with { type: "json" };
import typefully from "./typefully.json" with { type: "json" };
import ukgPro from "./ukg-pro.json" with { type: "json" };
import vercel from "./vercel.json" with { type: "json" };
import vimeo from "./vimeo.json" with { type: "json" };
import webex from "./webex.json" with { type: "json" };
import webflow from "./webflow.json" with { type: "json" };
import whatsapp from "./whatsapp.json" with { type: "json" };
import woocommerce from "./woocommerce.json" with { type: "json" };
import workable from "./workable.json" with { type: "json" };
import workday from "./workday.json" with { type: "json" };
import wrike from "./wrike.json" with { type: "json" };
import x from "./x.json" with { type: "json" };
import xero from "./xero.json" with { type: "json" };
import youtube from "./youtube.json" with { type: "json" };
import zendesk from "./zendesk.json" with { type: "json" };
import zohoBooks from "./zoho-books.json" with { type: "json" };
import zohoCrm from "./zoho-crm.json" with { type: "json" };
import zohoDesk from "./zoho-desk.json" with { type: "json" };
import zohoInventory from "./zoho-inventory.json" with { type: "json" };
import zohoMail from "./zoho-mail.json" with { type: "json" };
import zoom from "./zoom.json" with { type: "json" };
import zoominfo from "./zoominfo.json" with { type: "json" };

export const providerFiles: unknown[] = [
  activecampaign,
  adyntel,
  affinity,
  agencyzoom,
  ahrefs,
  airtable,
  algolia,
  amplitude,
  anthropic,
  apaleo,
  apollo,
  asana,
  ashby,
  assemblyai,
  attio,
  auth0,
  bamboohr,
  basecamp,
  bigcommerce,
  bitbucket,
  bitly,
  blackbaud,
  box,
  braveSearch,
  breezyHr,
  brevo,
  calCom,
  calendly,
  canva,
  canvasLms,
  chargebee,
  circleci,
  clickhouse,
  clickup,
  close,
  cloudflare,
  coda,
  cohere,
  confluence,
  contentful,
  customerIo,
  datadog,
  deel,
  deepgram,
  dialpad,
  digitalocean,
  discord,
  discourse,
  docusign,
  dropbox,
  dropboxSign,
  elevenlabs,
  etsy,
  exa,
  facebook,
  fathom,
  figma,
  firecrawl,
  fireflies,
  freshbooks,
  freshdesk,
  freshservice,
  front,
  ghost,
  github,
  gitlab,
  gitlabSelfManaged,
  gmail,
  gong,
  googleAds,
  googleAnalytics,
  googleBigquery,
  googleCalendar,
  googleContacts,
  googleDocs,
  googleDrive,
  googleGemini,
  googleMaps,
  googleMeet,
  googleSheets,
  googleSlides,
  googleTasks,
  googleWorkspaceAdmin,
  gorgias,
  granola,
  greenhouse,
  groq,
  gusto,
  hackerrankForWork,
  harvest,
  helpScout,
  heroku,
  heygen,
  hibob,
  hubspot,
  huggingFace,
  ibmCloud,
  instagram,
  instantly,
  intercom,
  jira,
  jiraDataCenter,
  klaviyo,
  klipfolio,
  kommo,
  launchdarkly,
  lever,
  linear,
  linkedin,
  linkhut,
  mailchimp,
  mailgun,
  mastodon,
  mattermost,
  metaAds,
  microsoftExcel,
  microsoftGraph,
  microsoftTeams,
  miro,
  mistral,
  mixpanel,
  monday,
  neon,
  netlify,
  netsuite,
  newRelic,
  notion,
  okta,
  onedrive,
  openai,
  openrouter,
  opsgenie,
  outlook,
  outreach,
  pagerduty,
  pandadoc,
  paypal,
  paypalSandbox,
  pennylane,
  peopleDataLabs,
  perplexity,
  pinecone,
  pinterest,
  pipedrive,
  posthog,
  postmark,
  powerBi,
  productboard,
  pylon,
  quickbooks,
  recallAi,
  reddit,
  replicate,
  resend,
  retellAi,
  rocketlane,
  sageIntacct,
  salesforce,
  sanity,
  sapS4hana,
  segment,
  semrush,
  sendgrid,
  sentry,
  serpapi,
  servicenow,
  sharepoint,
  shopify,
  shortcut,
  slack,
  smartsheet,
  smugmug,
  snowflake,
  spotify,
  square,
  strava,
  stripe,
  supabase,
  surveymonkey,
  tableau,
  tavily,
  telegram,
  ticktick,
  tiktok,
  timely,
  todoist,
  togglTrack,
  trello,
  twilio,
  twitch,
  typeform,
  typefully,
  ukgPro,
  vercel,
  vimeo,
  webex,
  webflow,
  whatsapp,
  woocommerce,
  workable,
  workday,
  wrike,
  x,
  xero,
  youtube,
  zendesk,
  zohoBooks,
  zohoCrm,
  zohoDesk,
  zohoInventory,
  zohoMail,
  zoom,
  zoominfo,
];
