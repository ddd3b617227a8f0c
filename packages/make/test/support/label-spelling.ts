/**
 * How a README spells the app's modules and fields: Make's naming conventions put labels in sentence
 * case ("Watch new bulk jobs", "Start at page"), and a user searches Make's module list by the exact
 * label, so a README must use the app's own words.
 */
import { components, readJsonc } from '../harness/app-files';

/** The labels of a module's parameters and output fields, nested ones included. */
export function fieldLabels(moduleId: string): string[] {
  const meta = components('module').find(([id]) => id === moduleId)?.[1];
  if (!meta) throw new Error(`the app has no module ${moduleId}`);
  const walk = (fields: unknown): string[] =>
    Array.isArray(fields)
      ? fields.flatMap((f: { label?: unknown; spec?: unknown }) => [
          ...(typeof f.label === 'string' ? [f.label] : []),
          ...walk(f.spec),
        ])
      : [];
  return [meta.codeFiles.staticParams, meta.codeFiles.mappableParams, meta.codeFiles.interface]
    .filter((f): f is string => !!f)
    .flatMap((f) => walk(readJsonc(f)));
}

export const moduleLabels = (): string[] => components('module').map(([, meta]) => meta.label!);

/**
 * Every place a text spells a module or field of the app otherwise than the app: a label with other
 * capitals past its first letter ("List Bulk Job Results", "Start at Page"; a sentence may lower the
 * first letter, "the job ID"), and a module-like name in Title Case that is no label at all ("Watch
 * Bulk Job Finished"). Google Sheets' own module "Make an API Call" keeps Make's label for it.
 */
export function misspelledLabels(text: string): string[] {
  const flat = text.replace(/\s+/g, ' ').replaceAll('Make an API Call', 'Google Sheets module');
  const modules = moduleLabels();
  const labels = new Set([...modules, ...components('module').flatMap(([id]) => fieldLabels(id))]);
  const found: string[] = [];
  for (const label of labels) {
    const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const [seen] of flat.matchAll(new RegExp(`\\b${escaped}\\b`, 'gi')))
      if (seen.slice(1) !== label.slice(1)) found.push(`"${seen}" (the app says "${label}")`);
  }
  // "Make" starts a label but is also the platform's name ("Make Apps Editor").
  const verbs = [...new Set(modules.map((l) => l.split(' ')[0]!))].filter((v) => v !== 'Make').join('|');
  const titleCase = new RegExp(`\\b(?:${verbs})(?: an?| the)?(?: [A-Z][a-z]+)+\\b`, 'g');
  for (const [seen] of flat.matchAll(titleCase)) found.push(`"${seen}" (no module of the app)`);
  return found;
}
