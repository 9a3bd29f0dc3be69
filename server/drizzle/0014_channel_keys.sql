CREATE TABLE "channel_epochs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"conversation_id" text NOT NULL,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channel_shares" (
	"channel_epoch_id" uuid NOT NULL,
	"recipient_id" uuid NOT NULL,
	"wrap_id" uuid NOT NULL,
	"wrapped_key" text NOT NULL,
	CONSTRAINT "channel_shares_recipient_id_channel_epoch_id_pk" PRIMARY KEY("recipient_id","channel_epoch_id")
);
--> statement-breakpoint
CREATE TABLE "channel_wraps" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"channel_epoch_id" uuid NOT NULL,
	"wrapper_id" uuid NOT NULL,
	"generation" integer NOT NULL,
	"ephemeral_public_key" text NOT NULL,
	"signature" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "channel_epoch_id" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "channel_base_version" integer;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "rekey_by" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "rekey_epoch_id" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "rekey_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "epochs" ADD COLUMN "channel_epoch_id" uuid;--> statement-breakpoint
ALTER TABLE "epochs" ADD COLUMN "channel_generation" integer;--> statement-breakpoint
ALTER TABLE "channel_epochs" ADD CONSTRAINT "channel_epochs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_shares" ADD CONSTRAINT "channel_shares_channel_epoch_id_channel_epochs_id_fk" FOREIGN KEY ("channel_epoch_id") REFERENCES "public"."channel_epochs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_shares" ADD CONSTRAINT "channel_shares_recipient_id_users_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_shares" ADD CONSTRAINT "channel_shares_wrap_id_channel_wraps_id_fk" FOREIGN KEY ("wrap_id") REFERENCES "public"."channel_wraps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_wraps" ADD CONSTRAINT "channel_wraps_channel_epoch_id_channel_epochs_id_fk" FOREIGN KEY ("channel_epoch_id") REFERENCES "public"."channel_epochs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_wraps" ADD CONSTRAINT "channel_wraps_wrapper_id_users_id_fk" FOREIGN KEY ("wrapper_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_shares_epoch_idx" ON "channel_shares" USING btree ("channel_epoch_id");--> statement-breakpoint
CREATE INDEX "channel_wraps_epoch_idx" ON "channel_wraps" USING btree ("channel_epoch_id");