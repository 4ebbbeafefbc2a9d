/** "1 postcode", "2 postcodes": for nouns whose plural only adds an s. */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
