/*
 * Default-ignorable code points: tag characters (U+E0000–E007F, "ASCII smuggling": invisible text
 * some models read), zero-width characters, joiners, bidi controls, variation selectors, fillers.
 * A reader sees nothing there and a model may see anything, so they are removed from untrusted text,
 * not only skipped by the matching view. The cost: an emoji sequence joined by U+200D reaches the
 * model as its parts, and a word that relied on a zero-width non-joiner for its shape (Persian) is
 * written without it.
 *
 * Every one of them folds to nothing, so the folded view of a text and of the text without them are
 * the same, and so are the findings in it: removing them from the sanitised text afterwards gives
 * what removing them first would (a test holds it), without folding the text twice.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The text without invisible code points, and how many there were. */
export function removeInvisible(text: string): { text: string; invisible: number } {
  let invisible = 0;
  const visible = text.replace(INVISIBLE, () => {
    invisible++;
    return '';
  });
  return { text: visible, invisible };
}
