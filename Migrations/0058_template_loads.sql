-- A template item may prescribe the load to lift: a weight (exact kilograms, as sets store them), or
-- a percentage of the lifter's estimated one-rep max, which a workout prefilled from the template
-- turns into a weight from the lifter's own recent sets. One or the other, or neither.
ALTER TABLE template_items
    ADD COLUMN target_weight_kg numeric(12, 6) CHECK (target_weight_kg > 0 AND target_weight_kg <= 2000),
    ADD COLUMN target_percent numeric(4, 1)
        CHECK (target_percent BETWEEN 1 AND 120 AND target_percent * 2 = round(target_percent * 2)),
    ADD CONSTRAINT template_items_one_load CHECK (target_weight_kg IS NULL OR target_percent IS NULL);
