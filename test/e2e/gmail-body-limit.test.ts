import { afterEach, describe, expect, it } from 'vitest';
import { gmailBodyAllowance } from '../../presets/gmail.js';
import { bodyLimitsFor } from '../../src/http/body-limits.js';
import { hooksConfig } from '../mapping/support.js';
import { openSocket, readResponse, waitForClose } from '../helpers/raw-http.js';
import { post, startTestService, TEST_TOKEN, type TestService } from '../helpers/service.js';

const gmailPayload = (bytes: number) => ({ source: 'gmail', messages: [{ id: 'm1', from: 'a@example.com', subject: 's', body: 'x'.repeat(bytes) }] });

describe('the gmail preset body allowance', () => {
  it('is min(32 MiB, 100 × (3 × gmail.maxBytes + 8192)): 6.5 MiB by default, only on the gmail path of an enabled preset', () => {
    expect(gmailBodyAllowance(20_000)).toBe(6_819_200);
    expect(gmailBodyAllowance(1_000_000)).toBe(32 * 1024 * 1024);
    const limits = bodyLimitsFor(hooksConfig({ presets: ['gmail'], gmail: { maxBytes: 1000 } as never }));
    expect([limits('gmail'), limits('agent'), limits('github')]).toEqual([1_119_200, 262_144, 262_144]);
    expect(bodyLimitsFor(hooksConfig({ presets: ['gmail'], gmailMaxBodyBytes: 5000 }))('gmail')).toBe(262_144); // never below maxBodyBytes
    expect(bodyLimitsFor(hooksConfig())('gmail')).toBe(262_144);
  });

  describe('over HTTP', () => {
    let svc: TestService | undefined;
    afterEach(async () => {
      await svc?.close();
      svc = undefined;
    });

    it('lets the gmail path take bodies up to its allowance while other paths keep maxBodyBytes', async () => {
      svc = await startTestService({ hooks: { maxBodyBytes: 1000, gmailMaxBodyBytes: 5000, presets: ['gmail'] } });
      expect((await post(`${svc.hooksUrl}/gmail`, gmailPayload(3000))).status).toBe(202);
      const elsewhere = await post(`${svc.hooksUrl}/agent`, { message: 'x'.repeat(3000) });
      expect([elsewhere.status, elsewhere.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      expect((await post(`${svc.hooksUrl}/gmail`, gmailPayload(6000))).status).toBe(413);
    });

    it('still answers 413 on the gmail path before reading a body declared or streamed past the allowance', async () => {
      svc = await startTestService({ hooks: { maxBodyBytes: 1000, gmailMaxBodyBytes: 5000, presets: ['gmail'] } });
      const declared = await openSocket(svc.url);
      declared.write(`POST /hooks/gmail HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 5001\r\n\r\n`);
      expect((await readResponse(declared)).status).toBe(413);
      await waitForClose(declared);
      const streamed = await openSocket(svc.url);
      streamed.write(`POST /hooks/gmail HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
      const chunk = 'x'.repeat(3000);
      streamed.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      // No terminating chunk: the answer must not wait for the end of the body.
      expect((await readResponse(streamed)).status).toBe(413);
      streamed.destroy();
    });

    it('gives the gmail path no allowance when the preset is not enabled', async () => {
      svc = await startTestService({ hooks: { maxBodyBytes: 1000, gmailMaxBodyBytes: 5000 } });
      expect((await post(`${svc.hooksUrl}/gmail`, gmailPayload(3000))).status).toBe(413);
    });
  });
});
