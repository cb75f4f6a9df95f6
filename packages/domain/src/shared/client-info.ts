/**
 * What is kept of a request's client with the rows that show it back (a session in the device list, a
 * security event in the account's history): the User-Agent, cut to a length worth showing.
 */
export const USER_AGENT_MAX_LENGTH = 512;

export function storedUserAgent(userAgent: string | undefined): string | null {
  return userAgent?.slice(0, USER_AGENT_MAX_LENGTH) ?? null;
}
