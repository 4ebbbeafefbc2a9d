import { readFileSync } from 'node:fs';

/**
 * What `npm start` runs after building: the server's entry and Node's options, read from package.json so that a
 * benchmark runs the server exactly as deployed and the two cannot drift apart. The script `exec`s node (so that a
 * supervisor's signal reaches the server), which is part of the shell, not of the command.
 */
export function startCommand(): { entry: string; nodeArgs: string[] } {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  const words = scripts
    .start!.split('&&')
    .map((part) => part.trim().split(/\s+/))
    .map((w) => (w[0] === 'exec' ? w.slice(1) : w))
    .find((w) => w[0] === 'node');
  if (!words) throw new Error('package.json start script does not run node');
  return { entry: words.at(-1)!, nodeArgs: words.slice(1, -1) };
}
