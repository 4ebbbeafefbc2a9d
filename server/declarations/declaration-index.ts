import type { Declaration, RelatedDeclaration } from '../../shared/domain/declaration';
import { normaliseLgaName, stateOfLgaCode } from '../../shared/domain/lga-name';
import type { LgaRef } from '../../shared/domain/lga';

/**
 * Declarations by the LGAs they name, so a check costs a few map look-ups however many declarations there are.
 * An LGA matches by ABS code, or by normalised name within its state when a source gave no code.
 */
export class DeclarationIndex {
  private readonly byCode = new Map<string, Declaration[]>();
  private readonly byName = new Map<string, Declaration[]>();
  private readonly byAgrn = new Map<string, Declaration>();

  constructor(declarations: readonly Declaration[]) {
    for (const declaration of declarations) {
      this.byAgrn.set(declaration.agrn, declaration);
      for (const lga of declaration.lgas) {
        if (lga.code) push(this.byCode, lga.code, declaration);
        const state = (lga.code && stateOfLgaCode(lga.code)) || declaration.state;
        if (state) push(this.byName, `${state}|${normaliseLgaName(lga.name)}`, declaration);
      }
    }
  }

  /** The declaration with this AGRN (ended ones included), if the data has it. */
  get(agrn: string): Declaration | undefined {
    return this.byAgrn.get(agrn);
  }

  /** Every declaration naming any of `lgas`, each once, with the LGAs of `lgas` it names. */
  related(lgas: readonly LgaRef[]): RelatedDeclaration[] {
    const found = new Map<string, RelatedDeclaration>();
    for (const lga of lgas) {
      const state = stateOfLgaCode(lga.lga_code);
      const candidates = [
        ...(this.byCode.get(lga.lga_code) ?? []),
        ...(state ? (this.byName.get(`${state}|${normaliseLgaName(lga.lga_name)}`) ?? []) : []),
      ];
      for (const declaration of candidates) {
        const entry = found.get(declaration.agrn) ?? { declaration, lgas: [] };
        if (!entry.lgas.some((l) => l.lga_code === lga.lga_code)) entry.lgas.push(lga);
        found.set(declaration.agrn, entry);
      }
    }
    return [...found.values()];
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) {
    if (!list.includes(value)) list.push(value);
  } else map.set(key, [value]);
}
