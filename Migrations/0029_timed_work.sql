-- Timed work, sections and circuits. A set may carry a duration (a plank, a hold, an interval) and
-- a distance (a row, a carry, a run) beside or instead of reps; a template's items may set a time or
-- a distance as their target, belong to a section (warm-up, main, cool-down) and be grouped into
-- circuits done for a number of rounds. A workout logged from such a template keeps each
-- exercise's section and circuit, so history shows the workout as it was planned.

ALTER TABLE workout_sets
    ADD COLUMN duration_seconds integer CHECK (duration_seconds BETWEEN 1 AND 86400),
    ADD COLUMN distance_m integer CHECK (distance_m BETWEEN 1 AND 1000000);

ALTER TABLE workout_exercises
    ADD COLUMN section text NOT NULL DEFAULT 'main' CHECK (section IN ('warm_up', 'main', 'cool_down')),
    -- 0 outside a circuit; otherwise the template's circuit number (1-based).
    ADD COLUMN circuit integer NOT NULL DEFAULT 0 CHECK (circuit BETWEEN 0 AND 50);

ALTER TABLE template_items
    ADD COLUMN target_duration_seconds integer CHECK (target_duration_seconds BETWEEN 1 AND 86400),
    ADD COLUMN target_distance_m integer CHECK (target_distance_m BETWEEN 1 AND 1000000),
    ADD COLUMN section text NOT NULL DEFAULT 'main' CHECK (section IN ('warm_up', 'main', 'cool_down')),
    ADD COLUMN circuit integer NOT NULL DEFAULT 0 CHECK (circuit BETWEEN 0 AND 50),
    -- A timed or distance item may have no rep target.
    DROP CONSTRAINT template_items_reps_min_check,
    ADD CONSTRAINT template_items_reps_min_check CHECK (reps_min BETWEEN 0 AND 100),
    ADD CONSTRAINT template_items_has_target
        CHECK (reps_min > 0 OR target_duration_seconds IS NOT NULL OR target_distance_m IS NOT NULL);

-- A template's circuits, by number: element k - 1 of each array describes circuit k. The rounds
-- (1–20) and the rest after each round (seconds, 0–3600).
ALTER TABLE templates
    ADD COLUMN circuit_rounds integer[] NOT NULL DEFAULT '{}',
    ADD COLUMN circuit_rest_seconds integer[] NOT NULL DEFAULT '{}',
    ADD CONSTRAINT templates_circuits_check CHECK (
        cardinality(circuit_rounds) = cardinality(circuit_rest_seconds) AND cardinality(circuit_rounds) <= 50
        AND 1 <= ALL (circuit_rounds) AND 20 >= ALL (circuit_rounds)
        AND 0 <= ALL (circuit_rest_seconds) AND 3600 >= ALL (circuit_rest_seconds));
