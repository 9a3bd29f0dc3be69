CREATE TABLE "backups" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"file_name" text NOT NULL,
	"bytes" bigint NOT NULL,
	"sha256" text NOT NULL,
	"kind" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "backups_created_idx" ON "backups" USING btree ("created_at");