ALTER TABLE "security_events" ADD COLUMN "source" text;--> statement-breakpoint
-- The headers of an event (ip_analysis, up to 2 KiB) move out of the table's rows into its TOAST
-- table: the creator's figures scan the narrow rows and never read them (security/metrics.ts).
ALTER TABLE "security_events" SET (toast_tuple_target = 128);
