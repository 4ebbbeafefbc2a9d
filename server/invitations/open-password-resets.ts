import { every, PURGE_INTERVAL_MS, type OpenedFeature } from '../lifecycle';
import { PasswordResetService, type PasswordResetServiceDeps } from './password-reset-service';

/**
 * Password-reset links, for the server (limited by the mail limit) and the admin CLI's reset-link (the operator's,
 * not limited) alike: expired links are purged by its job, and requests answered already finish their write and
 * e-mail before the stores close.
 */
export function openPasswordResets(deps: PasswordResetServiceDeps): OpenedFeature<PasswordResetService> {
  const resets = new PasswordResetService(deps);
  return {
    service: resets,
    jobs: [
      every('purge', PURGE_INTERVAL_MS, () => {
        resets.purgeExpired().catch((err: unknown) => deps.logger.error({ err }, 'could not purge expired links'));
      }),
    ],
    closers: [{ name: 'the password-reset requests', close: () => resets.drain() }],
  };
}
