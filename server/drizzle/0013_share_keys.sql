ALTER TABLE "users" ADD COLUMN "share_public_key" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "share_key_signature" text;