import { describe, expect, it } from 'vitest';
import {
  codeOwner,
  formatCpuProfileSummary,
  summarizeCpuProfile,
  type CpuProfile,
} from '../../../bench/lib/cpu-profile';

const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber });

// Four nodes; samples say where the process was each time, timeDeltas how long since the sample before.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(idle)', '') },
    { id: 2, callFrame: frame('handle', 'file:///srv/node_modules/router/index.js', 148) },
    { id: 3, callFrame: frame('check', 'file:///srv/.output/server/index.mjs', 1277) },
    { id: 4, callFrame: frame('(garbage collector)', '') },
    { id: 5, callFrame: frame('writeHead', 'node:_http_server', 339) },
  ],
  samples: [1, 2, 3, 3, 4, 5, 1],
  timeDeltas: [5000, 100, 300, 300, 200, 100, 9000],
};

describe('CPU profile summary (npm run bench with BENCH_CPU_PROF)', () => {
  it('ranks self time by package and by function, leaving idle time out', () => {
    const summary = summarizeCpuProfile(profile);
    expect(summary.busyMs).toBeCloseTo(1.0);
    expect(summary.byPackage.map((p) => p.name)).toEqual([
      '/srv/.output/server/index.mjs',
      '(garbage collector)',
      'router',
      'node:_http_server',
    ]);
    expect(summary.byPackage[0]!.share).toBeCloseTo(0.6);
    expect(summary.byFunction[0]).toMatchObject({ name: 'check /srv/.output/server/index.mjs:1278', ms: 0.6 });
    expect(summary.byFunction.map((f) => f.name)).toContain('(garbage collector)');
  });

  it('keeps only the requested number of rows', () => {
    const summary = summarizeCpuProfile(profile, 2);
    expect(summary.byPackage).toHaveLength(2);
    expect(summary.byFunction).toHaveLength(2);
  });

  it('names scoped packages, Node built-ins and V8 entries', () => {
    expect(codeOwner(frame('x', 'file:///a/node_modules/@asteasolutions/zod-to-openapi/dist/index.mjs'))).toBe(
      '@asteasolutions/zod-to-openapi',
    );
    expect(codeOwner(frame('x', 'node:internal/streams/readable'))).toBe('node:internal');
    expect(codeOwner(frame('(program)', ''))).toBe('(program)');
  });

  it('prints shares as percentages', () => {
    const text = formatCpuProfileSummary(summarizeCpuProfile(profile));
    expect(text).toContain('busy 1 ms');
    expect(text).toMatch(/60\.0 %.*index\.mjs/);
  });
});
