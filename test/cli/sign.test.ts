import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { SIGNATURE_SCHEMES } from '../../src/auth/signatures/index.js';
import { schemeConfig } from '../helpers/signature-fixtures.js';

const SECRET = 'whsec_c2lnbi1jb21tYW5kLXRlc3Qtc2VjcmV0';
const MAPPINGS = [
  { id: 'gh', match: { path: 'github' }, action: 'wake', textTemplate: 'gh {{action}}', signature: { scheme: 'github', secret: '${GH_SECRET}' } },
  { id: 'sw', match: { path: 'events' }, action: 'wake', textTemplate: 'sw {{action}}', signature: { scheme: 'standard-webhooks', secret: SECRET } },
  { id: 'plain', match: { path: 'plain' }, action: 'wake', textTemplate: 'plain' },
];

/**
 * A describe block's working folder, fresh for each test: hookgate.json5 with these mappings and the
 * given files; `cli` runs the CLI in it, and a service a test starts with `serve` is closed after it.
 */
function cliFolder(prefix: string, mappings: readonly unknown[], files: Record<string, string>, env: Record<string, string>) {
  let dir = '';
  let svc: TestService | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    writeFileSync(join(dir, 'hookgate.json5'), JSON.stringify({ hooks: { enabled: true, token: 'tok-0123456789', mappings } }));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  });
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    dir: () => dir,
    async cli(argv: string[]) {
      let out = '';
      let err = '';
      const code = await runCli(argv, { stdout: (text) => void (out += text), stderr: (text) => void (err += text), env, cwd: dir });
      return { code, out, err };
    },
    async serve(...args: Parameters<typeof startTestService>): Promise<TestService> {
      svc = await startTestService(...args);
      return svc;
    },
  };
}

describe('hookgate sign and hookgate try on signed mappings', () => {
  const folder = cliFolder('hookgate-sign-', MAPPINGS, { 'push.json': '{"action":"opened", "note":"spaces  kept"}' }, { GH_SECRET: 'gh-secret-value' });
  const cli = folder.cli;

  function headersOf(out: string): Record<string, string> {
    const lines = out.split('\n').filter((line) => /^[A-Za-z0-9-]+: /.test(line));
    return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
  }

  it('prints headers the running service accepts, and a curl command', async () => {
    const signed = await cli(['sign', 'events', '--payload', 'push.json']);
    expect(signed.code).toBe(0);
    expect(signed.out).toMatch(/# mapping "sw", scheme standard-webhooks, signed at .*valid for 300 s/);
    expect(signed.out).toMatch(/curl -sS -X POST 'http:\/\/127\.0\.0\.1:\d+\/hooks\/events' -H 'Content-Type: application\/json' .*--data-binary @'.*push\.json'/);
    expect(signed.out).not.toContain(SECRET);
    const svc = await folder.serve({ hooks: { mappings: MAPPINGS.slice(1) } });
    const response = await fetch(`${svc.hooksUrl}/events`, { method: 'POST', headers: { 'content-type': 'application/json', ...headersOf(signed.out) }, body: '{"action":"opened", "note":"spaces  kept"}' });
    expect(response.status).toBe(200);
  });

  it('signs the event given with --event, and names the port the server running on the store listens on', async () => {
    writeFileSync(join(folder.dir(), 'hookgate.json5'), JSON.stringify({ hooks: { enabled: true, token: 'tok-0123456789', mappings: MAPPINGS }, storage: { path: 'hookgate.sqlite' } }));
    const unsigned = await cli(['sign', 'github', '--payload', 'push.json']);
    expect(unsigned.out).toContain("curl -sS -X POST 'http://127.0.0.1:8787/hooks/github'");
    const svc = await folder.serve({ hooks: { mappings: MAPPINGS.slice(2) } }, { dir: folder.dir() });
    const signed = await cli(['sign', 'github', '--payload', 'push.json', '--event', 'pull_request']);
    expect(headersOf(signed.out)['X-GitHub-Event']).toBe('pull_request');
    expect(signed.out).toContain(`curl -sS -X POST '${svc.url}/hooks/github'`);
    expect(svc.url).not.toContain(':8787');
  });

  it('hookgate check names the signed mappings and never prints a secret', async () => {
    const checked = await cli(['check']);
    expect(checked.code).toBe(0);
    expect(checked.out).toContain('3 custom (2 signed: github, standard-webhooks)');
    expect(checked.out).not.toContain('gh-secret-value');
    expect(checked.out).not.toContain(SECRET);
  });

  it('refuses a hook whose mapping takes the token, or that no mapping receives', async () => {
    expect((await cli(['sign', 'plain', '--payload', 'push.json'])).err).toMatch(/mapping "plain" receives "plain" but has no signature/);
    expect((await cli(['sign', 'nowhere', '--payload', 'push.json'])).err).toMatch(/no mapping in hooks.mappings or hooks.presets receives "nowhere"/);
    expect((await cli(['sign', '--payload', 'push.json'])).code).toBe(2);
  });

  it('try says a signature is required and checks the one given, without printing it', async () => {
    const signed = await cli(['sign', 'github', '--payload', 'push.json']);
    const given = Object.entries(headersOf(signed.out)).flatMap(([name, value]) => ['--header', `${name}: ${value}`]);
    const signatureValue = headersOf(signed.out)['X-Hub-Signature-256'] as string;
    const unchecked = await cli(['try', 'github', '--payload', 'push.json']);
    expect(unchecked.code).toBe(0);
    expect(unchecked.out).toMatch(/signature: required, scheme github .*\n {2}not checked/);
    const valid = await cli(['try', 'github', '--payload', 'push.json', ...given]);
    expect([valid.code, valid.out]).toEqual([0, expect.stringMatching(/signature: required, scheme github[^\n]*\n {2}valid/)]);
    expect(valid.out).not.toContain(signatureValue.slice('sha256='.length));
    writeFileSync(join(folder.dir(), 'push.json'), '{"action":"closed", "note":"spaces  kept"}');
    const altered = await cli(['try', 'github', '--payload', 'push.json', ...given]);
    expect(altered.code).toBe(1);
    expect(altered.out).toContain('INVALID: does not match the payload file');
    // The verdict comes first: no "→ 202" before it.
    expect(altered.out.indexOf('→ 401 SIGNATURE_INVALID')).toBeGreaterThan(altered.out.indexOf('INVALID: does not match'));
    expect(altered.out.indexOf('→ 401 SIGNATURE_INVALID')).toBeLessThan(altered.out.search(/→ 20\d/));
    expect((await cli(['try', 'plain', '--payload', 'push.json'])).out).toContain('signature: not required');
  });
});

describe('hookgate sign and try know every scheme', () => {
  const secret = 'whsec_ZXZlcnktc2NoZW1lLXNpZ24tdGVzdA==';
  const mappings = [
    ...SIGNATURE_SCHEMES.map((scheme) => ({ id: scheme.name, match: { path: scheme.name }, action: 'wake', textTemplate: `${scheme.name} {{action}}`, signature: schemeConfig(scheme.name, { secret }) })),
    { id: 'mac', match: { path: 'mac' }, action: 'wake', textTemplate: 'mac', signature: { scheme: 'hmac', secret, header: 'X-Custom-Mac' } },
    { id: 'echo', match: { path: 'echo' }, action: 'wake', textTemplate: 'seen [{{headers.x-custom-mac}}] [{{headers.x-shopify-hmac-sha256}}] [{{headers.x-kind}}]', allowUnsafeExternalContent: true },
  ];
  const folder = cliFolder('hookgate-sign-all-', mappings, { 'event.json': '{"action":"opened","id":"evt_9","webhookTimestamp":1}' }, {});
  const cli = folder.cli;

  /** The curl line's headers, path with query, and inline body (when the sender rewrote it). */
  function request(out: string) {
    const curl = out.split('\n').find((line) => line.startsWith('curl ')) ?? '';
    const quoted = [...curl.matchAll(/'((?:[^']|'\\'')*)'/g)].map((match) => (match[1] as string).replaceAll("'\\''", "'"));
    const url = new URL(quoted[0] as string);
    const headers = quoted.slice(1).filter((item) => /^[A-Za-z0-9-]+: /.test(item));
    const inline = curl.includes('--data-binary @') ? undefined : quoted[quoted.length - 1];
    return { pathAndQuery: `${url.pathname}${url.search}`, query: url.search.slice(1), headers, inline };
  }

  it.each(SIGNATURE_SCHEMES.filter((scheme) => scheme.sign !== undefined).map((scheme) => [scheme.name]))('%s: the signed request is valid for try and accepted by the service', async (name) => {
    const signed = await cli(['sign', name, '--payload', 'event.json']);
    expect(signed.code, signed.err).toBe(0);
    expect(signed.out).not.toContain(secret);
    const sent = request(signed.out);
    // GitLab's header is the secret itself, printed as a placeholder for the operator to fill in.
    sent.headers = sent.headers.map((header) => header.replace('<signature.secret>', secret));
    if (sent.inline !== undefined) writeFileSync(join(folder.dir(), 'event.json'), sent.inline);
    const query = sent.query === '' ? [] : sent.query.split('&').flatMap((pair) => ['--query', decodeURIComponent(pair)]);
    const tried = await cli(['try', name, '--payload', 'event.json', ...sent.headers.flatMap((header) => ['--header', header]), ...query]);
    expect(tried.out).toMatch(new RegExp(`signature: required, scheme ${name}[^\\n]*\\n {2}valid`));
    const svc = await folder.serve({ hooks: { mappings } });
    const headers = Object.fromEntries(sent.headers.map((header) => [header.slice(0, header.indexOf(':')), header.slice(header.indexOf(':') + 2)]));
    const body = sent.inline ?? '{"action":"opened","id":"evt_9","webhookTimestamp":1}';
    const response = await fetch(`${svc.url}${sent.pathAndQuery}`, { method: 'POST', headers, body });
    expect(response.status).toBe(200);
  });

  it('says discord cannot be signed locally (only Discord holds the private key)', async () => {
    const signed = await cli(['sign', 'discord', '--payload', 'event.json']);
    expect([signed.code, signed.err]).toEqual([1, expect.stringMatching(/scheme discord is signed with the provider's private key/)]);
  });

  it("try shows no mapping an hmac mapping's header, nor any scheme's signature header", async () => {
    const tried = await cli(['try', 'echo', '--payload', 'event.json', '--header', 'X-Custom-Mac: mac-value-7', '--header', 'X-Shopify-Hmac-Sha256: shop-value-8', '--header', 'X-Kind: push']);
    expect(tried.code).toBe(0);
    expect(tried.out).toContain('seen [] [] [push]');
    expect(tried.out).not.toMatch(/mac-value-7|shop-value-8/);
  });
});

describe('hookgate sign on a preset: the mapping that takes the event, and only the variables it needs', () => {
  const ISSUE = JSON.stringify({ action: 'opened', issue: { number: 4, title: 'Sign me' }, repository: { full_name: 'acme/app' }, sender: { login: 'octocat', type: 'User' } });
  const folder = cliFolder('hookgate-sign-preset-', [], { 'issue.json': ISSUE }, { GH_SECRET: 'gh-preset-secret' });
  const cli = folder.cli;
  const configWith = (secret: string) =>
    writeFileSync(
      join(folder.dir(), 'hookgate.json5'),
      JSON.stringify({
        hooks: { enabled: true, token: 'tok-0123456789', presets: [{ name: 'github', secret, debounce: false }] },
        // A forward target's token: nothing `sign` uses, and not set in this environment.
        targets: { oc: { kind: 'openclaw', url: 'http://127.0.0.1:9', token: '${OPENCLAW_TOKEN}' } },
      }),
    );

  it('names the mapping that takes --event, not the path\'s first, and signs a request the service takes', async () => {
    configWith('${GH_SECRET}');
    const issues = await cli(['sign', 'github', '--payload', 'issue.json', '--event', 'issues']);
    expect(issues.code, issues.err).toBe(0);
    expect(issues.out).toMatch(/^# mapping "preset:github\/issues", scheme github/);
    expect(issues.err).toContain('OPENCLAW_TOKEN is not set (used at /targets/oc/token); this command does not need it');
    const pulls = await cli(['sign', 'github', '--payload', 'issue.json', '--event', 'pull_request']);
    expect(pulls.out).toMatch(/^# mapping "preset:github\/pull_request"/);
    const headers = Object.fromEntries(
      issues.out
        .split('\n')
        .filter((line) => /^[A-Za-z0-9-]+: /.test(line))
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
    );
    const svc = await folder.serve({ hooks: { presets: [{ name: 'github', secret: 'gh-preset-secret', debounce: false }] } });
    const response = await fetch(`${svc.hooksUrl}/github`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: ISSUE });
    expect([response.status, ((await response.json()) as { ok: boolean }).ok]).toEqual([202, true]);
  });

  it('says which variable the signing mapping needs when it is not set', async () => {
    configWith('${GH_PRESET_SECRET}');
    const signed = await cli(['sign', 'github', '--payload', 'issue.json', '--event', 'issues']);
    expect(signed.code).toBe(1);
    expect(signed.err).toContain('environment variable GH_PRESET_SECRET is not set (used at /hooks/presets/0/secret)');
    expect(signed.err).not.toContain('OPENCLAW_TOKEN is not set (used at /targets/oc/token):');
    expect(signed.out).toBe('');
  });

  it('says so when no mapping on the path takes the event', async () => {
    configWith('${GH_SECRET}');
    const signed = await cli(['sign', 'github', '--payload', 'issue.json', '--event', 'no_such_event']);
    expect([signed.code, signed.err]).toEqual([1, expect.stringMatching(/no mapping that receives "github" takes the event "no_such_event"/)]);
  });
});
