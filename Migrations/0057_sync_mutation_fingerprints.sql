-- A pushed mutation's content is remembered by its SHA-256 (`fingerprint`): a device whose counter
-- went back and sends a different change of the same object, from the same version, under a
-- number already applied is refused instead of answered "applied" (its change was dropped). Rows
-- recorded before have none and are compared as before (kind, object and base version).
ALTER TABLE sync_mutations ADD COLUMN fingerprint bytea;
