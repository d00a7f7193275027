import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli.js';

const SECRET = `whsec_${Buffer.from('thirty-two bytes of test secret!').toString('base64')}`;
const TARGETS = `targets: {
    home: { kind: "openclaw", url: "http://127.0.0.1:18789", token: "oc-token" },
    inbox: { kind: "http", url: "https://agent.example/inbox", secret: "${SECRET}" },
  }`;

describe('targets in hookgate check and try', () => {
  let dir: string;
  let out: string;
  let err: string;
  const io = () => ({ stdout: (text: string) => void (out += text), stderr: (text: string) => void (err += text), env: {}, cwd: dir });
  const write = (text: string): string => {
    writeFileSync(join(dir, 'hookgate.json5'), text);
    return join(dir, 'hookgate.json5');
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-forward-'));
    out = '';
    err = '';
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses forward and callback names that are no configured target, with a did-you-mean, and targets that cannot take them', async () => {
    const path = write(`{ ${TARGETS},
      hooks: { enabled: true, token: "t0ken", presets: [{ name: "github", secret: "s", forward: "hme" }],
        mappings: [{ id: "ci", match: { path: "ci" }, messageTemplate: "x", forward: "inbx", callback: "home", allowRequestCallback: ["nowhere"] }] },
      agents: { defaults: { forward: "hom" } } }`);
    expect(await runCli(['check', '--config', path], io())).toBe(1);
    expect(err).toContain('/agents/defaults/forward: forward target "hom" is not configured; did you mean "home"? (targets: home, inbox)');
    expect(err).toContain('/hooks/mappings/0/forward: forward target "inbx" is not configured; did you mean "inbox"?');
    expect(err).toContain('/hooks/mappings/0/callback: callback target "home" (kind openclaw) takes no callbacks');
    expect(err).toContain('/hooks/mappings/0/allowRequestCallback/0: callback target "nowhere" is not configured (targets: home, inbox)');
    expect(err).toContain('/hooks/presets/0/forward: forward target "hme" is not configured; did you mean "home"?');
  });

  it('refuses relay tokens that another credential or relay target has, repeated or short ones, and a callback to a relay', async () => {
    const path = write(`{ targets: {
        laptop: { kind: "relay", tokens: ["hook-token-0123456789", "gateway-token-0123456789", "shared-relay-token-0123", "twice-listed-token-0123", "twice-listed-token-0123"] },
        desktop: { kind: "relay", tokens: ["shared-relay-token-0123", "short"] },
      },
      gateway: { auth: { token: "gateway-token-0123456789" } },
      hooks: { enabled: true, token: "hook-token-0123456789", mappings: [{ id: "ci", match: { path: "ci" }, messageTemplate: "x", forward: "laptop", callback: "desktop" }] } }`);
    expect(await runCli(['check', '--config', path], io())).toBe(1);
    expect(err).toContain('/targets/laptop/tokens/0: target "laptop": a relay token must differ from hooks.token (it reads this target only)');
    expect(err).toContain('/targets/laptop/tokens/1: target "laptop": a relay token must differ from gateway.auth.token');
    expect(err).toContain('/targets/desktop/tokens/0: target "desktop": a relay token must differ from the tokens of target "laptop"');
    expect(err).toContain('/targets/laptop/tokens/4: target "laptop": a token is listed twice');
    expect(err).toContain('/targets/desktop/tokens/1: target "desktop":');
    expect(err).toContain('/hooks/mappings/0/callback: callback target "desktop" (kind relay) takes no callbacks');
    expect(err.match(/tokens\/4/g)).toHaveLength(1);
  });

  it('reports a target that does not fit its kind, naming the field', async () => {
    const path = write(`{ targets: { a: { kind: "openclw", url: "http://x" }, b: { kind: "http", url: "ftp://x", secret: "not base64!" }, c: { kind: "openclaw", url: "http://x", token: "t", tokn: 1 } },
      hooks: { enabled: true, token: "t0ken" } }`);
    expect(await runCli(['check', '--config', path], io())).toBe(1);
    expect(err).toContain('/targets/a/kind: target "a": unknown kind "openclw"; expected one of openclaw, hermes, http');
    expect(err).toContain('/targets/b/url: target "b":');
    expect(err).toContain('/targets/c/tokn: target "c": unknown key');
  });

  it('lists the targets (never their URLs or secrets) and says when every action is forwarded', async () => {
    const path = write(`{ ${TARGETS}, hooks: { enabled: true, token: "t0ken" }, agents: { defaults: { forward: "home" } } }`);
    expect(await runCli(['check', '--config', path], io())).toBe(0);
    expect(out).toContain('targets       home (openclaw), inbox (http); every wake and agent action forwarded to home unless its mapping names another');
    expect(out).not.toContain('oc-token');
    expect(out).not.toContain('agent.example');
  });

  it('try shows the action forwarded to its target, and the callback', async () => {
    const path = write(`{ ${TARGETS}, hooks: { enabled: true, token: "t0ken", mappings: [{ id: "ci", match: { path: "ci" }, messageTemplate: "Build {{n}}", forward: "home", callback: "inbox" }] } }`);
    writeFileSync(join(dir, 'ci.json'), '{"n":7}');
    expect(await runCli(['try', 'ci', '--payload', join(dir, 'ci.json'), '--config', path], io())).toBe(0);
    expect(out).toContain('  forwarded to home (not run here; the run is the handoff)');
    expect(out).toContain('  when the run ends: callback to inbox');
    expect(out).toContain('result: 1 agent forwarded to home action → 202 (dry run: nothing stored)');
  });

  it('try shows an action forwarded to a relay target as held for its consumers', async () => {
    const path = write(`{ targets: { laptop: { kind: "relay", tokens: ["relay-token-0123456789"] } }, hooks: { enabled: true, token: "t0ken", mappings: [{ id: "ci", match: { path: "ci" }, messageTemplate: "Build {{n}}", forward: "laptop" }] } }`);
    writeFileSync(join(dir, 'ci.json'), '{"n":7}');
    expect(await runCli(['try', 'ci', '--payload', join(dir, 'ci.json'), '--config', path], io())).toBe(0);
    expect(out).toContain('  forwarded to laptop (not run here; held for its consumers to pull (hookgate relay, docs/relay.md))');
  });
});
