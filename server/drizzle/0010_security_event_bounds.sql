-- IF NOT EXISTS: databases made while this migration's journal time came before 0009's have the column already.
ALTER TABLE "security_events" ADD COLUMN IF NOT EXISTS "source" text;
