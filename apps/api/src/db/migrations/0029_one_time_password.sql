-- The first admin's generated password is a one-time password: the first sign-in with it must
-- choose a new one before the session can do anything else.
ALTER TABLE "users" ADD COLUMN "must_change_password" boolean DEFAULT false NOT NULL;
