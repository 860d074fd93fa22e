-- Empties the order service's tables between cells and restarts the order
-- ids, so every cell starts from the same (empty) database. The service
-- creates the tables at start (schema.sql), so they exist whenever the
-- target is ready.
TRUNCATE TABLE order_items, orders RESTART IDENTITY;
