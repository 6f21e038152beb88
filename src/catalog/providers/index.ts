// Every provider data file, in slug order. test/catalog/providers.test.ts checks this list
// against the directory, so a file cannot be added without being listed here.
import attio from "./attio.json" with { type: "json" };
import box from "./box.json" with { type: "json" };
import braveSearch from "./brave-search.json" with { type: "json" };
import calendly from "./calendly.json" with { type: "json" };
import canva from "./canva.json" with { type: "json" };
import discord from "./discord.json" with { type: "json" };
import docusign from "./docusign.json" with { type: "json" };
import dropbox from "./dropbox.json" with { type: "json" };
import figma from "./figma.json" with { type: "json" };
import front from "./front.json" with { type: "json" };
import github from "./github.json" with { type: "json" };
import intercom from "./intercom.json" with { type: "json" };
import linkedin from "./linkedin.json" with { type: "json" };
import mailchimp from "./mailchimp.json" with { type: "json" };
import miro from "./miro.json" with { type: "json" };
import openai from "./openai.json" with { type: "json" };
import pagerduty from "./pagerduty.json" with { type: "json" };
import quickbooks from "./quickbooks.json" with { type: "json" };
import reddit from "./reddit.json" with { type: "json" };
import resend from "./resend.json" with { type: "json" };
import sendgrid from "./sendgrid.json" with { type: "json" };
import shopify from "./shopify.json" with { type: "json" };
import stripe from "./stripe.json" with { type: "json" };
import todoist from "./todoist.json" with { type: "json" };
import twilio from "./twilio.json" with { type: "json" };
import typeform from "./typeform.json" with { type: "json" };
import webflow from "./webflow.json" with { type: "json" };
import x from "./x.json" with { type: "json" };
import xero from "./xero.json" with { type: "json" };
import zendesk from "./zendesk.json" with { type: "json" };
import zohoCrm from "./zoho-crm.json" with { type: "json" };
import zoom from "./zoom.json" with { type: "json" };

export const providerFiles: unknown[] = [
  attio,
  box,
  braveSearch,
  calendly,
  canva,
  discord,
  docusign,
  dropbox,
  figma,
  front,
  github,
  intercom,
  linkedin,
  mailchimp,
  miro,
  openai,
  pagerduty,
  quickbooks,
  reddit,
  resend,
  sendgrid,
  shopify,
  stripe,
  todoist,
  twilio,
  typeform,
  webflow,
  x,
  xero,
  zendesk,
  zohoCrm,
  zoom,
];
