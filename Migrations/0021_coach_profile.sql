-- A coach's public-facing profile: a short bio and the specialities they coach (for example
-- "powerlifting", "beginners"). The coach portal edits them; the public coach directory reads them
-- later. A lifter may fill them too; nothing shows a lifter's.
--
-- The limits repeat the service's rules (AccountService.updateProfile names the field and the
-- reason); here they only stop a write that went around the service.

ALTER TABLE tenants
    ADD COLUMN bio text NOT NULL DEFAULT ''
        CONSTRAINT tenants_bio_length CHECK (char_length(bio) <= 1000),
    ADD COLUMN specialities text[] NOT NULL DEFAULT '{}'
        CONSTRAINT tenants_specialities_count CHECK (cardinality(specialities) <= 8);
