import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../../server/auth/login-throttle';
import { MailLimit, mailThrottleLimits } from '../../../server/mail/mail-limit';
import type { Mailer, MailMessage } from '../../../server/mail/mailer';

function limitAt(now: { t: number }, perRecipient = 3, perOrganisation = 5) {
  const throttle = new LoginThrottle(mailThrottleLimits({ perRecipient, perOrganisation }), () => now.t);
  return new MailLimit(throttle.scoped('mail'));
}

const message = (to: string): MailMessage => ({ to, subject: 's', text: 't', html: 'h' });

describe('MailLimit: one limit on what the service sends (issue #35)', () => {
  it('per recipient, whichever organisation sends; a refusal says when and counts nothing', async () => {
    const now = { t: 1_000_000 };
    const limit = limitAt(now);
    for (const org of ['a', 'b', 'c']) expect(await limit.take(org, 'x@outside.test')).toEqual({ ok: true });
    const refused = await limit.take('d', 'x@outside.test');
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 3600 });
    now.t += 1800_000;
    await expect(limit.require('d', 'x@outside.test')).rejects.toMatchObject({
      code: 'mail_limited',
      headers: { 'Retry-After': '1800' },
    });
    now.t += 1800_000;
    expect(await limit.take('d', 'x@outside.test')).toEqual({ ok: true });
  });

  it('per organisation, whichever recipients; another organisation is not held back', async () => {
    const limit = limitAt({ t: 5_000 });
    for (let i = 0; i < 5; i++) expect((await limit.take('a', `r${i}@outside.test`)).ok).toBe(true);
    expect((await limit.take('a', 'r9@outside.test')).ok).toBe(false);
    expect((await limit.take('b', 'r9@outside.test')).ok).toBe(true);
  });

  it('a mail nobody signed in asked for counts on its recipient; over the limit it is dropped, logged without the address', async () => {
    const limit = limitAt({ t: 9_000 });
    const sent: string[] = [];
    const inner: Mailer = {
      enabled: true,
      send: async (m) => (sent.push(m.to), true),
      close: async () => undefined,
    };
    const warnings: unknown[] = [];
    const mailer = limit.mailer(inner, { warn: (fields: unknown) => warnings.push(fields) });
    await limit.take('a', 'v@outside.test');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await mailer.send(message('v@outside.test'), 'email verification'));
    expect(answers).toEqual([true, true, false]);
    expect(sent).toEqual(['v@outside.test', 'v@outside.test']);
    expect(warnings).toEqual([{ mail: 'email verification', retry_after_seconds: 3600 }]);
  });
});
