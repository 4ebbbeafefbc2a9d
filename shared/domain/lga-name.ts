import type { StateCode } from './declaration';

// ABS names carry a type suffix ("Brisbane (C)"), councils a type word ("Brisbane City Council"), DisasterAssist
// neither ("Brisbane"). Stripping both lets the three spellings meet.
const ABS_SUFFIX = /\s*\((?:C|A|R|S|T|M|RC|DC|B|AC|NT|Qld|NSW|Vic\.?|Tas\.?|SA|WA)\)\s*/gi;
const TYPE_WORDS =
  /\b(?:city|shire|regional|municipal|municipality|borough|town|district|rural|aboriginal|island|council|of|the|local government area|lga)\b/g;

export function normaliseLgaName(name: string): string {
  const cleaned = name
    .normalize('NFKC')
    .replace(/[\u200B-\u200D\uFEFF]/g, '')
    .replace(ABS_SUFFIX, ' ')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`.]/g, '')
    .replace(/[^a-z0-9]+/g, ' ');
  const withoutTypes = cleaned.replace(TYPE_WORDS, ' ').replace(/\s+/g, ' ').trim();
  // "City of Sydney" would otherwise become "sydney", but a name made only of type words keeps them.
  return withoutTypes || cleaned.replace(/\s+/g, ' ').trim();
}

/** "Brisbane (C)" → "Brisbane": ABS type suffixes are noise to a clinician. */
export function displayLgaName(name: string): string {
  return name.replace(ABS_SUFFIX, ' ').replace(/\s+/g, ' ').trim();
}

const STATE_BY_CODE_DIGIT: Record<string, StateCode> = {
  '1': 'NSW',
  '2': 'VIC',
  '3': 'QLD',
  '4': 'SA',
  '5': 'WA',
  '6': 'TAS',
  '7': 'NT',
  '8': 'ACT',
};

/** ABS LGA codes start with the state's digit (1 NSW … 8 ACT; 9 other territories). */
export function stateOfLgaCode(code: string): StateCode | null {
  return STATE_BY_CODE_DIGIT[code.charAt(0)] ?? null;
}
