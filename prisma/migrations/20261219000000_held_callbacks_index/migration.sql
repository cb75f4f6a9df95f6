-- The STK callbacks held until their prompt's CheckoutRequestID is stored (outcome 'accepted', no
-- payment yet) are looked for after every accepted prompt, after a prompt whose outcome is unknown
-- (received since it was stored) and on every reconciler pass (all of them). Nothing indexed them but
-- the correlation id, so the other two looks read the whole table: a partial index holds only the few
-- held ones (docs/performance.md, "Growth"). Expand only.
CREATE INDEX "momo_callbacks_held_by_kind" ON "momo_callbacks"("kind", "received_at")
  WHERE "outcome" = 'accepted' AND "payment_id" IS NULL;
