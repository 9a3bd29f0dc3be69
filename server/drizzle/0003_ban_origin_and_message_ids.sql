ALTER TABLE "messages" ADD COLUMN "client_message_id" uuid;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "banned_by" text;--> statement-breakpoint
CREATE UNIQUE INDEX "messages_sender_client_id_idx" ON "messages" USING btree ("sender_id","client_message_id");--> statement-breakpoint
-- Bans made before their origin was recorded: only the creator may lift them (fail closed).
UPDATE "users" SET "banned_by" = 'creator' WHERE "is_banned";
