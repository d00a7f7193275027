import { calendly } from './calendly.js';
import { discord } from './discord.js';
import { github } from './github.js';
import { gitlab } from './gitlab.js';
import { genericHmac } from './hmac.js';
import { intercom } from './intercom.js';
import { jira } from './jira.js';
import { linear } from './linear.js';
import { meta } from './meta.js';
import { pagerduty } from './pagerduty.js';
import { sentry } from './sentry.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { standardWebhooks } from './standard-webhooks.js';
import { stripe } from './stripe.js';
import { twilio } from './twilio.js';
import { typeform } from './typeform.js';
import { vercel } from './vercel.js';
import { zendesk } from './zendesk.js';
import type { SignatureScheme } from './types.js';

/**
 * The explicit registry: a new scheme is one file and one line here. It lives apart from index.ts
 * (which compiles a mapping's `signature`, typed by the config) so the config schema can read it
 * without a cycle.
 */
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = [
  github,
  stripe,
  slack,
  shopify,
  standardWebhooks,
  genericHmac,
  gitlab,
  linear,
  sentry,
  pagerduty,
  twilio,
  discord,
  zendesk,
  calendly,
  intercom,
  vercel,
  meta,
  typeform,
  jira,
] as SignatureScheme[];
