/** The fields a list's columns may hold, as the page's mapping keeps them until the postcode column is known. */
export interface ColumnChoice {
  postcode: number | null;
  suburb: number | null;
  date: number | null;
}

/**
 * The headings each field is recognised by, the most specific first: "Date of service" wins over a plain "Date", and a
 * plain "Date" is only taken when it is the whole heading (never "Date of birth").
 */
const HEADINGS: Record<keyof ColumnChoice, { phrases: string[]; whole: string[] }> = {
  postcode: { phrases: ['postcode', 'post code', 'postal code', 'pcode'], whole: [] },
  suburb: { phrases: ['suburb', 'locality', 'town', 'city'], whole: [] },
  date: {
    phrases: ['service date', 'date of service', 'appointment date', 'appt date', 'date of appointment'],
    whole: ['date'],
  },
};

/** A heading as words: lower case, anything but letters and digits a space ("Post-code (home)" → "post code home"). */
const words = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** Headings about the patient's birth are never a service date, whatever else they say. */
const BIRTH = /\b(birth|dob|born)\b/;

function find(headers: readonly string[], field: keyof ColumnChoice, taken: ReadonlySet<number>): number | null {
  const named = headers.map(words);
  const free = (i: number) => !taken.has(i) && !BIRTH.test(named[i]!);
  const { phrases, whole } = HEADINGS[field];
  for (const phrase of phrases) {
    const exact = named.findIndex((h, i) => h === phrase && free(i));
    if (exact >= 0) return exact;
    const within = named.findIndex((h, i) => ` ${h} `.includes(` ${phrase} `) && free(i));
    if (within >= 0) return within;
  }
  for (const heading of whole) {
    const exact = named.findIndex((h, i) => h === heading && free(i));
    if (exact >= 0) return exact;
  }
  return null;
}

/** The columns recognised by their headings; a field none is recognised for is null (chosen by hand). */
export function recogniseColumns(headers: readonly string[]): ColumnChoice {
  const taken = new Set<number>();
  const pick = (field: keyof ColumnChoice) => {
    const at = find(headers, field, taken);
    if (at !== null) taken.add(at);
    return at;
  };
  const postcode = pick('postcode');
  const date = pick('date');
  const suburb = pick('suburb');
  return { postcode, suburb, date };
}
