-- A throw-away profile field (issue 29: what adding a profile field touches).
ALTER TABLE "users" ADD COLUMN "bio" TEXT;
