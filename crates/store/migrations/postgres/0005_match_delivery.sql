-- Which delivery of its job a running match is (issue #25): a worker on the queue tells the
-- server when it starts a job (its name goes in `worker`, the delivery number here), so the
-- operator page names the worker of each running match and shows a redelivered job's new one.
-- 0: not delivered by a queue (the server's own threads), or not started yet.
ALTER TABLE matches ADD COLUMN delivery BIGINT NOT NULL DEFAULT 0;
