import type { ImportProblem } from '../errors.js';
import type { ExportedComponent } from './format.js';
import type { ExportedManifestSourcing } from './sourcing.js';

/** sourcing.csv (see below): read into the components' sourcing and a vendor list, as an export holds them. */
export function sourcingFromCsv(_text: string, _components: ExportedComponent[], _legacy: boolean, _problems: ImportProblem[]): ExportedManifestSourcing | undefined {
  return undefined;
}
