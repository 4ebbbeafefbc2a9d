import { every, PURGE_INTERVAL_MS, type OpenedFeature } from '../lifecycle';
import type { Logger } from '../logger';
import type { SessionPolicy, SessionStore } from './session-store';

/**
 * The session store the storage registry opens (closed with it), its failed writes logged, what expired while the
 * server was stopped removed now and what expires later by its purge job.
 */
export async function openSessions(
  open: (policy: SessionPolicy) => Promise<SessionStore>,
  policy: SessionPolicy,
  logger: Pick<Logger, 'error'>,
): Promise<OpenedFeature<SessionStore>> {
  const sessions = await open(policy);
  sessions.on('error', (err: unknown) => logger.error({ err }, 'session store write failed'));
  await sessions.purge();
  return {
    service: sessions,
    jobs: [
      every('purge', PURGE_INTERVAL_MS, () => {
        sessions.purge().catch((err: unknown) => logger.error({ err }, 'could not purge expired sessions'));
      }),
    ],
    closers: [],
  };
}
