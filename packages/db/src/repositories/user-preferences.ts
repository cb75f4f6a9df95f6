/**
 * A user's stored preferences, as the language of an answer or a mail reads them (docs/i18n.md). Of the
 * `users` table, in a file of its own while the users' repository is written beside it (issue 29): fold
 * it in there.
 */
import { prismaOf, type AnyClient } from "./clients.js";

/** The user's `preferences` document; undefined when there is no such user. */
export async function preferencesOf(db: AnyClient, userId: string): Promise<unknown> {
  const user = await prismaOf(db).user.findFirst({ where: { id: userId }, select: { preferences: true } });
  return user?.preferences;
}
