/** Types of scripts/libsql-binaries.mjs, for the tests that import it. */
export interface PlatformPackage {
  name: string;
  version: string;
}
export const TARBALL_CACHE: string;
export function libsqlPlatformPackages(nodeModules: string): PlatformPackage[];
export function platformPackageProblem(nodeModules: string, wanted: PlatformPackage): string | undefined;
export function stageLibsqlBinaries(
  nodeModules: string,
  options?: { cacheDir?: string; log?: (line: string) => void },
): Array<PlatformPackage & { os: string; cpu: string }>;
