-- One name for the network creator in code: an account the creator owns.
ALTER TABLE "users" RENAME COLUMN "is_super_admin" TO "is_creator_account";
