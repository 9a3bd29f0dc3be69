CREATE TABLE "timer_changes" (
	"id" bigint PRIMARY KEY DEFAULT nextval('messages_id_seq') NOT NULL,
	"conversation_id" text NOT NULL,
	"actor_id" uuid NOT NULL,
	"seconds" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" ALTER COLUMN "encrypted_content" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "disappearing_seconds" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "timer_changes" ADD CONSTRAINT "timer_changes_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "timer_changes_conversation_idx" ON "timer_changes" USING btree ("conversation_id","id");--> statement-breakpoint
CREATE INDEX "messages_expiry_idx" ON "messages" USING btree ("expires_at") WHERE "messages"."encrypted_content" is not null;