-- A payment's change of status is announced on the channel mteja_payment_status, so that every
-- instance's payments.onStatus subscribers hear of it at once, whichever instance settled it
-- (docs/deployment.md, "Status across instances"). A trigger, not a statement of each settling path:
-- NOTIFY belongs to the transaction of the change, is delivered when it commits and never when it rolls
-- back, and adds no round trip to a callback's statements. The payload names the payment; listeners read
-- the row itself.
-- Expand only.
CREATE FUNCTION mteja_announce_payment_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('mteja_payment_status', json_build_object(
    'id', NEW.id, 'tenant_id', NEW.tenant_id, 'checkout_request_id', NEW.checkout_request_id,
    'status', NEW.status)::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER payments_announce_status AFTER UPDATE OF status ON payments
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION mteja_announce_payment_status();
