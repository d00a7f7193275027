import data from './letter-variants.json' with { type: 'json' };

/*
 * Latin letters drawn another way — turned (`ǝ ʇ ɹ ɐ`), reversed (`Ǝ`), with a stroke or a hook
 * (`Ŧ ƀ`), negative squared or circled (`🅴 🅔`), regional indicators (`🇪`) — by the letter their
 * Unicode name gives. Neither NFKD nor the confusables data (which maps characters a reader could
 * mistake for another, not stylised letters one reads as what they are) takes them back to ASCII.
 * The data is generated from UnicodeData.txt by scripts/letter-variants.ts and committed; it is
 * imported (not read from disk at run time) so the bundle in dist/ carries it.
 */

interface LetterVariantsData {
  letters: Readonly<Record<string, string>>;
}

function buildTable(): ReadonlyMap<string, string> {
  const { letters } = data as LetterVariantsData;
  const table = new Map<string, string>();
  for (const [letter, variants] of Object.entries(letters)) {
    for (const variant of variants) table.set(variant, letter);
  }
  return table;
}

let table: ReadonlyMap<string, string> | undefined;

/** Character → the lower-case ASCII letter its name says it is. Built on first use, like the confusables table. */
export function letterVariants(): ReadonlyMap<string, string> {
  return (table ??= buildTable());
}
