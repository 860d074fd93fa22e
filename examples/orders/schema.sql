-- The order service's schema, run by the service at start (embedded in its
-- binary), so the tables exist whenever the target is ready. Order ids are
-- a bigserial; an order's lines are rows of their own, removed with it.
CREATE TABLE IF NOT EXISTS orders (
    order_id   bigserial PRIMARY KEY,
    customer   text NOT NULL,
    status     text NOT NULL DEFAULT 'new',
    total      numeric(12, 2) NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- a customer's orders, newest first: the search's index
CREATE INDEX IF NOT EXISTS orders_customer_idx ON orders (customer, order_id DESC);
CREATE TABLE IF NOT EXISTS order_items (
    order_id bigint NOT NULL REFERENCES orders ON DELETE CASCADE,
    line     int NOT NULL,
    sku      text NOT NULL,
    qty      int NOT NULL CHECK (qty > 0),
    PRIMARY KEY (order_id, line)
);
