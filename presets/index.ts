import type { PresetDefinition } from './define.js';
import { gmailPreset } from './gmail.js';

export type { PresetDefinition } from './define.js';

/** Every built-in preset, by the name `hooks.presets` uses. One line per preset file. */
export const PRESETS: readonly PresetDefinition[] = [gmailPreset];
