// Placeholder until the envelope issue lands; the signature is the contract.
export type UntrustedSource = 'Email' | 'Webhook';

export interface EnvelopeMeta {
  source: UntrustedSource;
  task?: string;
  from?: string;
  subject?: string;
}

/** Wraps untrusted text so that the model reads it as external content it must not obey. */
export function wrapUntrusted(content: string, meta: EnvelopeMeta): string {
  return `[external content from ${meta.source}]\n---\n${content}\n[end]`;
}
