import { CatchmentService } from '../catchment/catchment-service';
import type { CatchmentRepository } from '../catchment/catchment-repository';
import type { DeclarationRepository } from '../declarations/declaration-repository';
import type { OpenedFeature } from '../lifecycle';
import type { Logger } from '../logger';
import type { PostcodeIndex } from '../postcodes/postcode-index';
import type { WebhookRepository } from '../webhooks/webhook-repository';
import { WebhookService, type WebhookTuning } from '../webhooks/webhook-service';
import { AlertsService } from './alerts-service';

export interface AlertingDeps {
  repository: CatchmentRepository;
  webhookRepository: WebhookRepository;
  postcodes: PostcodeIndex;
  declarations: DeclarationRepository;
  clock: () => Date;
  logger: Logger;
  /** WEBHOOK_ALLOW_PRIVATE_ADDRESSES. */
  allowPrivateAddresses: boolean;
  /** Delivery timings over the defaults (a test's short back-off). */
  tuning?: WebhookTuning;
}

export interface Alerting {
  catchments: CatchmentService;
  alerts: AlertsService;
  webhooks: WebhookService;
}

/**
 * The catchments, their alerts and the webhooks those go to. The webhooks subscribe to the alerts themselves, before
 * any alert can be announced (alerts are processed only once their job starts).
 */
export function openAlerting(deps: AlertingDeps): OpenedFeature<Alerting> {
  const { repository, postcodes, declarations, clock, logger } = deps;
  const sources = { postcodes, declarations, titleOf: (agrn: string) => declarations.titleOf(agrn) };
  const alerts = new AlertsService({ repository, sources, clock, logger, refreshes: declarations.store });
  const webhooks = new WebhookService({
    ...deps.tuning,
    repository: deps.webhookRepository,
    clock,
    logger,
    allowPrivateAddresses: deps.allowPrivateAddresses,
    alerts,
  });
  return {
    service: { catchments: new CatchmentService({ repository, sources, clock }), alerts, webhooks },
    jobs: [
      // Alerts follow the declarations: each refresh (this process's, `npm run ingest`'s, another instance's) is
      // processed once, and the start-up processes what was missed while stopped.
      { name: 'alerts', start: () => alerts.start(), stop: () => alerts.stop() },
      // Due deliveries every second, new ones at once; what a stop left unqueued is queued at start.
      { name: 'webhooks', start: () => webhooks.start(), stop: () => webhooks.stop() },
    ],
    // Also when a caller started them directly (a test's worker): the processing and the attempts under way finish.
    closers: [
      { name: 'the webhook worker', close: () => webhooks.stop() },
      { name: 'the alerts', close: () => alerts.stop() },
    ],
  };
}
