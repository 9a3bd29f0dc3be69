ALTER TABLE "security_events" ADD COLUMN "source" text;--> statement-breakpoint
