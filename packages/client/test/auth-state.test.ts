/** The client's reading of an access token: who, until when, and what a change of token means. */
import { describe, expect, it } from "vitest";
import { authStateEvent, authStateOf, expiresWithin } from "../src/auth-state.js";

const jwt = (claims: object) => `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.signature`;
const at = (seconds: number) => seconds * 1000;

describe("auth state", () => {
  it("reads subject, issue and expiry from the token (not verified: the service verifies)", () => {
    expect(authStateOf(jwt({ sub: "u1", iat: 1000, exp: 1900, name: "Wanjikũ" }))).toEqual({
      accessToken: expect.any(String),
      userId: "u1",
      issuedAt: new Date(at(1000)),
      expiresAt: new Date(at(1900)),
    });
    expect(authStateOf("mk_an_api_key")).toMatchObject({ userId: undefined, expiresAt: undefined });
    expect(authStateOf(null)).toBeNull();
  });

  it("is due for a refresh within the margin, or within a quarter of a short token's lifetime", () => {
    const long = authStateOf(jwt({ sub: "u1", iat: 0, exp: 900 }));
    expect(expiresWithin(long, 60, at(839))).toBe(false);
    expect(expiresWithin(long, 60, at(840))).toBe(true);
    const short = authStateOf(jwt({ sub: "u1", iat: 0, exp: 60 }));
    expect(expiresWithin(short, 60, at(44))).toBe(false);
    expect(expiresWithin(short, 60, at(45))).toBe(true);
    expect(expiresWithin(authStateOf("mk_an_api_key"), 60, at(1e9))).toBe(false);
  });

  it("names the change: signed in, refreshed, signed out, or another user signed in", () => {
    const first = authStateOf(jwt({ sub: "u1", exp: 1 }));
    const refreshed = authStateOf(jwt({ sub: "u1", exp: 2 }));
    const other = authStateOf(jwt({ sub: "u2", exp: 2 }));
    expect(authStateEvent(null, first)).toBe("SIGNED_IN");
    expect(authStateEvent(first, refreshed)).toBe("TOKEN_REFRESHED");
    expect(authStateEvent(refreshed, other)).toBe("SIGNED_IN");
    expect(authStateEvent(other, null)).toBe("SIGNED_OUT");
    expect(authStateEvent(first, first)).toBeUndefined();
  });
});
