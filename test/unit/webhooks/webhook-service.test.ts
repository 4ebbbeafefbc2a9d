import { describe, expect, it } from 'vitest';
import { ContractError } from '../../../server/contract-error';
import { createLogger } from '../../../server/logger';
import { WebhookService } from '../../../server/webhooks/webhook-service';
import { jsonStorage } from '../../helpers/json-storage';
import { tempDir } from '../../helpers/temp-dir';

/** The service over DATA_DIR's webhooks document in a fresh directory, refusing private addresses as in production. */
async function service(): Promise<WebhookService> {
  const repository = await jsonStorage(await tempDir('dte-webhook-service-')).webhooks();
  const clock = () => new Date('2026-11-29T01:00:00.000Z');
  return new WebhookService({ repository, clock, logger: createLogger('silent'), allowPrivateAddresses: false });
}

describe('WebhookService: one webhook per subscription, over the JSON storage', () => {
  it("refuses a URL that is not http(s) to a public address with the contract's invalid_webhook_url, keeping none", async () => {
    const webhooks = await service();
    for (const url of [
      'ftp://clinic.example.com.au/hook',
      'http://127.0.0.1/hook',
      'http://10.0.0.8/hook',
      'not a url',
    ]) {
      const refusal = await webhooks.set('sub-1', url).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refusal, url).toBeInstanceOf(ContractError);
      expect(refusal, url).toMatchObject({ code: 'invalid_webhook_url', status: 400 });
    }
    expect(await webhooks.get('sub-1')).toBeNull();
  });

  it('replaces the webhook with a new secret shown once; removing one that is not there is false', async () => {
    const webhooks = await service();
    const first = await webhooks.set('sub-1', 'https://clinic.example.com.au/hooks/dte');
    const second = await webhooks.set('sub-1', 'https://other.example.com.au/hook');
    expect(second.secret).not.toBe(first.secret);
    expect(await webhooks.get('sub-1')).toEqual({
      url: 'https://other.example.com.au/hook',
      created_at: '2026-11-29T01:00:00.000Z',
      last_delivery: null,
    });
    expect(await webhooks.get('sub-2')).toBeNull();
    expect(await webhooks.remove('sub-2')).toBe(false);
    expect(await webhooks.sendTest('sub-2')).toBeNull();
    expect(await webhooks.remove('sub-1')).toBe(true);
    expect(await webhooks.get('sub-1')).toBeNull();
  });
});
