-- The spending gate's turn on D1 (src/store/d1/payment-store.ts): each task's Durable Object charges its own task,
-- and the gate's sums and the new payment row must be one object's at a time. A row per lock; one that outlives
-- its expiry (its object was evicted mid-turn) is taken over.
CREATE TABLE IF NOT EXISTS locks (
  name        TEXT PRIMARY KEY,
  holder      TEXT NOT NULL,
  expires_at  INTEGER NOT NULL
) STRICT;
