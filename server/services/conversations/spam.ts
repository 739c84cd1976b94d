/**
 * The spam rules of the AI seller (docs/ai-seller.md): a customer message is judged spam, and
 * the AI neither asked nor charged (`ai_reply` `skipped`, reason `spam`), when
 * 1. it holds more than 3 links (`http://`, `https://` or `www.`), or
 * 2. one character repeats 30 or more times in a row, or
 * 3. it repeats, letter for letter (case and spacing ignored), one of the customer's 3 previous messages
 *    of the same conversation from the last 10 minutes.
 * @param previous the customer's earlier messages of the conversation, newest first, with their times
 */
export function isSpam(
  content: string,
  previous: { content: string | null; createdAt: Date }[],
  now = new Date(),
): boolean {
  const links = content.match(/\b(?:https?:\/\/|www\.)/gi)?.length ?? 0;
  if (links > 3) return true;
  if (/(.)\1{29,}/su.test(content)) return true;
  const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();
  const text = norm(content);
  return previous
    .slice(0, 3)
    .some(
      (p) => p.content !== null && now.getTime() - p.createdAt.getTime() <= 10 * 60_000 && norm(p.content) === text,
    );
}
