/**
 * Polls check every 25 ms until it holds; fails after ms. For effects of another process or of fs
 * events. The bound only decides how a hang fails: generous by default, for a loaded machine.
 */
export async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
