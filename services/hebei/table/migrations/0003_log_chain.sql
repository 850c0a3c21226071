-- Logs that can be trusted (hebei.rules.chain): each rules event's link in its match's hash
-- chain and its signature (HMAC with the operator's log key), hex. NULL for table events
-- (seats connecting, pauses...), which are not chained, and for events logged before this.
ALTER TABLE events ADD COLUMN chain text, ADD COLUMN mac text;
