import type { PresetDefinition } from './define.js';
import { githubPreset } from './github.js';
import { gitlabPreset } from './gitlab.js';
import { gmailPreset } from './gmail.js';
import { linearPreset } from './linear.js';
import { pagerdutyPreset } from './pagerduty.js';
import { sentryPreset } from './sentry.js';
import { shopifyPreset } from './shopify.js';
import { slackPreset } from './slack.js';
import { stripePreset } from './stripe.js';

export type { PresetDefinition } from './define.js';

/** Every built-in preset, by the name `hooks.presets` uses. One line per preset file. */
export const PRESETS: readonly PresetDefinition[] = [
  gmailPreset,
  githubPreset,
  gitlabPreset,
  stripePreset,
  slackPreset,
  linearPreset,
  sentryPreset,
  pagerdutyPreset,
  shopifyPreset,
];
