import { WEBHOOK_ENDPOINTS } from '../../../../shared/api/webhook';
import type { ConsoleCalls } from '../../console-calls';

/** The Webhook page's calls: the organisation's webhook, replacing or removing it, and a signed test delivery now. */
export const webhookApi = ({ signedIn }: ConsoleCalls) => ({
  webhook: () => signedIn(WEBHOOK_ENDPOINTS.read),
  setWebhook: (url: string) => signedIn(WEBHOOK_ENDPOINTS.set, { body: { url } }),
  removeWebhook: () => signedIn(WEBHOOK_ENDPOINTS.remove),
  testWebhook: () => signedIn(WEBHOOK_ENDPOINTS.test),
});
