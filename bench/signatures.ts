/*
 * Micro-benchmark: what verifying a signature costs per request, by scheme and body size.
 * Run: node --import tsx bench/signatures.ts
 * For each registered scheme it signs a JSON body once, then verifies it N times with one secret and
 * with a rotation of three (the valid one last, the worst case), and prints the CPU time per
 * verification. A signed request pays this once, on top of reading and parsing the body.
 */
import { compileSignature, SIGNATURE_SCHEMES, type CompiledSignature } from '../src/auth/signatures/index.js';

const SIZES = [1_024, 16_384, 262_144];
const SECRET = 'whsec_YmVuY2gtc2lnbmluZy1zZWNyZXQtdmFsdWU=';
const OTHERS = ['whsec_b3RoZXItc2VjcmV0LW9uZS1iZW5jaA==', 'whsec_b3RoZXItc2VjcmV0LXR3by1iZW5jaA=='];

function compiled(scheme: string, secrets: string[]): CompiledSignature {
  const extra = scheme === 'hmac' ? { header: 'X-Signature', prefix: 'sha256=' } : scheme === 'twilio' ? { publicUrl: 'https://hooks.example.com/hooks/sms' } : {};
  const { signature, problems } = compileSignature({ scheme, secrets, ...extra });
  if (signature === undefined) throw new Error(problems.map((problem) => problem.message).join('; '));
  return signature;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

async function microsPerVerify(signature: CompiledSignature, body: Buffer, headers: Record<string, string>, query: string, now: number): Promise<number> {
  const iterations = Math.max(200, Math.floor(20_000_000 / body.length));
  for (let i = 0; i < 50; i++) await signature.scheme.verify(signature.settings, { body, headers, query, nowSeconds: now }); // warm-up
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i++) {
    const verdict = await signature.scheme.verify(signature.settings, { body, headers, query, nowSeconds: now });
    if (!verdict.ok) throw new Error(`${signature.scheme.name}: ${verdict.reason}`);
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / iterations;
}

const now = Math.floor(Date.now() / 1000);
console.log('| scheme | body | µs CPU / verify (1 secret) | µs CPU / verify (3 secrets) |');
console.log('|---|---|---|---|');
// discord is left out: only Discord holds the private key (its verification is one Ed25519 check).
for (const { name } of SIGNATURE_SCHEMES.filter((scheme) => scheme.sign !== undefined)) {
  for (const size of SIZES) {
    const text = JSON.stringify({ id: 'evt_1', event_id: 'Ev1', text: 'x'.repeat(size - 40) });
    const unsigned = Buffer.from(`${text.slice(0, size - 2)}"}`);
    const one = compiled(name, [SECRET]);
    const delivery = await (one.scheme.sign as NonNullable<typeof one.scheme.sign>)(one.settings, unsigned, now, 'delivery-1');
    const body = delivery.body ?? unsigned;
    const headers = lowerCased(delivery.headers);
    const single = await microsPerVerify(one, body, headers, delivery.query ?? '', now);
    const rotating = await microsPerVerify(compiled(name, [...OTHERS, SECRET]), body, headers, delivery.query ?? '', now);
    console.log(`| ${name} | ${(size / 1024).toFixed(0)} KiB | ${single.toFixed(1)} | ${rotating.toFixed(1)} |`);
  }
}
