// The API fixture is shared with other packages' tests: it lives in packages/test-support.
export * from "@mteja/test-support/app";
