/**
 * The domain declares each operation's REST route in its own words (`meta.openapi`, a RestRoute) and
 * imports no OpenAPI library; trpc-to-openapi reads that field under the same names. This is where the
 * two are held together: it stops compiling when they part, and a mapping goes here.
 */
import type { RestRoute } from "@mteja/domain";
import type { OpenApiMeta } from "trpc-to-openapi";

type LibraryRoute = NonNullable<OpenApiMeta["openapi"]>;

export const restRoutesAreTheLibrarys: RestRoute extends LibraryRoute ? true : never = true;
