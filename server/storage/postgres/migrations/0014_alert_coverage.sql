-- Alerts say how much of the postcode the active declarations cover after the change (issue #34): `some` is eligible
-- only for the patients living in a covered LGA, which a client shows as its own state. Null on the alerts recorded
-- before: the API leaves the field out for them.
ALTER TABLE catchment_alerts ADD COLUMN coverage text CHECK (coverage IN ('all', 'some', 'none'));
