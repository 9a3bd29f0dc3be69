CREATE TABLE "p2p_connections" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"node_id" uuid NOT NULL,
	"joiner_id" uuid NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "p2p_nodes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"host_id" uuid NOT NULL,
	"node_type" text NOT NULL,
	"capabilities" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"max_connections" integer NOT NULL,
	"location" text NOT NULL,
	"ip_address" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "p2p_nodes_host_id_unique" UNIQUE("host_id")
);
--> statement-breakpoint
ALTER TABLE "p2p_connections" ADD CONSTRAINT "p2p_connections_node_id_p2p_nodes_id_fk" FOREIGN KEY ("node_id") REFERENCES "public"."p2p_nodes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "p2p_connections" ADD CONSTRAINT "p2p_connections_joiner_id_users_id_fk" FOREIGN KEY ("joiner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "p2p_nodes" ADD CONSTRAINT "p2p_nodes_host_id_users_id_fk" FOREIGN KEY ("host_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "p2p_connections_node_joiner_idx" ON "p2p_connections" USING btree ("node_id","joiner_id");