/**
 * Reads a V8 CPU profile (what `node --cpu-prof` writes) into the two views that find a hot path fastest: self time
 * by package (which dependency, Node internals or our own bundle) and self time by function.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  /** Microseconds since the previous sample, one per sample. */
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
  /** Of the time the process was busy (idle samples excluded). */
  share: number;
}

export interface CpuProfileSummary {
  busyMs: number;
  byPackage: SelfTime[];
  byFunction: SelfTime[];
}

/** Where a frame's code lives: an npm package, a Node built-in module, V8 itself (GC, native) or our own file. */
export function codeOwner(frame: CallFrame): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (pkg) return pkg[1]!;
  if (frame.url.startsWith('node:')) return frame.url.split('/')[0]!;
  if (frame.url === '') return `(${frame.functionName.replace(/^\(|\)$/g, '') || 'native'})`;
  return frame.url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
}

function frameName(frame: CallFrame): string {
  // V8's own entries (GC, native calls) have no script to point into.
  if (frame.url === '') return codeOwner(frame);
  return `${frame.functionName || '(anonymous)'} ${codeOwner(frame)}:${frame.lineNumber + 1}`;
}

function ranked(totals: Map<string, number>, busyUs: number, top: number): SelfTime[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, ms: us / 1000, share: busyUs === 0 ? 0 : us / busyUs }));
}

export function summarizeCpuProfile(profile: CpuProfile, top = 15): CpuProfileSummary {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!frame || frame.functionName === '(idle)') return;
    busyUs += us;
    const owner = codeOwner(frame);
    byPackage.set(owner, (byPackage.get(owner) ?? 0) + us);
    const name = frameName(frame);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  });
  return {
    busyMs: busyUs / 1000,
    byPackage: ranked(byPackage, busyUs, top),
    byFunction: ranked(byFunction, busyUs, top),
  };
}

export function formatCpuProfileSummary(summary: CpuProfileSummary): string {
  const rows = (list: SelfTime[]) =>
    list.map((t) => `  ${(t.share * 100).toFixed(1).padStart(5)} %  ${t.ms.toFixed(0).padStart(6)} ms  ${t.name}`);
  return [
    `busy ${summary.busyMs.toFixed(0)} ms; self time by package:`,
    ...rows(summary.byPackage),
    'self time by function:',
    ...rows(summary.byFunction),
  ].join('\n');
}
