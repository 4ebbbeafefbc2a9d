import { describe, expect, it } from 'vitest';
import { BackgroundWork } from '../../../server/background';
import { CloseStack, OpenFeatures, type BackgroundJob, type OpenedFeature } from '../../../server/lifecycle';

/** A feature whose jobs and closer write what they do to `log`. */
function feature(name: string, jobNames: readonly string[], log: string[]): OpenedFeature<string> {
  const jobs: BackgroundJob[] = jobNames.map((job) => ({
    name: job,
    start: () => log.push(`start ${name} ${job}`),
    stop: async () => {
      await Promise.resolve();
      log.push(`stop ${name} ${job}`);
    },
  }));
  return { service: name, jobs, closers: [{ name, close: () => log.push(`close ${name}`) }] };
}

describe('features opened in order: their jobs run by the background work, their closers on the close stack', () => {
  it('starts jobs in the order features opened, stops them in reverse, then closes the features', async () => {
    const log: string[] = [];
    const stack = new CloseStack();
    const features = new OpenFeatures(stack);
    expect(features.add(feature('sessions', ['purge'], log))).toBe('sessions');
    features.add(feature('alerting', ['alerts', 'webhooks'], log));
    features.add(feature('usage', ['purge', 'usage-counts'], log));
    const background = new BackgroundWork(features.jobs);
    stack.defer('the background work', () => background.stop());

    // Every job of a name starts (each feature has its own purge), each once however often it is asked.
    background.start(['purge']);
    background.start(['purge']);
    expect(log.splice(0)).toEqual(['start sessions purge', 'start usage purge']);
    background.start();
    expect(log.splice(0)).toEqual(['start alerting alerts', 'start alerting webhooks', 'start usage usage-counts']);

    await stack.close();
    expect(log).toEqual([
      'stop usage usage-counts',
      'stop usage purge',
      'stop alerting webhooks',
      'stop alerting alerts',
      'stop sessions purge',
      'close usage',
      'close alerting',
      'close sessions',
    ]);
  });
});
