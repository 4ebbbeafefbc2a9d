export interface Build {
  name: string;
  /** The npm script that builds it. */
  script: string;
  /** Folders and files it reads, from the project's root. */
  inputs: string[];
  /** A file the build writes, from the project's root: without it, it is built again. */
  output: string;
}

export const BUILDS: Build[];
export function inputsHash(root: string, inputs: string[]): Promise<string>;
export function staleness(
  root: string,
  build: Pick<Build, 'name' | 'inputs' | 'output'>,
): Promise<{ stale: boolean; hash: string }>;
export function recordBuild(root: string, build: Pick<Build, 'name'>, hash: string): Promise<void>;
